/**
 * The scale-up proof: a database whose data does not fit the stock buffer
 * pool, on a host with room for it. A private MariaDB (Debian's stock server
 * settings, a private datadir and socket) gets a table of about 600 MiB; the
 * InnoDB sizes it reports become a profile, tune-lint plans the host from it
 * and patches the option file, and the same load (point reads at random ids
 * from several connections, through mysql2) runs against the stock and the
 * patched server, each freshly started and warmed alike. Run as root:
 * `npm run proof:database` (after a build, dist/bench/proof/database.js).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { databaseDir, initialiseDatabase, MARIADBD, PAGE_ACCOUNT, startDatabase, stopDatabase, writeDatabaseConfig } from './mariadb.js';
import type { DatabaseDir } from './mariadb.js';
import { runCommand } from './processes.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS = path.join(REPO_ROOT, 'bench', 'proof', 'results', 'database');
const CLIENT = '/usr/bin/mariadb';
const MIB = 1024 * 1024;

const USAGE = `Usage: node dist/bench/proof/database.js [options]   (as root; npm run proof:database builds first)

  --rows N           rows of the big table, about 240 bytes each (default 2500000: about 600 MiB)
  --ram SIZE         the host's RAM as tune-lint is told it (default 2G)
  --connections N    concurrent connections of the load (default 8)
  --seconds N        seconds of load measured, after as many of warm-up (default 30)
`;

interface LoadResult {
  readonly queries: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
}

interface Side {
  readonly name: 'stock' | 'planned';
  readonly pool: string;
  readonly flushMethod: string;
  readonly warm: LoadResult;
  readonly measured: LoadResult;
  readonly poolReadRequests: number;
  readonly poolReadsFromDisk: number;
}

async function sql(dir: DatabaseDir, statement: string, timeoutMs = 600_000): Promise<string> {
  const result = await runCommand(CLIENT, ['--no-defaults', `--socket=${dir.socket}`, '-u', 'root', '-N', '-B', '-e', statement], {
    timeoutMs,
  });
  if (result.code !== 0) throw new Error(`mariadb client failed: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** The big table, filled with MariaDB's Sequence engine, outside any measurement. */
async function loadData(configFile: string, dir: DatabaseDir, rows: number): Promise<{ dataBytes: number; indexBytes: number }> {
  const server = await startDatabase(configFile, dir, undefined);
  try {
    await sql(
      dir,
      [
        'USE proof',
        'CREATE TABLE big (id INT PRIMARY KEY, pad CHAR(200) NOT NULL, v INT NOT NULL) ENGINE=InnoDB',
        `INSERT INTO big SELECT seq, REPEAT(CHAR(65 + seq % 26), 200), seq % 1000 FROM seq_1_to_${rows}`,
        'ANALYZE TABLE big',
      ].join('; '),
    );
    const sizes = await sql(
      dir,
      "SELECT SUM(data_length), SUM(index_length) FROM information_schema.TABLES WHERE engine = 'InnoDB' AND table_schema = 'proof'",
    );
    const [data, index] = sizes.split('\t').map(Number);
    return { dataBytes: data ?? 0, indexBytes: index ?? 0 };
  } finally {
    await stopDatabase(server);
  }
}

/** The profile tune-lint plans from: the RAM, and what the running server said of its InnoDB data. */
function writeProfile(file: string, ram: string, sizes: { dataBytes: number; indexBytes: number }): void {
  fs.writeFileSync(
    file,
    [
      `ram: ${ram}`,
      'mysqlLive:',
      '  server: mariadb=10.11',
      '  uptime: 86400',
      '  variables: {}',
      '  status: {}',
      `  engines: [{ engine: InnoDB, tables: 2, dataBytes: ${sizes.dataBytes}, indexBytes: ${sizes.indexBytes} }]`,
      '',
    ].join('\n'),
  );
}

async function tune(configFile: string, profile: string): Promise<{ report: string; patch: string }> {
  const cli = path.join(REPO_ROOT, 'bin', 'tune-lint.cjs');
  const before = fs.readFileSync(configFile, 'utf8');
  const args = ['--fix', '--fix-type', 'all', '--no-probe', '--profile', profile, '--target', 'mariadb=10.11', configFile];
  const run = await runCommand(process.execPath, [cli, ...args], { cwd: path.dirname(configFile), timeoutMs: 60_000 });
  if (run.code !== 0 && run.code !== 1) throw new Error(`tune-lint failed (exit ${run.code ?? run.signal}): ${run.stderr.trim()}`);
  const { createTwoFilesPatch } = await import('diff');
  const after = fs.readFileSync(configFile, 'utf8');
  const patch = createTwoFilesPatch('a/my.cnf', 'b/my.cnf', before, after, undefined, undefined, { context: 2 })
    .split('\n')
    .filter((line) => !line.startsWith('====='))
    .join('\n');
  return { report: run.stdout, patch };
}

