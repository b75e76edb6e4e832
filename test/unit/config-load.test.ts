import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { CONFIG_NAME, findConfig, loadConfig } from '../../src/config/load.js';
import { hostGroupOf, overrideRulesOf } from '../../src/config/resolve.js';
import { ConfigError } from '../../src/config/types.js';
import { removeScratch, scratchDir } from '../helpers/cli.js';

const dir = scratchDir('config');
after(() => removeScratch(dir));
let counter = 0;

/** Writes a config under a fresh directory and loads it with paths shown relative to the scratch dir. */
async function load(text: string) {
  const file = path.join(dir, `case${++counter}`, CONFIG_NAME);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return loadConfig(file, builtinRules, dir);
}

async function failure(text: string): Promise<string> {
  try {
    await load(text);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error.message.replace(/^case\d+\//, '');
  }
  assert.fail('the config loaded');
}

const FULL = `# every key
extends: strict
target: { httpd: "2.4", mysql: "8.0" }
host:
  ram: 2G
  cpus: 2
  perChild: 40M
budget: { apacheShare: 0.4, osReserveMin: 128M, adminConnections: 5 }
rules:
  AP2001: warn
  renamed-mpm-directive: [error]
  max-connections-far-above-need: [warn, { factor: 3 }]
overrides:
  - name: db1
    files: ["hosts/db1/**"]
    host: { ram: 16G, cpus: 8 }
    target: mariadb=10.6
  - files: "sites/*.conf"
    rules: { AP4001: off }
`;

describe('.tune-lint.yaml: reading', () => {
  it('unquoted versions are read as written, not as YAML numbers (10.10 is not 10.1, 8.0 is not 8)', async () => {
    assert.deepEqual((await load('target: { httpd: 2.4, mariadb: 10.10 }\n')).targets, {
      httpd: '2.4',
      db: { product: 'mariadb', version: '10.10' },
    });
    assert.deepEqual((await load('target:\n  mysql: 8.0\n')).targets, { db: { product: 'mysql', version: '8.0' } });
    assert.deepEqual((await load('target: { mysql: 8.0.36 }\n')).targets, { db: { product: 'mysql', version: '8.0.36' } });
  });

  it('reads every key: preset, targets, host facts, budget, rules by id and by name with options, overrides', async () => {
    const config = await load(FULL);
    assert.equal(config.preset, 'strict');
    assert.deepEqual(config.targets, { db: { product: 'mysql', version: '8.0' }, httpd: '2.4' });
    assert.equal(config.host?.facts.ram?.value, 2 * 1024 ** 3);
    assert.equal(config.host.facts.perChild?.value.median, 40 * 1024 ** 2);
    assert.deepEqual(config.budget, { apacheShare: 0.4, osReserveMin: 128 * 1024 ** 2, adminConnections: 5 });
    assert.deepEqual(
      [...config.rules],
      [
        ['AP2001', { severity: 'warn' }],
        ['AP4001', { severity: 'error' }],
        ['MY2004', { severity: 'warn', options: { factor: 3 } }],
      ],
    );
    assert.equal(config.overrides.length, 2);
    const [db1, sites] = config.overrides;
    assert.equal(db1?.name, 'db1');
    assert.deepEqual(db1.files, ['hosts/db1/**']);
    assert.equal(db1.host?.source, `case${counter}/${CONFIG_NAME} overrides[0]`);
    assert.deepEqual(db1.targets, { db: { product: 'mariadb', version: '10.6' } });
    assert.deepEqual(sites?.files, ['sites/*.conf']);
    assert.deepEqual([...sites.rules], [['AP4001', { severity: 'off' }]]);
  });

  it("a YAML 1.1 writer's false for off is off (Ansible's to_nice_yaml, PyYAML)", async () => {
    const rules = (await load('rules:\n  AP2001: false\n  MY2004: [false]\n')).rules;
    assert.deepEqual(rules.get('AP2001'), { severity: 'off' });
    assert.deepEqual(rules.get('MY2004'), { severity: 'off' });
  });

  it('env: variables for ${NAME}, each value as text', async () => {
    const config = await load('env:\n  APACHE_RUN_USER: www-data\n  APACHE_PORT: 8080\n');
    assert.deepEqual(config.env, { APACHE_RUN_USER: 'www-data', APACHE_PORT: '8080' });
  });

  it('an empty file, or one with comments only, is the defaults', async () => {
    for (const text of ['', '# nothing yet\n']) {
      const config = await load(text);
      assert.equal(config.preset, 'recommended');
      assert.equal(config.rules.size, 0);
      assert.equal(config.overrides.length, 0);
    }
  });

  it('a host override replaces the top-level host and merges target and budget; rule overrides are per file, later ones win', async () => {
    const config = await load(`${FULL}  - files: ["sites/*.conf"]\n    rules: { AP4001: warn }\n`);
    const base = path.dirname(path.join(dir, `case${counter}`, CONFIG_NAME));
    const db1 = hostGroupOf(config, path.join(base, 'hosts/db1/etc/my.cnf'));
    assert.equal(db1.label, 'db1');
    assert.equal(db1.host?.facts.ram?.value, 16 * 1024 ** 3);
    assert.equal(db1.host.facts.perChild, undefined, 'not inherited from the top-level host');
    assert.deepEqual(db1.targets, { httpd: '2.4', db: { product: 'mariadb', version: '10.6' } });
    assert.equal(db1.budget.apacheShare, 0.4);
    const other = hostGroupOf(config, path.join(base, 'etc/apache2/apache2.conf'));
    assert.equal(other.index, -1);
    assert.equal(other.host?.facts.ram?.value, 2 * 1024 ** 3);
    assert.deepEqual([...(overrideRulesOf(config, path.join(base, 'sites/a.conf')) ?? [])], [['AP4001', { severity: 'warn' }]]);
    assert.equal(overrideRulesOf(config, path.join(base, 'sites/sub/a.conf')), undefined, '* stays within one directory');
  });

  it('is found upward from the working directory; the first one wins', () => {
    const top = path.join(dir, 'up');
    fs.mkdirSync(path.join(top, 'a', 'b'), { recursive: true });
    fs.writeFileSync(path.join(top, CONFIG_NAME), 'extends: strict\n');
    assert.equal(findConfig(path.join(top, 'a', 'b')), path.join(top, CONFIG_NAME));
    fs.writeFileSync(path.join(top, 'a', CONFIG_NAME), '');
    assert.equal(findConfig(path.join(top, 'a', 'b')), path.join(top, 'a', CONFIG_NAME));
  });
});

describe('.tune-lint.yaml: every mistake is one line at file:line:col', () => {
  const cases: [string, string, string][] = [
    ['YAML syntax', 'rules:\n  AP2001: [warn\n', `${CONFIG_NAME}:3:1: `],
    ['a duplicate key', 'rules:\n  AP2001: warn\n  AP2001: error\n', `${CONFIG_NAME}:3:3: Map keys must be unique`],
    ['not a mapping', '- a\n- b\n', `${CONFIG_NAME}:1:1: ${CONFIG_NAME} must be a mapping`],
    [
      'an unknown top-level key',
      'extends: strict\nrule:\n  AP2001: warn\n',
      `${CONFIG_NAME}:2:1: unknown key "rule"; expected extends, target, host, budget, env, rules, overrides`,
    ],
    ['an unknown preset', 'extends: eslint:recommended\n', `${CONFIG_NAME}:1:10: extends must be "recommended" or "strict"`],
    ['an unknown rule', 'rules:\n  AP9999: warn\n', `${CONFIG_NAME}:2:3: unknown rule "AP9999"; tune-lint rules lists the ids and names`],
    [
      'a rule set twice, by id and by name',
      'rules:\n  AP4001: warn\n  renamed-mpm-directive: off\n',
      `${CONFIG_NAME}:3:3: AP4001 is set twice in this rules mapping (by id and by name)`,
    ],
    ['a bad severity', 'rules:\n  AP2001: loud\n', `${CONFIG_NAME}:2:11: severity must be off, info, warn or error, not "loud"`],
    [
      'an option the rule does not have',
      'rules:\n  MY2004: [warn, { share: 0.9 }]\n',
      `${CONFIG_NAME}:2:20: MY2004 has no option "share"; its options: factor, slack, threshold, minUptime`,
    ],
    [
      'an option of the wrong type',
      'rules:\n  MY2004: [warn, { factor: high }]\n',
      `${CONFIG_NAME}:2:28: MY2004 option factor must be a number`,
    ],
    ['env that is not a mapping', 'env: [A]\n', `${CONFIG_NAME}:1:6: env must be a mapping like { APACHE_RUN_USER: www-data }`],
    [
      'an env name sh would not take',
      'env:\n  1X: a\n',
      `${CONFIG_NAME}:2:3: env name "1X" must be letters, digits and _, not starting with a digit`,
    ],
    ['an env value that is a list', 'env:\n  X: [a]\n', `${CONFIG_NAME}:2:6: env X must be a string, like X: value`],
    ['a bad target', 'target: { httpd: "3.0" }\n', `${CONFIG_NAME}:1:11: unsupported httpd target "3.0": expected 2.2 or 2.4`],
    ['an unknown product', 'target: { postgres: "16" }\n', `${CONFIG_NAME}:1:11: invalid target "postgres=16"`],
    ['a bad host fact', 'host:\n  ram: lots\n', `${CONFIG_NAME}:2:8: host.ram: expected a size such as 512M or 2G, got "lots"`],
    ['an unknown host fact', 'host:\n  memory: 2G\n', `${CONFIG_NAME}:2:3: `],
    [
      'a bad budget share',
      'budget: { apacheShare: 50 }\n',
      `${CONFIG_NAME}:1:24: budget apacheShare must be a share above 0 and at most 1, like 0.5`,
    ],
    ['an unknown budget key', 'budget: { apacheRatio: 0.5 }\n', `${CONFIG_NAME}:1:11: unknown budget key "apacheRatio"`],
    ['overrides that are not a list', 'overrides: { files: a }\n', `${CONFIG_NAME}:1:12: overrides must be a list`],
    [
      'an override without files',
      'overrides:\n  - rules: { AP2001: off }\n',
      `${CONFIG_NAME}:2:5: an override needs files: a glob or a list of globs`,
    ],
    [
      'an unknown override key',
      'overrides:\n  - files: a\n    hosts: { ram: 1G }\n',
      `${CONFIG_NAME}:3:5: unknown override key "hosts"; expected name, files, host, rules, target, budget`,
    ],
    [
      'a bad host in an override',
      'overrides:\n  - files: a\n    host: { cpus: 0 }\n',
      `${CONFIG_NAME}:3:19: host.cpus: expected a number of CPUs greater than 0`,
    ],
  ];
  for (const [what, text, expected] of cases) {
    it(what, async () => {
      const message = await failure(text);
      assert.ok(message.startsWith(expected), `${message}\ndoes not start with\n${expected}`);
    });
  }
});
