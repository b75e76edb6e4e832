/**
 * The tuning story reproduced with real parts: Debian's Apache
 * prefork with mod_php, a heavy PHP page, a memory cgroup capped at a small
 * host's RAM, and ab at several concurrency levels, before and after
 * `tune-lint --fix`. Run as root: `npm run proof` (after a build, this file is
 * dist/bench/proof/run.js). `--help` lists the options.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseFriendlySize } from '../../src/util/units.js';
import { AB, runAb } from './ab.js';
import type { AbLoad } from './ab.js';
import { APACHE, checkConfig, startApache, stopApache, workerPids } from './apache.js';
import { CgroupUnavailableError, MemoryCgroup } from './cgroup.js';
import {
  databaseDir,
  initialiseDatabase,
  MARIADBD,
  PAGE_ACCOUNT,
  readMysqldOptions,
  startDatabase,
  stopDatabase,
  writeDatabaseConfig,
} from './mariadb.js';
import type { DatabaseDir } from './mariadb.js';
import { readChildMemory, summarise } from './child-memory.js';
import type { ChildMemory } from './child-memory.js';
import { plotSvg } from './plot.js';
import { killRunningChildren, processExists, runCommand, sleep } from './processes.js';
import type { BackgroundProcess } from './processes.js';
import { mib, resultsMarkdown, resultsTable, withLatestResults } from './results.js';
import type { ConfigDescription, ConfigName, ProofResults, RunRecord, Scenario } from './results.js';
import { DEBIAN_PREFORK, readPrefork, readScalar, rewritePrefork, writeServerTree } from './server-root.js';
import type { ServerTree } from './server-root.js';
import { applyTuneLint } from './tune.js';
import type { TuneOutcome } from './tune.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGE_SOURCE = path.join(REPO_ROOT, 'bench', 'proof', 'page.php');
const DEFAULT_RESULTS_DIR: Record<Scenario, string> = {
  web: path.join(REPO_ROOT, 'bench', 'proof', 'results'),
  lamp: path.join(REPO_ROOT, 'bench', 'proof', 'results', 'lamp'),
};
const README = path.join(REPO_ROOT, 'bench', 'proof', 'README.md');
const PHP_MODULE = '/usr/lib/apache2/modules/libphp8.2.so';
const PHP_APACHE_CONF_D = '/etc/php/8.2/apache2/conf.d';
const MARIADB_TARGET = 'mariadb=10.11';
const MIB = 1024 * 1024;
const WARMUP: AbLoad = { concurrency: 8, requests: 600, timeLimitSeconds: 60 };
const CGROUP_PREFIX = `tune-lint-proof-${process.pid}`;

const USAGE = `Usage: node dist/bench/proof/run.js [options]   (as root; npm run proof builds first)

  --cap SIZE             memory cap of the Apache cgroup, the small host's RAM (default 512M)
  --concurrency LIST     ab -c levels, comma-separated (default 10,25,50)
  --requests N           ab -n per run (default 1000)
  --time-limit SECONDS   ab -t per run, an upper bound on each run (default 60)
  --results DIR          where results.md, results.json and plot.svg go (default bench/proof/results,
                         which also updates the table in bench/proof/README.md)
  --with-mariadb         the LAMP scenario: a private MariaDB (socket only) in the same cgroup, a page
                         that queries it, and tune-lint given my.cnf too (results in results/lamp)
  --keep-tree            keep the temporary ServerRoots (and their error logs) for inspection
  --dev-hand-sized N     DEV ONLY: compare against a hand-written MaxRequestWorkers N instead of
                         tune-lint's patch, to test this pipeline; results go to a temp directory
  --help                 this text`;

/** One side of the comparison: an Apache tree and, in the LAMP scenario, its my.cnf. */
interface Side {
  config: ConfigName;
  tree: ServerTree;
  databaseConfig: string | undefined;
}

/** What is running right now and must be stopped on any exit. */
let active: { tree: ServerTree; cgroup: MemoryCgroup; database?: BackgroundProcess } | undefined;
let database: DatabaseDir | undefined;
let tempDir: string | undefined;
let keepTree = false;

async function cleanUp(): Promise<void> {
  killRunningChildren();
  const current = active;
  active = undefined;
  if (current) {
    try {
      if (current.database) await stopDatabase(current.database);
      await stopApache(current.tree, current.cgroup);
      await current.cgroup.destroy();
    } catch (error) {
      console.error(`cleanup: ${(error as Error).message}`);
    }
  }
  if (tempDir && !keepTree) fs.rmSync(tempDir, { recursive: true, force: true });
  else if (tempDir) console.error(`kept the server trees in ${tempDir}`);
  tempDir = undefined;
}

