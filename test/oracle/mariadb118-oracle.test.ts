import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import { selectRules } from '../../src/engine/selection.js';
import { lint } from '../../src/lint.js';
import { MARIADB_BINARY_OPTION_LISTS } from '../../src/languages/mycnf/mariadb-binary-options.js';
import { REMOVED_OPTIONS } from '../../src/languages/mycnf/removed-options.js';
import { VARIABLE_DEFAULTS, variableDefault } from '../../src/languages/mycnf/defaults.js';
import { serverVariables } from '../helpers/mycnf-oracle.js';
import { repoPath } from '../helpers/paths.js';
import { realWorldServerOptions } from '../helpers/real-world-options.js';
import { inCI } from '../helpers/tools.js';

/*
 * MariaDB 11.8, the series after Debian 12's 10.11, as the oracle: Debian 13
 * ships it, and .ci/run puts its mariadb-server-core in a chroot made with
 * mmdebstrap (/var/cache/tune-lint/trixie, with php8.4-fpm).
 * - The 11.8 option table is what that mariadbd says now (the generator's --check),
 *   and the defaults of the memory and connection variables are the ones it prints.
 * - MariaDB's removals after 10.11, written down from its upgrade notes
 *   (removed-options.ts), are what 11.8 does: refused, or taken to do nothing.
 * - Every server option of the real-world trees' option files, MySQL's and
 *   MariaDB's: tune-lint says MariaDB 11.8 refuses it exactly when mariadbd
 *   11.8 calls it an unknown variable.
 */
const CHROOT = '/var/cache/tune-lint/trixie';
const present = fs.existsSync(path.join(CHROOT, 'usr', 'sbin', 'mariadbd'));
const reason = `no Debian 13 chroot with mariadbd at ${CHROOT} (.ci/run makes it with mmdebstrap)`;
if (!present && inCI) throw new Error(`CI=true but the oracle is missing: ${reason}`);

const SERVER_GROUPS = new Set(['mysqld', 'server', 'mariadb', 'mariadbd']);

/**
 * What mariadbd 11.8 makes of option lines: each offered as `loose-` (so an
 * unknown one is a warning naming it, not the end of the run), with
 * `--help --verbose`, which reads every line and starts nothing. A value it
 * cannot take (a template's `<%= ... %>`, a directory the chroot has not) stops it: that line leaves the
 * comparison (`otherwise`) and the rest is offered again.
 */
function askMariadb118(work: string, lines: readonly string[]): { readonly unknown: Set<string>; readonly otherwise: Set<string> } {
  const otherwise = new Set<string>();
  const keyOf = (line: string): string => (line.split(/\s*=\s*/)[0] ?? '').replaceAll('-', '_');
  for (;;) {
    const offered = lines.filter((line) => !otherwise.has(keyOf(line)));
    fs.writeFileSync(path.join(work, 'offered.cnf'), `[mysqld]\n${offered.map((line) => `loose-${line}`).join('\n')}\n`);
    const run = spawnSync(
      'chroot',
      [CHROOT, '/usr/sbin/mariadbd', `--defaults-file=/tmp/${path.basename(work)}/offered.cnf`, '--help', '--verbose'],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    if (run.stdout.includes('Variables (--variable-name=value)')) {
      const unknown = [...run.stderr.matchAll(/unknown (?:variable|option) '(?:--)?loose-([^=']+)/g)].map((match) =>
        (match[1] as string).replaceAll('-', '_'),
      );
      return { unknown: new Set(unknown), otherwise };
    }
    // A value it cannot parse, or a path of the tree's host that the chroot has not.
    const said = /Error while setting value '[^']*' to '([^']+)'|Failed to normalize the argument for --([a-z_-]+)/.exec(run.stderr);
    const refused = (said?.[1] ?? said?.[2])?.replaceAll('-', '_');
    assert.ok(
      refused !== undefined && !otherwise.has(refused),
      `mariadbd stopped for a reason the test cannot place: ${run.stderr.slice(-600)}`,
    );
    otherwise.add(refused);
  }
}

