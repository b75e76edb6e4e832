import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { selectRules } from '../../src/engine/selection.js';
import { BUILD_DEPENDENT, GLOBAL_ENTRIES, POOL_ENTRIES } from '../../src/languages/phpfpm/entries.js';
import { dumpPhpFpm } from '../../src/languages/phpfpm/dump.js';
import { loadPhpFpm } from '../../src/languages/phpfpm/model.js';
import { fpmSeconds } from '../../src/languages/phpfpm/values.js';
import { lint } from '../../src/lint.js';
import { temporaryDirectory } from '../helpers/host-fixtures.js';
import { runCli } from '../helpers/cli.js';
import { childrenOf } from '../helpers/processes.js';
import { repoPath } from '../helpers/paths.js';
import { findTool, inCI } from '../helpers/tools.js';

/*
 * php-fpm is the judge of its own configuration: `php-fpm -t -y FILE` refuses
 * what it cannot start with, and `-tt` prints every pool's effective settings.
 * The reader must read the same values (sections, includes in order, `$pool`,
 * quotes, `;` comments, units) and PF1001 must refuse exactly what php-fpm
 * refuses. The binaries are Debian 12's php8.2-fpm on this machine and
 * Debian 13's php8.4-fpm in the minbase chroot .ci/run makes (8.4.x); each
 * test of the reader and the rules runs against both.
 */

const FPM = ['php-fpm8.2', 'php-fpm8.3', 'php-fpm8.4', 'php-fpm8.1', 'php-fpm'].map(findTool).find((found) => found !== undefined);
if (FPM === undefined && inCI) throw new Error('CI=true but the oracle is missing: php-fpm is not installed (.ci/run installs php8.2-fpm)');

/** Debian 13's root, with php8.4-fpm and mariadb-server-core (.ci/run makes it with mmdebstrap). */
const TRIXIE = '/var/cache/tune-lint/trixie';
const FPM_84 = '/usr/sbin/php-fpm8.4';
if (!fs.existsSync(`${TRIXIE}${FPM_84}`) && inCI)
  throw new Error(`CI=true but the oracle is missing: no ${FPM_84} in ${TRIXIE} (.ci/run makes the Debian 13 chroot)`);

/** A php-fpm.conf of our own around pool text, so `-t` needs nothing of the system's. */
function mainFile(dir: string, pools: string): string {
  const file = path.join(dir, 'php-fpm.conf');
  fs.writeFileSync(file, `[global]\npid = ${dir}/fpm.pid\nerror_log = ${dir}/fpm.log\n${pools}`);
  return file;
}

/** A php-fpm the tests ask whether it starts with a file (`-t`) and what it reads (`-tt`). */
interface FpmOracle {
  readonly label: string;
  readonly check: (file: string, flag: '-t' | '-tt') => { ok: boolean; output: string };
}

function verdictOf(argv: readonly string[]): { ok: boolean; output: string } {
  const run = spawnSync(argv[0] as string, argv.slice(1), {
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/root' },
  });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

/** This machine's php-fpm. */
const hostOracle: FpmOracle | undefined =
  FPM === undefined
    ? undefined
    : { label: `${path.basename(FPM)} on this machine`, check: (file, flag) => verdictOf([FPM, flag, '-y', file]) };

/**
 * Debian 13's php-fpm 8.4 in its chroot: the file's directory is copied to the
 * same path inside the chroot for the run (the tests' files name their own
 * paths: includes, sockets, pid files), and removed after it.
 */
const trixieOracle: FpmOracle = {
  label: 'php-fpm8.4 of Debian 13 (chroot)',
  check: (file, flag) => {
    const inside = path.join(TRIXIE, path.dirname(file));
    fs.cpSync(path.dirname(file), inside, { recursive: true });
    try {
      return verdictOf(['chroot', TRIXIE, FPM_84, flag, '-y', file]);
    } finally {
      fs.rmSync(inside, { recursive: true, force: true });
    }
  },
};

const ORACLES: readonly FpmOracle[] = [
  ...(hostOracle === undefined ? [] : [hostOracle]),
  ...(fs.existsSync(`${TRIXIE}${FPM_84}`) ? [trixieOracle] : []),
];

/** `-tt`'s `NOTICE: [www]` and `NOTICE: \tkey = value` lines, per pool. */
function effectiveSettings(output: string): Map<string, Map<string, string>> {
  const pools = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of output.split('\n')) {
    const section = /NOTICE: \[([^\]]+)\]$/.exec(line);
    if (section !== null) {
      current = new Map();
      pools.set(section[1] as string, current);
      continue;
    }
    const entry = /NOTICE: \t([^=]+?) = (.*)$/.exec(line);
    if (entry !== null) current?.set(entry[1] as string, entry[2] as string);
  }
  return pools;
}