/** Point reads at random ids from `connections` connections for `seconds`, with each query's latency. */
async function runLoad(dir: DatabaseDir, rows: number, connections: number, seconds: number): Promise<LoadResult> {
  const mysql = await import('mysql2/promise');
  const { user, password, database } = PAGE_ACCOUNT;
  const pool = await Promise.all(
    Array.from({ length: connections }, () => mysql.createConnection({ socketPath: dir.socket, user, password, database })),
  );
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    pool.map(async (connection) => {
      while (Date.now() < end) {
        const id = 1 + Math.floor(Math.random() * rows);
        const begin = process.hrtime.bigint();
        try {
          await connection.query('SELECT v FROM big WHERE id = ?', [id]);
          latencies.push(Number(process.hrtime.bigint() - begin) / 1e6);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(pool.map((connection) => connection.end()));
  latencies.sort((a, b) => a - b);
  const at = (share: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0;
  return {
    queries: latencies.length,
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
  };
}

async function measure(
  name: Side['name'],
  configFile: string,
  dir: DatabaseDir,
  rows: number,
  connections: number,
  seconds: number,
): Promise<Side> {
  const server = await startDatabase(configFile, dir, undefined);
  try {
    const pool = await sql(dir, 'SELECT @@innodb_buffer_pool_size');
    const flushMethod = await sql(dir, 'SELECT @@innodb_flush_method');
    const warm = await runLoad(dir, rows, connections, seconds);
    const status = async (): Promise<Record<string, number>> => {
      const text = await sql(
        dir,
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_read_requests', 'Innodb_buffer_pool_reads')",
      );
      return Object.fromEntries(text.split('\n').map((line) => [line.split('\t')[0] ?? '', Number(line.split('\t')[1])]));
    };
    const before = await status();
    const measured = await runLoad(dir, rows, connections, seconds);
    const after = await status();
    const delta = (key: string): number => (after[key] ?? 0) - (before[key] ?? 0);
    return {
      name,
      pool: `${Math.round(Number(pool) / MIB)} MiB`,
      flushMethod,
      warm,
      measured,
      poolReadRequests: delta('Innodb_buffer_pool_read_requests'),
      poolReadsFromDisk: delta('Innodb_buffer_pool_reads'),
    };
  } finally {
    await stopDatabase(server);
  }
}

function table(sides: readonly Side[]): string {
  const rows = sides.map((side) => {
    const m = side.measured;
    const missShare = side.poolReadRequests === 0 ? 0 : (side.poolReadsFromDisk / side.poolReadRequests) * 100;
    return `| ${side.name} | ${side.pool} | ${Math.round(m.perSecond)} | ${m.p50Ms.toFixed(2)} | ${m.p99Ms.toFixed(2)} | ${m.errors} | ${side.poolReadsFromDisk} (${missShare.toFixed(1)} %) |`;
  });
  return [
    '| config | buffer pool | queries/s | p50 ms | p99 ms | errors | pool reads from disk |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '2500000' },
      ram: { type: 'string', default: '2G' },
      connections: { type: 'string', default: '8' },
      seconds: { type: 'string', default: '30' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (process.getuid?.() !== 0 || !fs.existsSync(MARIADBD)) {
    process.stderr.write(`proof:database needs root and ${MARIADBD} (Debian's mariadb-server)\n`);
    process.exitCode = 3;
    return;
  }
  const rows = Number(values.rows);
  const connections = Number(values.connections);
  const seconds = Number(values.seconds);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-proof-db-'));
  try {
    const dir = databaseDir(root);
    const stock = path.join(root, 'stock', 'my.cnf');
    const planned = path.join(root, 'planned', 'my.cnf');
    writeDatabaseConfig(stock, dir);
    writeDatabaseConfig(planned, dir);
    await initialiseDatabase(stock, dir);
    process.stderr.write(`loading ${rows} rows...\n`);
    const sizes = await loadData(stock, dir, rows);
    const profile = path.join(root, 'host.yaml');
    writeProfile(profile, values.ram, sizes);
    const tuned = await tune(planned, profile);
    const sides: Side[] = [];
    for (const [name, file] of [
      ['stock', stock],
      ['planned', planned],
    ] as const) {
      process.stderr.write(`${name}: ${seconds} s warm-up, ${seconds} s measured...\n`);
      sides.push(await measure(name, file, dir, rows, connections, seconds));
    }
    const data = `${Math.round((sizes.dataBytes + sizes.indexBytes) / MIB)} MiB`;
    const markdown = [
      `# Scale-up proof: InnoDB data of ${data} on a ${values.ram} host`,
      '',
      `Run ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${connections} connections,`,
      `${seconds} s measured after ${seconds} s of warm-up, point reads at random ids of ${rows} rows; innodb_flush_method ${sides[0]?.flushMethod ?? ''}.`,
      '',
      table(sides),
      '',
      '## The patch tune-lint wrote',
      '',
      '```diff',
      tuned.patch.trim(),
      '```',
      '',
      '## Its report',
      '',
      '```',
      tuned.report.split(root).join('$ROOT').trim(),
      '```',
      '',
    ].join('\n');
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.writeFileSync(path.join(RESULTS, 'results.md'), markdown);
    fs.writeFileSync(path.join(RESULTS, 'results.json'), `${JSON.stringify({ rows, data, ram: values.ram, sides }, null, 2)}\n`);
    process.stdout.write(`${table(sides)}\n`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