let interrupted = false;

/** After Ctrl-C the main flow may still be unwinding: it must not start anything new. */
function refuseIfInterrupted(): void {
  if (interrupted) throw new Error('interrupted');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping everything this proof started`);
    void cleanUp().finally(() => process.exit(130));
  });
}

const started = Date.now();
const elapsed = (): string => `[${String(Math.round((Date.now() - started) / 1000)).padStart(3)} s]`;
const log = (message: string): void => console.error(`${elapsed()} ${message}`);

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free loopback port'))));
    });
  });
}

/**
 * Starts a side in a fresh capped cgroup (the database first, so the page can
 * reach it), runs `body`, and always stops both and removes the group.
 */
async function withServer<T>(
  side: Side,
  capBytes: number,
  name: string,
  body: (workers: () => number[], cgroup: MemoryCgroup, db: BackgroundProcess | undefined) => Promise<T>,
): Promise<T> {
  refuseIfInterrupted();
  const cgroup = MemoryCgroup.create(`${CGROUP_PREFIX}-${name}`, capBytes);
  const current: NonNullable<typeof active> = { tree: side.tree, cgroup };
  active = current;
  try {
    if (side.databaseConfig !== undefined && database !== undefined) {
      current.database = await startDatabase(side.databaseConfig, database, cgroup);
    }
    refuseIfInterrupted();
    const server = await startApache(side.tree, cgroup);
    const dbPid = current.database?.pid;
    return await body(() => workerPids(server).filter((pid) => pid !== dbPid), cgroup, current.database);
  } finally {
    // `active` stays set until the group is gone, so an interrupt meanwhile still cleans it up.
    if (current.database) await stopDatabase(current.database);
    await stopApache(side.tree, cgroup);
    await cgroup.destroy();
    if (active === current) active = undefined;
  }
}

/** Peak RSS of the database so far (VmHWM), or how it ended when the kernel killed it. */
async function databaseOutcome(db: BackgroundProcess): Promise<NonNullable<RunRecord['database']>> {
  if (processExists(db.pid)) {
    const status = fs.readFileSync(`/proc/${db.pid}/status`, 'utf8');
    const peakKib = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
    return { survived: true, peakRssBytes: peakKib * 1024 };
  }
  const ended = await Promise.race([db.exited, sleep(1000).then(() => undefined)]);
  return { survived: false, endedBy: ended?.signal ?? (ended ? `exit ${ended.code}` : 'unknown') };
}

async function measurePerChild(
  side: Side,
  capBytes: number,
): Promise<{ children: ChildMemory[]; warmup: string; database: ChildMemory | undefined }> {
  return withServer(side, capBytes, 'measure', async (workers, _cgroup, db) => {
    const warm = await runAb(side.tree.port, WARMUP);
    if (typeof warm.result === 'string') throw new Error(`warm-up failed: ${warm.result}`);
    if (warm.result.failed > 0)
      throw new Error(`warm-up under the cap already failed ${warm.result.failed} requests: no clean measurement`);
    await sleep(500);
    const children = workers().flatMap((pid) => readChildMemory(pid) ?? []);
    if (children.length < 3) throw new Error(`only ${children.length} Apache children could be read after the warm-up`);
    return {
      children,
      database: db === undefined ? undefined : readChildMemory(db.pid),
      warmup: `Warmed on the stock config under the cap with \`ab -n ${WARMUP.requests} -c ${WARMUP.concurrency}\` (${warm.result.failed} failed), PSS/RSS read from /proc/PID/smaps_rollup of every child`,
    };
  });
}

/** Start-up (AH00163, AH00094), shutdown (AH00169) and reached-MaxRequestWorkers (AH00161) notices. */
const START_STOP_AND_LIMIT = /\b(AH00163|AH00094|AH00169|AH00161):/;