/** Values as -tt prints them: times in seconds, flags as yes/no. */
function sameValue(key: string, ours: string, theirs: string): boolean {
  if (ours === theirs) return true;
  // Times print in seconds, most with an `s` (request_terminate_timeout = 3600s), pm.process_idle_timeout without.
  if (/timeout|interval$/.test(key)) return fpmSeconds(ours) !== undefined && theirs.replace(/s$/, '') === String(fpmSeconds(ours));
  const flag = ours.toLowerCase();
  if (['1', 'on', 'yes', 'true'].includes(flag)) return theirs === 'yes';
  if (['0', '', 'off', 'no', 'false'].includes(flag)) return theirs === 'no';
  return false;
}

for (const { label, check } of ORACLES)
  describe(`php-fpm as the oracle: ${label}`, () => {
    it('reads the effective settings of every pool as php-fpm -tt prints them: sections met twice in any case, includes, $pool, quotes, comments, units, array keys', (t) => {
      const { dir, remove } = temporaryDirectory('tune-lint-fpm-');
      t.after(remove);
      fs.mkdirSync(path.join(dir, 'pool.d'));
      fs.writeFileSync(
        path.join(dir, 'pool.d', 'b-shop.conf'),
        `[shop]\nuser = www-data\nlisten = ${dir}/$pool.sock ; one socket per pool\npm = ondemand\npm.max_children = "12"\npm.process_idle_timeout = 2m\nrequest_terminate_timeout = 1h\nphp_admin_value[memory_limit] = 96M\n`,
      );
      fs.writeFileSync(
        path.join(dir, 'pool.d', 'a-www.conf'),
        `[www]\nuser = www-data\nlisten = '${dir}/www.sock'\npm = dynamic\npm.max_children = 5\npm.start_servers = 2\npm.min_spare_servers = 1\npm.max_spare_servers = 3\n`,
      );
      // Sections and keys compare in ASCII case, blanks before an array key's [ go: [WWW] goes on with [www].
      const file = mainFile(
        dir,
        `include = ${dir}/pool.d/*.conf\n[WWW]\nPM.Max_Children = 7\npm.max_spare_servers = 4\nphp_value [memory_limit] = 64M\n[GLOBAL]\nLog_Level = notice\n`,
      );
      const oracle = check(file, '-tt');
      assert.ok(oracle.ok, oracle.output);
      const theirs = effectiveSettings(oracle.output);
      const ours = loadPhpFpm(file, new ConfigFileSystem({ cwd: dir }));
      assert.deepEqual(ours.problems, []);
      assert.deepEqual(
        ours.pools.map((pool) => pool.name),
        [...theirs.keys()].filter((name) => name !== 'global'),
      );
      for (const pool of ours.pools) {
        const printed = theirs.get(pool.name) as Map<string, string>;
        for (const use of pool.uses) {
          const key = use.key;
          const effective = pool.effective(key);
          if (effective !== use) continue;
          assert.ok(printed.has(key), `-tt prints no ${key} for [${pool.name}]`);
          assert.ok(
            sameValue(key, use.value, printed.get(key) as string),
            `[${pool.name}] ${key}: ours ${use.value}, php-fpm ${printed.get(key)}`,
          );
        }
      }
    });

    it('dump gives every value -tt prints for a pool that sets only what it must, defaults and a worked-out pm.start_servers included', (t) => {
      const { dir, remove } = temporaryDirectory('tune-lint-fpm-');
      t.after(remove);
      const file = mainFile(
        dir,
        `[www]\nuser = www-data\nlisten = ${dir}/www.sock\npm = dynamic\npm.max_children = 9\npm.min_spare_servers = 2\npm.max_spare_servers = 7\n` +
          `[api]\nuser = www-data\nlisten = ${dir}/api.sock\npm = static\npm.max_children = 3\n` +
          `[jobs]\nuser = www-data\nlisten = ${dir}/jobs.sock\npm = ondemand\npm.max_children = 4\npm.max_requests = 200\n`,
      );
      const oracle = check(file, '-tt');
      assert.ok(oracle.ok, oracle.output);
      const dumped = dumpPhpFpm(loadPhpFpm(file, new ConfigFileSystem({ cwd: dir }))) as {
        pools: Record<string, Record<string, { value: string }>>;
      };
      for (const [name, printed] of effectiveSettings(oracle.output)) {
        if (name === 'global') continue;
        const ours = Object.fromEntries(Object.entries(dumped.pools[name] ?? {}).map(([key, entry]) => [key, entry.value]));
        const theirs = Object.fromEntries([...printed].filter(([, value]) => value !== 'undefined'));
        assert.deepEqual(ours, theirs, `[${name}]: dump and php-fpm -tt`);
      }
    });

    it('PF1001 reports exactly the pools php-fpm -t refuses, in its words; a # line is refused by both', async (t) => {
      const fixtures = repoPath('fixtures', 'rules', 'PF1001');
      const rules = selectRules(
        builtinRules.filter((rule) => rule.meta.id === 'PF1001' || rule.meta.id === 'TL0001'),
        'all',
        new Map(),
      );
      const cases = fs.readdirSync(fixtures).filter((name) => name.endsWith('.conf'));
      assert.ok(cases.length >= 5);
      const extra = {
        'bad-hash-comment.conf': '[www]\nuser = www-data\nlisten = /run/php/x.sock\n# a shell comment\npm = static\npm.max_children = 2\n',
      };
      for (const name of [...cases, ...Object.keys(extra)]) {
        const { dir, remove } = temporaryDirectory('tune-lint-fpm-');
        t.after(remove);
        const pool = Object.hasOwn(extra, name) ? extra[name as keyof typeof extra] : fs.readFileSync(path.join(fixtures, name), 'utf8');
        const file = mainFile(dir, pool);
        const verdict = check(file, '-t');
        const result = await lint({ paths: [file], cwd: dir, rules, fixType: 'none', language: 'phpfpm' });
        const found = result.diagnostics.filter((entry) => entry.ruleId === 'PF1001' || entry.ruleId === 'TL0001');
        assert.equal(
          found.length > 0,
          !verdict.ok,
          `${name}: php-fpm ${verdict.ok ? 'accepts' : 'refuses'} it; tune-lint found ${found.length}\n${verdict.output}`,
        );
        const alert = /ALERT: (\[pool [^\]]+\] .*)$/m.exec(verdict.output)?.[1];
        if (alert !== undefined && found[0]?.ruleId === 'PF1001') {
          const words = alert.replace(/^\[pool [^\]]+\] /, '');
          assert.ok(
            `${found[0].message} ${found[0].detail ?? ''}`.includes(words) || found[0].detail?.includes(alert),
            `${name}: "${alert}" is not quoted in ${found[0].detail}`,
          );
        }
      }
    });

    it('PF1002: php-fpm -t refuses each reported line first, in the words quoted; with them taken out it starts', async (t) => {
      const fixtures = repoPath('fixtures', 'rules', 'PF1002');
      const rules = selectRules(
        builtinRules.filter((rule) => ['PF1001', 'PF1002', 'TL0001'].includes(rule.meta.id)),
        'all',
        new Map(),
      );
      const cases = fs.readdirSync(fixtures).filter((name) => name.endsWith('.conf'));
      assert.ok(cases.length >= 5);
      let peeled = 0;
      for (const name of cases) {
        const { dir, remove } = temporaryDirectory('tune-lint-fpm-');
        t.after(remove);
        let pools = fs.readFileSync(path.join(fixtures, name), 'utf8');
        // php-fpm stops at the first line it refuses: each finding is checked as the first, then its line is taken out.
        for (;;) {
          const file = mainFile(dir, pools);
          const verdict = check(file, '-t');
          const result = await lint({ paths: [file], cwd: dir, rules, fixType: 'none', language: 'phpfpm' });
          const first = result.diagnostics.find((entry) => entry.severity === 'error');
          if (first === undefined) {
            assert.ok(verdict.ok, `${name}: tune-lint finds nothing, php-fpm refuses:\n${verdict.output}\n${pools}`);
            break;
          }
          assert.equal(first.ruleId, 'PF1002', `${name}: ${first.ruleId} ${first.message}`);
          const refusal = /ERROR: \[[^\]]*:(\d+)\] (.*)$/m.exec(verdict.output);
          assert.ok(refusal !== null, `${name}: php-fpm accepts what PF1002 reports at line ${first.start.line}\n${verdict.output}`);
          assert.equal(Number(refusal[1]), first.start.line, `${name}: ${refusal[2]}`);
          assert.ok(first.detail?.includes(`"${refusal[2]}"`), `${name}: ${first.detail} should quote "${refusal[2]}"`);
          const lines = pools.split('\n');
          // The main file puts three lines of its own before the fixture's.
          lines.splice(first.start.line - 4, 1);
          pools = lines.join('\n');
          peeled++;
        }
      }
      assert.ok(peeled >= 10, `${peeled} refusals checked`);
    });

    it('the entries of PF1002 are what the installed php-fpm takes: all it prints, none it refuses but a build-dependent one', () => {
      const { dir, remove } = temporaryDirectory('tune-lint-fpm-');
      try {
        const printed = effectiveSettings(
          check(mainFile(dir, '[www]\nuser = www-data\nlisten = /run/x.sock\npm = static\npm.max_children = 1\n'), '-tt').output,
        );
        for (const [section, known] of [
          ['global', GLOBAL_ENTRIES],
          ['www', POOL_ENTRIES],
        ] as const) {
          const missing = [...(printed.get(section)?.keys() ?? [])].filter((key) => !known.includes(key));
          assert.deepEqual(missing, [], `[${section}]: php-fpm -tt prints entries the list lacks`);
        }
        const refused = (key: string, inGlobal: boolean): boolean => {
          const pool = '[www]\nuser = www-data\nlisten = /run/x.sock\npm = static\npm.max_children = 1\n';
          const text = inGlobal ? `${key} = 1\n${pool}` : `${pool}${key} = 1\n`;
          return check(mainFile(dir, text), '-t').output.includes(`unknown entry '${key}'`);
        };
        const unknown = [
          ...GLOBAL_ENTRIES.filter((key) => refused(key, true)),
          ...POOL_ENTRIES.filter((key) => refused(key, false)),
        ].filter((key) => !BUILD_DEPENDENT.includes(key));
        assert.deepEqual(unknown, [], 'entries the list has and the installed php-fpm refuses');
      } finally {
        remove();
      }
    });
  });