describe('MariaDB 11.8 (Debian 13) as the oracle', { skip: present ? false : reason }, () => {
  const work = fs.mkdtempSync(path.join(CHROOT, 'tmp', 'tune-lint-'));
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it("the 11.8 option table is what the chroot's mariadbd says now", (t) => {
    const version = spawnSync('chroot', [CHROOT, '/usr/sbin/mariadbd', '--version'], { encoding: 'utf8' }).stdout;
    const release = MARIADB_BINARY_OPTION_LISTS['11.8']?.release ?? 'none';
    // Debian's point release moves: the table is checked against the release it was made from, the rest against any.
    if (!version.includes(`Ver ${release}-`)) {
      t.skip(
        `the table is of mariadbd ${release}, the chroot has ${version.trim()}: node scripts/gen-mariadb-binary-options.mjs ${CHROOT}`,
      );
      return;
    }
    const check = spawnSync(process.execPath, [repoPath('scripts', 'gen-mariadb-binary-options.mjs'), CHROOT, '--check'], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    assert.equal(check.status, 0, check.stderr);
  });

  it('has the defaults mariadbd 11.8 prints with --no-defaults', () => {
    const server = serverVariables(['chroot', CHROOT, '/usr/sbin/mariadbd'], undefined, '/');
    assert.equal(server.status, 0, server.stderr);
    const target = { product: 'mariadb', version: '11.8' } as const;
    let compared = 0;
    for (const key of Object.keys(VARIABLE_DEFAULTS)) {
      const ours = variableDefault(key, target);
      const theirs = server.values.get(key);
      if (ours === undefined) {
        assert.equal(theirs, undefined, `${key}: mariadbd 11.8 has it (${theirs}), we say it does not exist`);
        continue;
      }
      assert.equal(typeof ours === 'boolean' ? (ours ? 'TRUE' : 'FALSE') : String(ours), theirs, key);
      compared++;
    }
    assert.ok(compared >= 30, `compared ${compared} defaults`);
  });

  it("MariaDB's removals after 10.11, as its upgrade notes give them, are what 11.8 does", () => {
    const removals = REMOVED_OPTIONS.filter((entry) => entry.mariadb !== undefined);
    const names = removals.flatMap((entry) => entry.names);
    const { unknown } = askMariadb118(
      work,
      names.map((name) => `${name}=1`),
    );
    for (const entry of removals) {
      const history = entry.mariadb as { removed: string; noop: boolean };
      const refusedBy118 = history.removed <= '11.8' && !history.noop;
      for (const name of entry.names) {
        assert.equal(unknown.has(name), refusedBy118, `${name}: removed in ${history.removed}${history.noop ? ' (does nothing)' : ''}`);
      }
    }
  });

  it('refuses exactly the real-world server options mariadbd 11.8 does not know', async () => {
    const options = realWorldServerOptions(SERVER_GROUPS);
    assert.ok(options.size > 80, `${options.size} options`);
    const lines = [...options].map(([name, value]) => (value === '' ? name : `${name} = ${value}`));
    const file = path.join(work, 'my.cnf');
    fs.writeFileSync(file, `[mysqld]\n${lines.join('\n')}\n`);
    const result = await lint({
      paths: [file],
      targets: parseTargetSpec('mariadb=11.8.5'),
      rules: selectRules(builtinRules, 'recommended', new Map()),
      fixType: 'none',
    });
    const refusedByLint = new Set(
      result.diagnostics
        .filter((diagnostic) => diagnostic.severity === 'error' && diagnostic.message.includes('refuse'))
        .map((diagnostic) => (lines[diagnostic.start.line - 2]?.split(/\s*=\s*/)[0] ?? '').replaceAll('-', '_')),
    );
    const { unknown, otherwise } = askMariadb118(work, lines);
    assert.ok(
      unknown.has('gtid_mode') && unknown.size >= 5,
      'the trees set options MariaDB 11.8 does not have (MySQL-only ones, removed ones)',
    );
    // Percona XtraDB Cluster's and NDB's options: MariaDB refuses them, the builds those files are for take them; warnings.
    const compared = (names: Iterable<string>) => [...names].filter((name) => !otherwise.has(name) && !/^(pxc|ndb)/.test(name)).sort();
    assert.deepEqual(compared(refusedByLint), compared(unknown));
  });
});