function errorLogSince(tree: ServerTree, offset: number): RunRecord['errorLog'] {
  let text = '';
  try {
    const fd = fs.openSync(tree.errorLog, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buffer = Buffer.alloc(Math.max(0, size - offset));
      fs.readSync(fd, buffer, 0, buffer.length, offset);
      text = buffer.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return { lines: 0, maxRequestWorkersReached: 0, other: 0, otherSample: [] };
  }
  const lines = text.split('\n').filter((line) => line !== '');
  const stripTimestamp = (line: string): string => line.replace(/^\[[^\]]*\]\s*/, '').replace(/\[pid \d+\]\s*/, '');
  return {
    lines: lines.length,
    maxRequestWorkersReached: lines.filter((line) => line.includes('AH00161')).length,
    other: lines.filter((line) => !START_STOP_AND_LIMIT.test(line)).length,
    otherSample: [
      ...new Set(
        lines
          .filter((line) => !START_STOP_AND_LIMIT.test(line))
          .map((line) =>
            stripTimestamp(line)
              .replace(/\[pid \d+:tid \d+\]\s*/, '')
              .replace(/\bpid \d+/g, 'pid N')
              .split(tree.root)
              .join('$ROOT'),
          ),
      ),
    ].slice(0, 5),
  };
}

function logSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

async function measureRun(side: Side, capBytes: number, load: AbLoad): Promise<RunRecord> {
  const { config, tree } = side;
  const runStarted = Date.now();
  const logOffset = logSize(tree.errorLog);
  let peakChildren = 0;
  let counters: RunRecord['cgroup'] | undefined;
  let databaseState: RunRecord['database'];
  const cgroupName = `${config}-c${load.concurrency}`;
  const ab = await withServer(side, capBytes, cgroupName, async (workers, cgroup, db) => {
    const sampler = setInterval(() => {
      peakChildren = Math.max(peakChildren, workers().length);
    }, 200);
    try {
      return await runAb(tree.port, load);
    } finally {
      clearInterval(sampler);
      counters = cgroup.counters();
      if (db) databaseState = await databaseOutcome(db);
    }
  });
  if (counters === undefined) throw new Error('the cgroup counters could not be read');
  return {
    config,
    concurrency: load.concurrency,
    ab: typeof ab.result === 'string' ? { error: ab.result } : ab.result,
    cgroup: counters,
    peakChildren,
    errorLog: errorLogSince(tree, logOffset),
    ...(databaseState ? { database: databaseState } : {}),
    wallSeconds: (Date.now() - runStarted) / 1000,
  };
}

function describe(side: Side, label: string): ConfigDescription {
  return {
    name: side.config,
    label,
    prefork: readPrefork(side.tree),
    timeout: readScalar(side.tree, 'Timeout'),
    keepAlive: readScalar(side.tree, 'KeepAlive'),
    keepAliveTimeout: readScalar(side.tree, 'KeepAliveTimeout'),
    ...(side.databaseConfig === undefined ? {} : { database: readMysqldOptions(side.databaseConfig) }),
  };
}

async function firstLine(command: string, args: string[]): Promise<string> {
  try {
    const result = await runCommand(command, args, { timeoutMs: 10_000 });
    return (result.stdout.split('\n')[0] ?? '').trim();
  } catch {
    return 'unknown';
  }
}