describe('php-fpm on this machine', { skip: hostOracle === undefined ? 'php-fpm is not installed' : false }, () => {
  const check = (file: string, flag: '-t' | '-tt'): { ok: boolean; output: string } => (hostOracle as FpmOracle).check(file, flag);

  it("Debian's installed php-fpm.conf and pools read as php-fpm reads them", () => {
    const installed = fs.existsSync('/etc/php') ? fs.readdirSync('/etc/php').map((version) => `/etc/php/${version}/fpm/php-fpm.conf`) : [];
    const file = installed.find((candidate) => fs.existsSync(candidate));
    assert.ok(file !== undefined || !inCI, 'CI=true: php8.2-fpm installs /etc/php/8.2/fpm/php-fpm.conf');
    if (file === undefined) return;
    const oracle = check(file, '-tt');
    const theirs = effectiveSettings(oracle.output);
    const ours = loadPhpFpm(file, new ConfigFileSystem({ cwd: '/' }));
    for (const pool of ours.pools) {
      for (const key of ['listen', 'pm', 'pm.max_children', 'pm.start_servers', 'pm.min_spare_servers', 'pm.max_spare_servers']) {
        const use = pool.effective(key);
        if (use !== undefined) assert.equal(use.value, theirs.get(pool.name)?.get(key), `[${pool.name}] ${key}`);
      }
    }
  });

  it("a running pool's children are measured by the probe and size the pool in the budget", async (t) => {
    const { dir, remove } = temporaryDirectory('tune-lint-fpm-live-');
    const file = path.join(dir, 'php-fpm.conf');
    fs.writeFileSync(
      file,
      `[global]\npid = ${dir}/fpm.pid\nerror_log = ${dir}/fpm.log\ndaemonize = no\n[www]\nuser = www-data\ngroup = www-data\nlisten = ${dir}/www.sock\npm = static\npm.max_children = 3\n`,
    );
    const master = spawn(FPM as string, ['-y', file, '-F'], { stdio: 'ignore' });
    t.after(async () => {
      if (master.exitCode === null) {
        master.kill('SIGTERM');
        await new Promise((resolve) => master.once('exit', resolve));
      }
      remove();
    });
    const deadline = Date.now() + 10_000;
    while (childrenOf(master.pid as number).length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(
      childrenOf(master.pid as number).length,
      3,
      fs.existsSync(`${dir}/fpm.log`) ? fs.readFileSync(`${dir}/fpm.log`, 'utf8') : '',
    );
    const run = runCli([file, '--host-ram', '2G', '--no-live', '--format', 'json'], { cwd: dir });
    const report = JSON.parse(run.stdout) as {
      host: { phpPerChild?: { value: { median: number; count: number; metric: string }; source: string } };
    };
    const measured = report.host.phpPerChild;
    assert.ok(measured !== undefined, run.stdout.slice(0, 1500));
    assert.match(measured.source, /^probe \(php-fpm[\d.]* children\)$/);
    assert.ok(measured.value.count >= 3 && measured.value.median > 1024 * 1024, JSON.stringify(measured));
  });
});
