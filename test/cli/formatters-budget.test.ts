import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BAR_WIDTH, budgetLines, type BarKind, type PaintBar } from '../../src/formatters/budget.js';
import { budgetPicture } from '../../src/analysis/budget.js';
import { DEFAULT_BUDGET, type Sizing } from '../../src/analysis/sizing.js';
import type { ApacheUsage } from '../../src/languages/apache/consumption.js';
import type { HostPlan, MemoryPlan } from '../../src/analysis/plan.js';
import type { MemoryConsumer } from '../../src/core/language.js';
import type { ApacheConfig } from '../../src/languages/apache/model.js';
import type { MycnfConfig } from '../../src/languages/mycnf/model.js';
import type { MysqlUsage } from '../../src/languages/mycnf/consumption.js';
import { formatBytes } from '../../src/util/units.js';
import { removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';

const MIB = 1024 * 1024;
const plain = (_kind: BarKind, cells: string): string => cells;

function apache(workers: number, perChildMiB: number, mpm: 'prefork' | 'event' = 'prefork', threads = 1): ApacheUsage {
  const processes = Math.ceil(workers / threads);
  return {
    config: { root: { displayPath: 'etc/apache2/apache2.conf' } } as unknown as ApacheConfig,
    mpm,
    limitName: 'MaxRequestWorkers',
    maxRequestWorkers: workers,
    threadsPerChild: threads,
    processes,
    perChild: { value: { median: perChildMiB * MIB, max: perChildMiB * MIB, count: 0, metric: 'pss' }, source: 'flag --per-child' },
    peak: processes * perChildMiB * MIB,
    peakAtMax: processes * perChildMiB * MIB,
    php: false,
    fastCgi: undefined,
  };
}

function mysql(globalsMiB: number, connections: number, perConnectionMiB: number): MysqlUsage {
  return {
    globals: [],
    perConnection: [],
    maxConnections: { value: connections, from: 'set in my.cnf:3' },
    globalBytes: globalsMiB * MIB,
    perConnectionBytes: perConnectionMiB * MIB,
    peak: (globalsMiB + connections * perConnectionMiB) * MIB,
  };
}

function sizing(ramMiB: number | undefined, servers: ApacheUsage[], db?: MysqlUsage): Sizing {
  const ram = ramMiB === undefined ? undefined : ramMiB * MIB;
  const osReserve = ram === undefined ? undefined : Math.min(Math.max(ram * 0.1, 64 * MIB), 1024 * MIB);
  return {
    ram: ram === undefined ? undefined : { value: ram, source: 'flag --host-ram' },
    dbLocal:
      db === undefined
        ? { value: false, reason: 'no database config linted and none seen running' }
        : { value: true, reason: 'a MySQL/MariaDB config (my.cnf) is linted with it' },
    osReserve,
    apache: servers,
    pools: [],
    mysql: db,
    // The picture reads only the web tier's budget of the plan.
    plan: {
      notes: [],
      memory:
        ram === undefined
          ? undefined
          : ({ webBudget: { bytes: Math.floor(db === undefined ? ram - (osReserve ?? 0) : ram / 2), reason: '' } } as MemoryPlan),
    } as unknown as HostPlan,
    budget: DEFAULT_BUDGET,
    consumers: [...servers.map(webConsumer), ...(db === undefined ? [] : [databaseConsumer(db)])],
  };
}

/** What the Apache language counts for a server: its processes at the MPM's limits. */
function webConsumer(server: ApacheUsage): MemoryConsumer {
  const perChild = formatBytes(server.perChild.value.median);
  const detail =
    server.mpm === 'prefork'
      ? `${server.limitName} ${server.maxRequestWorkers} x ${perChild} per child`
      : `${server.limitName} ${server.maxRequestWorkers} / ThreadsPerChild ${server.threadsPerChild} = ${server.processes} processes x ${perChild}`;
  return { language: 'apache', config: server.config, role: 'web', label: 'Apache', bytes: server.peak, detail, limits: [] };
}

function databaseConsumer(db: MysqlUsage): MemoryConsumer {
  return {
    language: 'mycnf',
    config: {} as MycnfConfig,
    role: 'database',
    label: 'MySQL',
    bytes: db.peak,
    detail: `${formatBytes(db.globalBytes)} global buffers + max_connections ${db.maxConnections.value} x ${formatBytes(db.perConnectionBytes)}`,
    limits: [],
  };
}

/** The picture as the report draws it. */
function picture(before: Sizing, after: Sizing | undefined, paint: PaintBar): string[] {
  return budgetLines(budgetPicture(before, after), paint);
}

/** The bar of a row: the cells between the label column and the figure, RAM mark included. */
function barOf(lines: readonly string[], label: string, occurrence = 0): string {
  const rows = lines.filter((line) => line.startsWith(`    ${label} `));
  const row = rows[occurrence];
  assert.ok(row !== undefined, `no row ${label} #${occurrence} in\n${lines.join('\n')}`);
  const labelWidth = 'OS reserve'.length;
  return row.slice(4 + labelWidth + 1, 4 + labelWidth + 1 + BAR_WIDTH + 1);
}

const count = (text: string, char: string): number => text.split(char).length - 1;

describe('memory budget picture', () => {
  it('is empty without RAM, or with nothing to size', () => {
    assert.deepEqual(picture(sizing(undefined, [apache(150, 20)]), undefined, plain), []);
    assert.deepEqual(picture(sizing(1024, []), undefined, plain), []);
  });

  it('a host that fits: bars end to end within RAM, the rest free, the RAM mark at the last column', () => {
    const lines = picture(sizing(1000, [apache(20, 20)]), undefined, plain);
    assert.match(lines[0] as string, /^Memory at peak against 1000 MiB RAM \(flag --host-ram\):$/);
    assert.match(lines[1] as string, /^ {2}500 MiB at peak, 500 MiB free \(one column = 25 MiB\)$/);
    const apacheBar = barOf(lines, 'Apache    ');
    const reserveBar = barOf(lines, 'OS reserve');
    const freeBar = barOf(lines, 'free      ');
    for (const bar of [apacheBar, reserveBar, freeBar]) {
      assert.equal(bar.length, BAR_WIDTH + 1);
      assert.equal(bar.indexOf('|'), BAR_WIDTH, 'the RAM mark ends each bar');
      assert.equal(count(bar, '!'), 0);
    }
    assert.equal(count(apacheBar, '#'), 16, '400 MiB of 1000 MiB in 40 columns');
    assert.equal(apacheBar.indexOf('#'), 0);
    assert.equal(count(reserveBar, '='), 4, 'the 100 MiB reserve');
    assert.equal(reserveBar.indexOf('='), 16, 'starts where Apache ends');
    assert.equal(count(freeBar, '.'), 20);
    assert.equal(freeBar.indexOf('.'), 20);
    assert.match(
      lines.find((line) => line.startsWith('    Apache')) as string,
      /  400 MiB  MaxRequestWorkers 20 x 20 MiB per child; budget 900 MiB$/,
    );
    assert.match(lines.find((line) => line.startsWith('    free')) as string, /  500 MiB  RAM less the above$/);
  });

  it('over-commit: bars run past the RAM mark as ! and nothing is free', () => {
    const lines = picture(sizing(500, [apache(150, 20)]), undefined, plain);
    assert.match(lines[1] as string, /3 GiB at peak, 2\.5 GiB more than RAM/);
    const apacheBar = barOf(lines, 'Apache    ');
    const ramMark = apacheBar.indexOf('|');
    assert.equal(ramMark, Math.round((500 / (3000 + 64)) * BAR_WIDTH));
    assert.equal(count(apacheBar.slice(0, ramMark), '#'), ramMark, 'within RAM: #');
    assert.ok(count(apacheBar.slice(ramMark + 1), '!') >= 30, 'beyond RAM: !');
    assert.equal(count(apacheBar, '#') + count(apacheBar, '!'), BAR_WIDTH - 1, 'the reserve takes the last column');
    assert.equal(count(barOf(lines, 'OS reserve'), '!'), 1, 'the reserve, all beyond RAM, still shows');
    assert.equal(barOf(lines, 'free      ').trim(), '|');
    assert.match(lines.find((line) => line.startsWith('    free')) as string, /0 B  none: the peak is over RAM by 2\.5 GiB$/);
    assert.ok(lines.every((line) => line.length <= 160));
  });

  it('MySQL worst case and the event MPM arithmetic', () => {
    const lines = picture(sizing(4096, [apache(400, 64, 'event', 25)], mysql(512, 100, 3)), undefined, plain);
    assert.match(
      lines.find((line) => line.startsWith('    Apache')) as string,
      /1 GiB  MaxRequestWorkers 400 \/ ThreadsPerChild 25 = 16 processes x 64 MiB; budget 2 GiB$/,
    );
    assert.match(
      lines.find((line) => line.startsWith('    MySQL')) as string,
      /812 MiB  512 MiB global buffers \+ max_connections 100 x 3 MiB$/,
    );
    const mysqlBar = barOf(lines, 'MySQL     ');
    assert.equal(mysqlBar.indexOf('#'), 10, 'MySQL starts where Apache ends (1 GiB of 4 GiB)');
    assert.equal(count(mysqlBar, '#'), 8);
  });

  it('before and after the patch when the patch changes a figure, one picture when it does not', () => {
    const before = sizing(500, [apache(150, 20)]);
    const after = sizing(500, [apache(21, 20)]);
    const both = picture(before, after, plain);
    assert.ok(both.some((line) => line.startsWith('  before the patch: 3 GiB at peak')));
    assert.ok(both.some((line) => line.startsWith('  after the patch: 484 MiB at peak, 16 MiB free')));
    assert.equal(count(barOf(both, 'Apache    ', 1), '!'), 0, 'after the patch nothing is beyond RAM');
    const same = picture(before, sizing(500, [apache(150, 20)]), plain);
    assert.ok(!same.some((line) => line.includes('the patch')));
  });

  it('colour wraps runs of cells by kind and never changes the characters', () => {
    const seen: string[] = [];
    const painted = picture(sizing(500, [apache(150, 20)]), undefined, (kind, cells) => {
      seen.push(kind);
      return `<${kind}>${cells}</${kind}>`;
    });
    assert.deepEqual([...new Set(seen)].sort(), ['apache', 'over']);
    const stripped = painted.map((line) => line.replace(/<\/?[a-z]+>/g, ''));
    assert.deepEqual(stripped, picture(sizing(500, [apache(150, 20)]), undefined, plain));
  });

  it('says when the database is not counted', () => {
    const lines = picture(sizing(1000, [apache(20, 20)]), undefined, plain);
    assert.equal(lines.at(-1), '  no database counted: no database config linted and none seen running');
  });

  it('says that a FastCGI server Apache passes requests to (php-fpm) is not counted, and where the hand-off is', () => {
    const dir = scratchDir('budget-fastcgi');
    try {
      const modules = ['mpm_event', 'proxy', 'proxy_fcgi']
        .map((name) => `LoadModule ${name}_module /usr/lib/apache2/modules/mod_${name}.so\n`)
        .join('');
      writeFiles(dir, {
        'fpm.conf': `${modules}<FilesMatch ".+\\.php$">\n    SetHandler "proxy:unix:/run/php/php8.2-fpm.sock|fcgi://localhost"\n</FilesMatch>\n`,
        'pass.conf': `${modules}ProxyPassMatch "^/(.*\\.php)$" "fcgi://127.0.0.1:9000/var/www/$1"\n`,
        'no-fcgi.conf': `${modules}SetHandler "proxy:http://127.0.0.1:8080/"\n`,
      });
      const noteOf = (file: string): string[] =>
        runCli(['--no-probe', '--host-ram', '2G', file], { cwd: dir })
          .stdout.split('\n')
          .filter((line) => line.includes('FastCGI'));
      assert.deepEqual(noteOf('fpm.conf'), [
        '  FastCGI server not counted: SetHandler "proxy:unix:/run/php/php8.2-fpm.sock|fcgi://localhost" (fpm.conf:5) passes requests to it; its processes (php-fpm: pm.max_children x one worker) come on top',
      ]);
      assert.match(
        noteOf('pass.conf').join(''),
        /ProxyPassMatch "\^\/\(\.\*\\\.php\)\$" "fcgi:\/\/127\.0\.0\.1:9000\/var\/www\/\$1" \(pass\.conf:4\)/,
      );
      assert.deepEqual(noteOf('no-fcgi.conf'), []);
    } finally {
      removeScratch(dir);
    }
  });

  it("names the limit as the config or the target does: httpd 2.2's MaxClients, before and after the patch", () => {
    const run = runCli(['--no-probe', '--target', 'httpd=2.2', '--host-ram', '500M', '--per-child', '20M', 'bad-target-22-default.conf'], {
      cwd: repoPath('fixtures', 'rules', 'AP2001'),
    });
    const apacheBars = run.stdout.split('\n').filter((line) => /^ {4}Apache /.test(line));
    assert.equal(apacheBars.length, 2, run.stdout);
    assert.match(apacheBars[0] as string, /MaxClients 256 x 20 MiB per child/);
    assert.match(apacheBars[1] as string, /MaxClients 21 x 20 MiB per child/);
  });
});