async function machineFacts(): Promise<ProofResults['machine']> {
  const swapKib = Number(/^SwapTotal:\s+(\d+)/m.exec(fs.readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);
  return {
    cpus: os.availableParallelism(),
    ramBytes: os.totalmem(),
    swapBytes: swapKib * 1024,
    kernel: os.release(),
    apache: (await firstLine(APACHE, ['-v'])).replace(/^Server version:\s*/, ''),
    php: await firstLine('php', ['-r', 'echo PHP_VERSION;']),
    ab: `ApacheBench ${/Version (\S+)/.exec(await firstLine(AB, ['-V']))?.[1] ?? 'unknown'}`,
  };
}

function preflight(withDatabase: boolean): void {
  if (process.getuid?.() !== 0) throw new Error('run as root: the proof creates a memory cgroup and starts Apache as User www-data');
  for (const file of [APACHE, AB, PHP_MODULE, PAGE_SOURCE]) {
    if (!fs.existsSync(file)) {
      throw new Error(`${file} is missing (apt-get install apache2 apache2-utils libapache2-mod-php8.2)`);
    }
  }
  if (withDatabase) {
    if (!fs.existsSync(MARIADBD)) throw new Error(`${MARIADBD} is missing (apt-get install mariadb-server)`);
    if (!fs.readdirSync(PHP_APACHE_CONF_D).some((name) => name.endsWith('mysqli.ini'))) {
      throw new Error(
        `PHP's mysqli extension is not enabled for Apache (no ${PHP_APACHE_CONF_D}/*mysqli.ini): apt-get install php8.2-mysql`,
      );
    }
  }
}

/** The command line, checked: what to run and how hard. */
interface ProofOptions {
  readonly cap: string;
  readonly capBytes: number;
  readonly levels: readonly number[];
  readonly requests: number;
  readonly timeLimitSeconds: number;
  readonly handSized: number | undefined;
  readonly keepTree: boolean;
  readonly withMariadb: boolean;
  readonly results: string | undefined;
}

function proofOptions(): ProofOptions | undefined {
  const { values } = parseArgs({
    options: {
      cap: { type: 'string', default: '512M' },
      concurrency: { type: 'string', default: '10,25,50' },
      requests: { type: 'string', default: '1000' },
      'time-limit': { type: 'string', default: '60' },
      results: { type: 'string' },
      'keep-tree': { type: 'boolean', default: false },
      'with-mariadb': { type: 'boolean', default: false },
      'dev-hand-sized': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const capBytes = parseFriendlySize(values.cap);
  const levels = values.concurrency.split(',').map(Number);
  const requests = Number(values.requests);
  const timeLimitSeconds = Number(values['time-limit']);
  const handSized = values['dev-hand-sized'] === undefined ? undefined : Number(values['dev-hand-sized']);
  if (capBytes === undefined || capBytes < 64 * MIB) throw new Error(`--cap ${values.cap}: give a size of at least 64M`);
  if (levels.length === 0 || levels.length > 10 || !levels.every((level) => Number.isInteger(level) && level >= 1 && level <= 1000)) {
    throw new Error(`--concurrency ${values.concurrency}: give 1 to 10 levels between 1 and 1000`);
  }
  if (!Number.isInteger(requests) || requests < 10 || requests > 100_000) throw new Error('--requests: give 10 to 100000');
  if (!Number.isInteger(timeLimitSeconds) || timeLimitSeconds < 5 || timeLimitSeconds > 600)
    throw new Error('--time-limit: give 5 to 600 seconds');
  if (handSized !== undefined && (!Number.isInteger(handSized) || handSized < 1))
    throw new Error('--dev-hand-sized: give a whole number of workers');
  return {
    cap: values.cap,
    capBytes,
    levels,
    requests,
    timeLimitSeconds,
    handSized,
    keepTree: values['keep-tree'],
    withMariadb: values['with-mariadb'],
    results: values.results,
  };
}

async function main(): Promise<number> {
  const options = proofOptions();
  if (options === undefined) {
    console.log(USAGE);
    return 0;
  }
  const { capBytes, levels, requests, timeLimitSeconds, handSized } = options;
  const values = { cap: options.cap, results: options.results };
  keepTree = options.keepTree;
  const scenario: Scenario = options.withMariadb ? 'lamp' : 'web';
  preflight(scenario === 'lamp');

  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-proof-'));
  tempDir = workDir;
  fs.chmodSync(workDir, 0o755);
  const port = await freeLoopbackPort();
  const page = fs.readFileSync(PAGE_SOURCE, 'utf8');
  if (scenario === 'lamp') database = databaseDir(path.join(workDir, 'db'));
  const pageDatabase = database && {
    socket: database.socket,
    user: PAGE_ACCOUNT.user,
    password: PAGE_ACCOUNT.password,
    name: PAGE_ACCOUNT.database,
  };
  const makeSide = (config: ConfigName): Side => {
    const tree = writeServerTree(path.join(workDir, config), port, DEBIAN_PREFORK, page, pageDatabase);
    if (database === undefined) return { config, tree, databaseConfig: undefined };
    const databaseConfig = path.join(tree.root, 'mysql', 'my.cnf');
    writeDatabaseConfig(databaseConfig, database);
    return { config, tree, databaseConfig };
  };
  const stockSide = makeSide('stock');
  const tunedSide = makeSide('tuned');
  await checkConfig(stockSide.tree);
  log(`server trees in ${workDir}, Apache on 127.0.0.1:${port}, memory cap ${mib(capBytes)}`);
  if (database !== undefined && stockSide.databaseConfig !== undefined) {
    await initialiseDatabase(stockSide.databaseConfig, database);
    log(`MariaDB data directory ready in ${database.datadir} (socket only, no TCP)`);
  }

  const measured = await measurePerChild(stockSide, capBytes);
  const summary = summarise(measured.children);
  const perChild = `${Math.ceil(summary.medianPssBytes / MIB)}M`;
  log(
    `per child after warm-up: median PSS ${mib(summary.medianPssBytes)} over ${summary.children} children (RSS ${mib(summary.medianRssBytes)})`,
  );

  let tuneLint: TuneOutcome | undefined;
  if (handSized === undefined) {
    tuneLint = await applyTuneLint(
      REPO_ROOT,
      tunedSide.tree,
      { hostRam: values.cap, perChild },
      database && tunedSide.databaseConfig !== undefined
        ? { configFile: tunedSide.databaseConfig, target: MARIADB_TARGET, dir: database.root }
        : undefined,
    );
    if (tuneLint.changedFiles.length === 0) {
      throw new Error(`${tuneLint.command} changed nothing: there is no tuned config to compare. Its report:\n${tuneLint.report}`);
    }
    log(`${tuneLint.command} changed ${tuneLint.changedFiles.join(', ')}`);
  } else {
    rewritePrefork(tunedSide.tree, { ...DEBIAN_PREFORK, maxRequestWorkers: handSized });
    log(`DEV ONLY: hand-written MaxRequestWorkers ${handSized}, not tune-lint's patch`);
  }
  await checkConfig(tunedSide.tree);
  const stock = describe(stockSide, 'stock Debian');
  const tuned = describe(tunedSide, handSized === undefined ? 'after tune-lint' : 'hand-sized (dev only)');

  const loadAtStart = os.loadavg()[0] ?? 0;
  const runs = await runLevels([stockSide, tunedSide], options);

  const results: ProofResults = {
    version: 1,
    scenario,
    date: new Date().toISOString().slice(0, 10),
    machine: await machineFacts(),
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] ?? 0 },
    capBytes,
    load: { requests, timeLimitSeconds, concurrency: [...levels] },
    perChild: { summary, children: measured.children, passedToTuneLint: perChild, warmup: measured.warmup },
    ...(measured.database ? { databaseAfterWarmup: measured.database } : {}),
    stock,
    tuned: { ...tuned, source: handSized === undefined ? 'tune-lint' : 'hand-sized (dev only)', tuneLint },
    runs,
    totalSeconds: (Date.now() - started) / 1000,
  };
  const resultsDir =
    handSized !== undefined
      ? fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-proof-dev-results-'))
      : path.resolve(values.results ?? DEFAULT_RESULTS_DIR[scenario]);
  writeResults(results, resultsDir, scenario);
  return 0;
}

/** Each side at each concurrency, in turn, with a line of what each run gave. */
async function runLevels(sides: readonly Side[], options: ProofOptions): Promise<RunRecord[]> {
  const runs: RunRecord[] = [];
  for (const concurrency of options.levels) {
    for (const side of sides) {
      const run = await measureRun(side, options.capBytes, {
        concurrency,
        requests: options.requests,
        timeLimitSeconds: options.timeLimitSeconds,
      });
      runs.push(run);
      const summaryText =
        'error' in run.ab
          ? run.ab.error
          : `${run.ab.goodPerSecond.toFixed(1)} good req/s, ${run.ab.failed}/${run.ab.complete} failed, p99 ${run.ab.p99Ms ?? '?'} ms`;
      const databaseText =
        run.database === undefined ? '' : run.database.survived ? ', database up' : `, database KILLED (${run.database.endedBy})`;
      log(
        `${side.config} -c ${concurrency}: ${summaryText}, ${run.cgroup.oomKills} OOM kills, peak ${mib(run.cgroup.peakBytes)}, ${run.peakChildren} children${databaseText}`,
      );
    }
  }
  return runs;
}

/** results.json, results.md and plot.svg, and the README's latest results when they are the default ones. */
function writeResults(results: ProofResults, resultsDir: string, scenario: Scenario): void {
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(path.join(resultsDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(resultsDir, 'results.md'), `# tune-lint proof: latest results\n\n${resultsMarkdown(results)}`);
  fs.writeFileSync(path.join(resultsDir, 'plot.svg'), plotSvg(results));
  if (resultsDir === DEFAULT_RESULTS_DIR[scenario]) {
    const readme = withLatestResults(fs.readFileSync(README, 'utf8'), results);
    if (readme === undefined) console.error(`${README} has no latest-results markers: not updated`);
    else fs.writeFileSync(README, readme);
  }
  console.log(resultsTable(results));
  console.log(`\nresults in ${resultsDir}; total ${results.totalSeconds.toFixed(0)} s`);
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  const prefix = error instanceof CgroupUnavailableError ? 'cannot cap memory, stopping: ' : 'proof failed: ';
  console.error(`${prefix}${(error as Error).message}`);
  exitCode = error instanceof CgroupUnavailableError ? 3 : 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);
