import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import AjvModule from 'ajv';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { builtinRules } from '../../rules/index.js';
import { BUDGET_KEYS, CONFIG_NAME, loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/types.js';
import { HOST_FACT_NAMES } from '../../src/host/facts.js';
import type { OptionSpec } from '../../src/engine/types.js';
import { parseFriendlySize } from '../../src/util/units.js';
import { removeScratch, scratchDir } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';

/*
 * schema/tune-lint.schema.json, the JSON Schema editors use for
 * .tune-lint.yaml, against the loader: whatever the loader accepts the schema
 * accepts (an editor must never mark a working config as wrong), and the
 * mistakes a schema can describe (unknown keys, wrong types, bad severities,
 * unknown rules and options) it rejects as the loader does.
 */
const SCHEMA_FILE = repoPath('schema', 'tune-lint.schema.json');
const schema = JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')) as { definitions: { size: { anyOf: [unknown, { pattern: string }] } } };
// allowMatchingProperties: rule ids and names are listed as properties, for editors to complete, and again as
// patterns that take them in any case, as the loader does.
const ajv = new AjvModule.default({ strict: true, allErrors: true, allowMatchingProperties: true });
const validate = ajv.compile(schema);

const scratch = scratchDir('config-schema');
after(() => removeScratch(scratch));
let counter = 0;

async function loaderAccepts(text: string): Promise<boolean> {
  const file = path.join(scratch, `case${++counter}`, CONFIG_NAME);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  try {
    await loadConfig(file, builtinRules, scratch);
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

function schemaAccepts(text: string): boolean {
  return validate(parse(text));
}

function schemaErrors(): string {
  return ajv.errorsText(validate.errors, { separator: '\n' });
}

describe('the JSON Schema of .tune-lint.yaml', () => {
  it('is what scripts/gen-config-schema.mjs writes from the loader and the rules (npm run docs)', () => {
    execFileSync(process.execPath, [repoPath('scripts', 'gen-config-schema.mjs'), '--check'], { stdio: 'pipe' });
  });

  it('takes every .tune-lint.yaml the repository ships, in docs/usage.md and the fixtures', async () => {
    const usage = fs.readFileSync(repoPath('docs', 'usage.md'), 'utf8');
    const examples = [...usage.matchAll(/<!-- tune-lint config -->\n```yaml\n([\s\S]*?)```\n/g)].map((match) => match[1] as string);
    const fixtures = [repoPath('fixtures', 'cli', 'repo-fleet', CONFIG_NAME)].map((file) => fs.readFileSync(file, 'utf8'));
    assert.ok(examples.length >= 2);
    for (const text of [...examples, ...fixtures, '', '# only a comment\n']) {
      assert.ok(await loaderAccepts(text), text);
      assert.ok(schemaAccepts(text), `${text}\n${schemaErrors()}`);
    }
  });

  it('takes rule ids and names in any case, as the loader does', async () => {
    for (const text of [
      'rules: { ap2013: off }\n',
      'rules: { Long-Timeout: [warn, { fixTo: 30 }] }\n',
      'target: { HTTPD: "2.4", MariaDB: 10.11 }\n',
      'host: { ram: 2gib }\n',
    ]) {
      assert.ok(await loaderAccepts(text), text);
      assert.ok(schemaAccepts(text), `${text}\n${schemaErrors()}`);
    }
  });

  const mistakes = [
    'extnds: strict',
    'extends: lax',
    '- a list',
    'host: { ram: lots }',
    'host: { per_child: 20M }',
    'host: { perChild: { max: 40M } }',
    'host: { perChild: { median: 40M, metric: vss } }',
    'host: { cpus: 0 }',
    'host: { somaxconn: 1.5 }',
    'host: { apacheRunning: "yes" }',
    'host: { mounts: [{ mountPoint: var/www, fsType: nfs }] }',
    'host: { mounts: [{ mountPoint: /var/www }] }',
    'host: 2G',
    'budget: { apacheShare: 1.5 }',
    'budget: { apacheShare: "0.5" }',
    'budget: { adminConnections: 2.5 }',
    'budget: { osReserveMin: lots }',
    'budget: { apacheshare: 0.5 }',
    'rules: { AP9999: warn }',
    'rules: { AP2013: loud }',
    'rules: { AP2013: }',
    'rules: { AP2013: [] }',
    'rules: { AP2013: [warn, {}, 3] }',
    'rules: { AP2013: [warn, { nope: 1 }] }',
    'rules: { AP2013: [warn, { warnAt: "300" }] }',
    'rules: { AP2004: [warn, { nonThreadSafeModules: [1] }] }',
    'rules: [AP2013]',
    'target: { httpd: "3.0" }',
    'target: { nginx: "1.25" }',
    'target: "httpd=2.4 mysql=8.0"',
    'target: 2.4',
    'overrides: [{ rules: { AP4001: off } }]',
    'overrides: [{ files: [] }]',
    'overrides: [{ files: "" }]',
    'overrides: [{ files: x, hosts: {} }]',
    'overrides: [{ files: x, name: 3 }]',
    'overrides: { files: x }',
  ];
  it('rejects the mistakes a schema can describe, as the loader does', async () => {
    for (const text of mistakes) {
      assert.equal(await loaderAccepts(`${text}\n`), false, `the loader took ${text}`);
      assert.equal(schemaAccepts(`${text}\n`), false, `the schema took ${text}`);
    }
  });

  it('accepts every document the loader accepts (random documents, good and bad)', async () => {
    // Mostly good values with a bad one now and then, so that both answers come up often.
    const mixed = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>): fc.Arbitrary<T> =>
      fc.oneof({ arbitrary: good, weight: 16 }, { arbitrary: bad, weight: 1 });
    const size = mixed<unknown>(
      fc.oneof(
        fc.constantFrom<unknown>('512M', '2G', '1.5g', '20MiB', ' 64 kb ', 2 * 1024 ** 3),
        fc.tuple(fc.integer({ min: 1, max: 4096 }), fc.constantFrom('M', 'mib', 'G')).map(([count, unit]) => `${count}${unit}`),
      ),
      fc.constantFrom<unknown>('lots', '', '10 X', '2 mbit', -1, true, null),
    );
    const severity = mixed<unknown>(
      fc.constantFrom<unknown>('off', 'info', 'warn', 'error'),
      fc.constantFrom<unknown>('loud', 'Warn', 1, true, null),
    );
    const optionValue = (spec: OptionSpec): fc.Arbitrary<unknown> => {
      switch (spec.type) {
        case 'names':
          return mixed<unknown>(fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 }), fc.constantFrom<unknown>('x', [1], null));
        case 'size':
          return size;
        case 'share':
          return fc.double({ min: -0.5, max: 1.5, noNaN: true });
        case 'integer':
        case 'seconds':
          return mixed<unknown>(fc.nat(1000), fc.constantFrom<unknown>(-1, 2.5, '300', null));
        case 'number':
          return mixed<unknown>(fc.double({ min: -1000, max: 1000, noNaN: true }), fc.constantFrom<unknown>('2', true, null));
      }
    };
    const ruleEntry = fc.constantFrom(...builtinRules).chain((rule) => {
      const specs = rule.meta.options ?? {};
      const optionNames = Object.keys(specs);
      const options = fc
        .dictionary(
          mixed(optionNames.length === 0 ? fc.constant('nope') : fc.constantFrom(...optionNames), fc.constant('nope')),
          fc.constant(undefined),
          { maxKeys: 2 },
        )
        .chain((keys) =>
          fc.record(
            Object.fromEntries(
              Object.keys(keys).map((key) => [
                key,
                mixed<unknown>(specs[key] === undefined ? fc.nat() : optionValue(specs[key]), fc.constantFrom<unknown>('300', [1], null)),
              ]),
            ),
          ),
        );
      const key = mixed(
        fc.constantFrom(rule.meta.id, rule.meta.name, rule.meta.id.toLowerCase(), rule.meta.name.toUpperCase()),
        fc.constantFrom('AP9999', 'long_timeout'),
      );
      const value = mixed<unknown>(
        fc.oneof(
          severity,
          severity.map((one) => [one]),
          fc.tuple(severity, options),
        ),
        fc.constantFrom<unknown>([], ['warn', {}, 3], null),
      );
      return fc.tuple(key, value);
    });
    const rules = fc.array(ruleEntry, { maxLength: 3 }).map((entries) => Object.fromEntries(entries));
    const perChild = mixed<unknown>(
      fc.oneof(
        size,
        fc.record(
          { median: fc.constant('40M'), max: fc.constantFrom('40M', '64M'), count: fc.nat(9), metric: fc.constantFrom('pss', 'rss') },
          { requiredKeys: ['median'] },
        ),
      ),
      fc.constantFrom<unknown>(
        { max: '40M' },
        { median: '40M', metric: 'vss' },
        { median: '40M', count: 1.5 },
        { median: '40M', max: '20M' },
      ),
    );
    const mount = mixed<unknown>(
      fc.record(
        {
          mountPoint: fc.constantFrom('/var/www', '/srv'),
          fsType: fc.constantFrom('nfs', 'ext4'),
          source: fc.constantFrom('nas:/export', ''),
        },
        { requiredKeys: ['mountPoint', 'fsType'] },
      ),
      fc.constantFrom<unknown>(
        { mountPoint: 'var/www', fsType: 'nfs' },
        { mountPoint: '/var/www' },
        { mountPoint: '/srv', fsType: '' },
        { mountPoint: '/srv', fsType: 'nfs', source: 7 },
      ),
    );
    const facts: Record<string, fc.Arbitrary<unknown>> = {
      ram: size,
      cpus: mixed<unknown>(
        fc.oneof(fc.integer({ min: 1, max: 64 }), fc.constantFrom('1.5', ' 2 ')),
        fc.constantFrom<unknown>(0, '0.5x', 'two', -1),
      ),
      swap: size,
      perChild,
      phpPerChild: perChild,
      apacheRunning: mixed<unknown>(fc.boolean(), fc.constantFrom<unknown>('yes', 1)),
      mysqlRunning: mixed<unknown>(fc.boolean(), fc.constantFrom<unknown>('no', 0)),
      mysqlRss: size,
      somaxconn: mixed<unknown>(fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.constant('4096')), fc.constantFrom<unknown>(0, 1.5, '12k')),
      httpdVersion: mixed<unknown>(fc.constantFrom<unknown>('2.4.71', '2.2', 2.4), fc.constantFrom<unknown>('2.5', 'apache', true)),
      databaseServer: mixed<unknown>(
        fc.constantFrom('mariadb=10.11.19', 'mysql=8.0.36', 'MySQL=8.4'),
        fc.constantFrom<unknown>('mariadb', 8.0),
      ),
      mounts: mixed<unknown>(fc.array(mount, { maxLength: 2 }), fc.constantFrom<unknown>('/var/www', { mountPoint: '/' })),
      mysqlLive: mixed<unknown>(
        fc.record(
          {
            server: fc.constantFrom('mariadb=10.11.19', 'mysql=8.0.36'),
            uptime: fc.nat(10_000_000),
            variables: fc.dictionary(fc.constantFrom('max_connections', 'version'), fc.oneof(fc.nat(1000), fc.constant('10.11.19'))),
            status: fc.dictionary(fc.constantFrom('uptime', 'max_used_connections'), fc.oneof(fc.nat(1000), fc.constant('27'))),
            engines: fc.array(
              fc.record({ engine: fc.constantFrom('InnoDB', 'MyISAM'), tables: fc.nat(9), dataBytes: fc.nat(), indexBytes: fc.nat() }),
              { maxLength: 2 },
            ),
          },
          { requiredKeys: ['server', 'uptime', 'variables', 'status'] },
        ),
        fc.constantFrom<unknown>(
          { server: 'postgres=16', uptime: 1, variables: {}, status: {} },
          { server: 'mariadb=10.11', uptime: -1, variables: {}, status: {} },
          { server: 'mariadb=10.11', uptime: 1, variables: { a: true }, status: {} },
          { server: 'mariadb=10.11', uptime: 1, variables: {} },
        ),
      ),
      apacheLive: mixed<unknown>(
        fc.record(
          {
            status: fc.record(
              {
                url: fc.constant('http://127.0.0.1/server-status?auto'),
                busyWorkers: fc.nat(9),
                idleWorkers: fc.nat(9),
                scoreboardSlots: fc.nat(99),
              },
              { requiredKeys: ['url', 'busyWorkers', 'idleWorkers', 'scoreboardSlots'] },
            ),
            maxWorkersReached: fc.record({
              file: fc.constant('/var/log/apache2/error.log'),
              count: fc.integer({ min: 1, max: 9 }),
              first: fc.constant('a'),
              last: fc.constant('b'),
            }),
          },
          { requiredKeys: [] },
        ),
        fc.constantFrom<unknown>({ status: { url: 'x' } }, { logs: [] }, 'busy'),
      ),
      oomKills: mixed<unknown>(
        fc.array(
          fc.record({ process: fc.constantFrom('apache2', 'mariadbd'), pid: fc.integer({ min: 1, max: 99999 }), secondsAgo: fc.nat() }),
          {
            maxLength: 2,
          },
        ),
        fc.constantFrom<unknown>([{ process: 'apache2' }], { apache2: 1 }),
      ),
    };
    assert.deepEqual(Object.keys(facts), [...HOST_FACT_NAMES]);
    const host = mixed<unknown>(
      fc
        .subarray([...HOST_FACT_NAMES], { maxLength: 3 })
        .chain((keys) => fc.record(Object.fromEntries(keys.map((key) => [key, facts[key] as fc.Arbitrary<unknown>])))),
      fc.constantFrom<unknown>({ per_child: '20M' }, { RAM: '2G' }, '2G'),
    );
    const budgetValue = (kind: string | undefined) =>
      kind === 'share'
        ? mixed<unknown>(fc.double({ min: 0.01, max: 1, noNaN: true }), fc.constantFrom<unknown>(0, 1.5, '0.5'))
        : kind === 'count'
          ? mixed<unknown>(fc.nat(50), fc.constantFrom<unknown>(2.5, -1, 'ten'))
          : size;
    const budget = mixed<unknown>(
      fc
        .subarray(Object.keys(BUDGET_KEYS), { maxLength: 2 })
        .chain((keys) => fc.record(Object.fromEntries(keys.map((key) => [key, budgetValue(BUDGET_KEYS[key])])))),
      fc.constantFrom<unknown>({ apacheshare: 0.5 }, [0.5]),
    );
    const target = mixed<unknown>(
      fc.oneof(
        fc.record(
          { httpd: fc.constantFrom<unknown>('2.4', '2.2', '2.4.62', 2.4), mariadb: fc.constantFrom<unknown>('10.11', 10.6, '11.4') },
          { requiredKeys: [] },
        ),
        fc.record({ apache: fc.constantFrom('2.4'), mysql: fc.constantFrom<unknown>('8.0', '5.7.44', 8.4) }, { requiredKeys: [] }),
        fc.constantFrom('httpd=2.4,mariadb=10.11', ' mysql = 8.0 ', 'apache=2.2,', ''),
      ),
      fc.constantFrom<unknown>({ httpd: '3.0' }, { nginx: '1.25' }, { mariadb: '9.9' }, { mysql: '10.6' }, 'httpd=2.4 mysql=8.0', 2.4, {
        httpd: null,
      }),
    );
    const files = mixed<unknown>(
      fc.oneof(fc.constant('hosts/**'), fc.array(fc.constantFrom('a/*.conf', 'hosts/db1/**'), { minLength: 1, maxLength: 2 })),
      fc.constantFrom<unknown>('', [], null, [''], 3),
    );
    const override = fc.record(
      { name: mixed<unknown>(fc.constantFrom('db1', null), fc.constant(3)), files, host, rules, target, budget },
      { requiredKeys: ['files'] },
    );
    const withUnknownKey = (record: fc.Arbitrary<Record<string, unknown>>, key: string) =>
      mixed(
        record,
        record.map((entry) => ({ ...entry, [key]: {} })),
      );
    const document = withUnknownKey(
      fc.record(
        {
          extends: mixed<unknown>(fc.constantFrom('recommended', 'strict', null), fc.constant('lax')),
          target,
          host,
          budget,
          rules,
          overrides: mixed<unknown>(
            fc.array(withUnknownKey(override, 'hosts'), { maxLength: 2 }),
            fc.constantFrom<unknown>({ files: 'x' }, 'x'),
          ),
        },
        { requiredKeys: [] },
      ),
      'extnds',
    );
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(document, async (value) => {
        const text = stringify(value);
        const [loader, schemaSays] = [await loaderAccepts(text), schemaAccepts(text)];
        const key = `loader ${loader ? 'accepts' : 'rejects'}, schema ${schemaSays ? 'accepts' : 'rejects'}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        if (loader && !schemaSays) assert.fail(`the loader accepts, the schema rejects:\n${text}\n${schemaErrors()}`);
      }),
      { numRuns: 400 },
    );
    // The documents must bring both answers, or the property would hold for a schema that takes anything.
    assert.ok((outcomes.get('loader accepts, schema accepts') ?? 0) >= 40, JSON.stringify([...outcomes]));
    assert.ok((outcomes.get('loader rejects, schema rejects') ?? 0) >= 40, JSON.stringify([...outcomes]));
  });

  it("describes sizes exactly as the loader's parser reads them", () => {
    const pattern = new RegExp(schema.definitions.size.anyOf[1].pattern, 'u');
    const text = fc
      .array(fc.constantFrom('1', '0', '5', '.', ' ', '\t', 'k', 'K', 'i', 'b', 'B', 'm', 'g', 'G', 't', 'x', 'e', '-'), { maxLength: 8 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (candidate) => {
        assert.equal(pattern.test(candidate), parseFriendlySize(candidate) !== undefined, JSON.stringify(candidate));
      }),
      { numRuns: 2000 },
    );
  });
});
