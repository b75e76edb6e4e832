/**
 * The tuning story reproduced with real parts: Debian's Apache prefork with
 * mod_php (or event with php-fpm), a heavy PHP page, a memory cgroup capped at
 * a small host's RAM (with swap or without), and ab at several concurrency
 * levels, before and after `tune-lint --fix`. Run as root: `npm run proof` (after a build, this file is
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
import type { RunningApache } from './apache.js';
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
import { checkPool, PHP_FPM, processName, startPhpFpm, stopPhpFpm } from './php-fpm.js';
import { mib, resultsMarkdown, resultsPlace, resultsTable, withLatestResults } from './results.js';
import type { ConfigDescription, ConfigName, MeasuredChildren, ProofResults, RunRecord, Scenario } from './results.js';
import { DEBIAN_FPM_FILES, DEBIAN_PREFORK, readDirectives, readPool, rewritePrefork, writeServerTree } from './server-root.js';
import type { ServerTree, Stack } from './server-root.js';
import { disableSwapFile, enableSwapFile, SwapUnavailableError } from './swap.js';
import type { SwapFile } from './swap.js';
import { applyTuneLint } from './tune.js';
import type { TuneOutcome } from './tune.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGE_SOURCE = path.join(REPO_ROOT, 'bench', 'proof', 'page.php');
const RESULTS_ROOT = path.join(REPO_ROOT, 'bench', 'proof', 'results');
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
  --stack fpm            Apache event + proxy_fcgi + php-fpm instead of prefork + mod_php: Debian's stock
                         pool and a tutorial's pool (pm = static, 50 children), each before and after
                         tune-lint (results in results/fpm)
  --swap SIZE            make a swap file of SIZE, turn it on for the run and let each group swap that
                         much beyond its cap, as a small VPS does (results in results/swap, results/fpm-swap)
  --keep-tree            keep the temporary ServerRoots (and their error logs) for inspection
  --dev-hand-sized N     DEV ONLY: compare against a hand-written MaxRequestWorkers N instead of
                         tune-lint's patch, to test this pipeline; results go to a temp directory
  --help                 this text`;

/** One side of the comparison: a server tree and, in the LAMP scenario, its my.cnf. */
interface Side {
  config: ConfigName;
  label: string;
  source: ConfigDescription['source'];
  tree: ServerTree;
  databaseConfig: string | undefined;
}

/** What is running right now and must be stopped on any exit. */
let active: { tree: ServerTree; cgroup: MemoryCgroup; database?: BackgroundProcess; phpFpm?: BackgroundProcess } | undefined;
let database: DatabaseDir | undefined;
let tempDir: string | undefined;
let keepTree = false;
let swap: SwapFile | undefined;

async function cleanUp(): Promise<void> {
  killRunningChildren();
  const current = active;
  active = undefined;
  if (current) {
    try {
      await stopAll(current);
    } catch (error) {
      console.error(`cleanup: ${(error as Error).message}`);
    }
  }
  if (swap) {
    const made = swap;
    swap = undefined;
    await disableSwapFile(made).catch((error: unknown) => console.error(`cleanup: ${(error as Error).message}`));
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

async function stopAll(running: NonNullable<typeof active>): Promise<void> {
  if (running.database) await stopDatabase(running.database);
  await stopApache(running.tree, running.cgroup);
  if (running.phpFpm) await stopPhpFpm(running.phpFpm);
  await running.cgroup.destroy();
}

/** The processes of a running side that hold PHP: Apache's children, or php-fpm's under event. */
interface RunningSide {
  apacheChildren: () => number[];
  phpChildren: () => number[];
  cgroup: MemoryCgroup;
  db: BackgroundProcess | undefined;
}

/**
 * Starts a side in a fresh capped cgroup (the database and php-fpm first, so
 * the page can reach them), runs `body`, and always stops them all and
 * removes the group.
 */
async function withServer<T>(side: Side, caps: Caps, name: string, body: (running: RunningSide) => Promise<T>): Promise<T> {
  refuseIfInterrupted();
  const cgroup = MemoryCgroup.create(`${CGROUP_PREFIX}-${name}`, caps.capBytes, caps.swapBytes);
  const current: NonNullable<typeof active> = { tree: side.tree, cgroup };
  active = current;
  try {
    if (side.databaseConfig !== undefined && database !== undefined) {
      current.database = await startDatabase(side.databaseConfig, database, cgroup);
    }
    if (side.tree.fpm) current.phpFpm = await startPhpFpm(side.tree.fpm, cgroup);
    refuseIfInterrupted();
    const server = await startApache(side.tree, cgroup);
    const apacheChildren = (): number[] => childrenNamed(server, 'apache2');
    const phpMaster = current.phpFpm?.pid;
    const phpChildren = (): number[] =>
      phpMaster === undefined ? apacheChildren() : childrenNamed(server, path.basename(PHP_FPM)).filter((pid) => pid !== phpMaster);
    return await body({ apacheChildren, phpChildren, cgroup, db: current.database });
  } finally {
    // `active` stays set until the group is gone, so an interrupt meanwhile still cleans it up.
    await stopAll(current);
    if (active === current) active = undefined;
  }
}

/** The group's processes but Apache's parent that run this program (the database's and php-fpm's are told apart by name). */
function childrenNamed(server: RunningApache, name: string): number[] {
  return workerPids(server).filter((pid) => processName(pid) === name);
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

/** The memory of these processes, summed up, with the size tune-lint is given: the median PSS rounded up to a MiB. */
function measured(pids: readonly number[], who: string, atLeast: number): MeasuredChildren {
  const children = pids.flatMap((pid) => readChildMemory(pid) ?? []);
  if (children.length < atLeast) throw new Error(`only ${children.length} ${who} could be read after the warm-up`);
  const summary = summarise(children);
  return { summary, children, passedToTuneLint: `${Math.ceil(summary.medianPssBytes / MIB)}M` };
}

interface Measurement {
  apache: MeasuredChildren;
  php: MeasuredChildren | undefined;
  warmup: string;
  database: ChildMemory | undefined;
}

async function measurePerChild(side: Side, caps: Caps): Promise<Measurement> {
  return withServer(side, caps, 'measure', async ({ apacheChildren, phpChildren, db }) => {
    const warm = await runAb(side.tree.port, WARMUP);
    if (typeof warm.result === 'string') throw new Error(`warm-up failed: ${warm.result}`);
    if (warm.result.failed > 0)
      throw new Error(`warm-up under the cap already failed ${warm.result.failed} requests: no clean measurement`);
    await sleep(500);
    return {
      apache: measured(apacheChildren(), 'Apache children', side.tree.fpm ? 1 : 3),
      php: side.tree.fpm ? measured(phpChildren(), 'php-fpm children', 2) : undefined,
      database: db === undefined ? undefined : readChildMemory(db.pid),
      warmup: `Warmed on the stock config under the cap with \`ab -n ${WARMUP.requests} -c ${WARMUP.concurrency}\` (${warm.result.failed} failed), PSS/RSS read from /proc/PID/smaps_rollup of every child`,
    };
  });
}

/** Start-up (AH00163, AH00489, AH00094), shutdown (AH00169, AH00491) and reached-MaxRequestWorkers (AH00161) notices. */
const START_STOP_AND_LIMIT = /\b(AH00163|AH00489|AH00094|AH00169|AH00491|AH00161):/;

/** The lines a log gained since `offset`; none when it does not exist. */
function logLinesSince(file: string, offset: number): string[] {
  let text = '';
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buffer = Buffer.alloc(Math.max(0, size - offset));
      fs.readSync(fd, buffer, 0, buffer.length, offset);
      text = buffer.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
  return text.split('\n').filter((line) => line !== '');
}

function errorLogSince(tree: ServerTree, offset: number): RunRecord['errorLog'] {
  const lines = logLinesSince(tree.errorLog, offset);
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

/** php-fpm's "server reached pm.max_children" warnings and children it saw end by a signal (an OOM kill is SIGKILL). */
function phpLogSince(file: string, offset: number): NonNullable<RunRecord['phpLog']> {
  const lines = logLinesSince(file, offset);
  return {
    maxChildrenReached: lines.filter((line) => line.includes('reached pm.max_children')).length,
    childrenSignalled: lines.filter((line) => /exited on signal \d+/.test(line)).length,
  };
}

async function measureRun(side: Side, caps: Caps, load: AbLoad): Promise<RunRecord> {
  const { config, tree } = side;
  const runStarted = Date.now();
  const logOffset = logSize(tree.errorLog);
  const phpLogOffset = tree.fpm ? logSize(tree.fpm.errorLog) : 0;
  let peakChildren = 0;
  let counters: RunRecord['cgroup'] | undefined;
  let databaseState: RunRecord['database'];
  const cgroupName = `${config}-c${load.concurrency}`;
  const ab = await withServer(side, caps, cgroupName, async ({ phpChildren, cgroup, db }) => {
    const sampler = setInterval(() => {
      peakChildren = Math.max(peakChildren, phpChildren().length);
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
    ...(tree.fpm ? { phpLog: phpLogSince(tree.fpm.errorLog, phpLogOffset) } : {}),
    ...(databaseState ? { database: databaseState } : {}),
    wallSeconds: (Date.now() - runStarted) / 1000,
  };
}

const PREFORK_SHOWN = ['StartServers', 'MinSpareServers', 'MaxSpareServers', 'MaxRequestWorkers', 'MaxConnectionsPerChild'];
const EVENT_SHOWN = ['StartServers', 'ThreadsPerChild', 'MaxRequestWorkers', 'MaxConnectionsPerChild'];
const COMMON_SHOWN = ['Timeout', 'KeepAlive', 'KeepAliveTimeout'];
const POOL_SHOWN = [
  'pm',
  'pm.max_children',
  'pm.start_servers',
  'pm.min_spare_servers',
  'pm.max_spare_servers',
  'pm.max_requests',
  'request_terminate_timeout',
];

function describe(side: Side, tuned: { outcome: TuneOutcome; from: string } | undefined): ConfigDescription {
  const apacheShown = [...(side.tree.fpm ? EVENT_SHOWN : PREFORK_SHOWN), ...COMMON_SHOWN];
  const apache = readDirectives(side.tree, apacheShown);
  const pool = readPool(side.tree, POOL_SHOWN);
  const settings: Record<string, string> = {};
  for (const name of apacheShown) settings[name] = apache[name] ?? 'unset';
  if (side.tree.fpm) for (const key of POOL_SHOWN) settings[key] = pool[key] ?? 'unset';
  return {
    name: side.config,
    label: side.label,
    source: side.source,
    maxRequestWorkers: Number(apache.MaxRequestWorkers),
    ...(side.tree.fpm ? { poolChildren: Number(pool['pm.max_children']) } : {}),
    settings,
    ...(side.databaseConfig === undefined ? {} : { database: readMysqldOptions(side.databaseConfig) }),
    ...(tuned ? { tuneLint: tuned.outcome, tunedFrom: tuned.from } : {}),
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

function preflight(withDatabase: boolean, stack: Stack['kind']): void {
  if (process.getuid?.() !== 0) throw new Error('run as root: the proof creates a memory cgroup and starts Apache as User www-data');
  const needed =
    stack === 'fpm'
      ? { files: [APACHE, AB, PHP_FPM, PAGE_SOURCE, ...Object.values(DEBIAN_FPM_FILES)], packages: 'apache2 apache2-utils php8.2-fpm' }
      : { files: [APACHE, AB, PHP_MODULE, PAGE_SOURCE], packages: 'apache2 apache2-utils libapache2-mod-php8.2' };
  for (const file of needed.files) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing (apt-get install ${needed.packages})`);
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

/** The memory a side's group gets: RAM, and swap beyond it. */
interface Caps {
  readonly capBytes: number;
  readonly swapBytes: number;
}

/** The command line, checked: what to run and how hard. */
interface ProofOptions extends Caps {
  readonly cap: string;
  readonly stack: Stack['kind'];
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
      stack: { type: 'string', default: 'prefork' },
      swap: { type: 'string', default: '0' },
      'dev-hand-sized': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    cap: values.cap,
    ...sizeOptions(values),
    ...loadOptions(values),
    keepTree: values['keep-tree'],
    withMariadb: values['with-mariadb'],
    results: values.results,
  };
}

function isStackKind(text: string): text is Stack['kind'] {
  return text === 'prefork' || text === 'fpm';
}

/** --cap, --swap and --stack, checked. */
function sizeOptions(values: { cap: string; swap: string; stack: string; 'with-mariadb': boolean; 'dev-hand-sized'?: string }) {
  const capBytes = parseFriendlySize(values.cap);
  const swapBytes = parseFriendlySize(values.swap);
  const stack = values.stack;
  if (capBytes === undefined || capBytes < 64 * MIB) throw new Error(`--cap ${values.cap}: give a size of at least 64M`);
  if (swapBytes === undefined || swapBytes > 16 * 1024 * MIB) throw new Error(`--swap ${values.swap}: give a size up to 16G`);
  if (!isStackKind(stack)) throw new Error(`--stack ${stack}: give prefork or fpm`);
  if (stack === 'fpm' && (values['with-mariadb'] || values['dev-hand-sized'] !== undefined))
    throw new Error('--stack fpm runs without --with-mariadb and --dev-hand-sized');
  return { capBytes, swapBytes, stack };
}

/** --concurrency, --requests, --time-limit and --dev-hand-sized, checked. */
function loadOptions(values: { concurrency: string; requests: string; 'time-limit': string; 'dev-hand-sized'?: string }) {
  const levels = values.concurrency.split(',').map(Number);
  const requests = Number(values.requests);
  const timeLimitSeconds = Number(values['time-limit']);
  const handSized = values['dev-hand-sized'] === undefined ? undefined : Number(values['dev-hand-sized']);
  if (levels.length === 0 || levels.length > 10 || !levels.every((level) => Number.isInteger(level) && level >= 1 && level <= 1000)) {
    throw new Error(`--concurrency ${values.concurrency}: give 1 to 10 levels between 1 and 1000`);
  }
  if (!Number.isInteger(requests) || requests < 10 || requests > 100_000) throw new Error('--requests: give 10 to 100000');
  if (!Number.isInteger(timeLimitSeconds) || timeLimitSeconds < 5 || timeLimitSeconds > 600)
    throw new Error('--time-limit: give 5 to 600 seconds');
  if (handSized !== undefined && (!Number.isInteger(handSized) || handSized < 1))
    throw new Error('--dev-hand-sized: give a whole number of workers');
  return { levels, requests, timeLimitSeconds, handSized };
}

/** The sides to compare: stock and tuned, and under event + php-fpm a tutorial's pool and that pool tuned too. */
const SIDES: Record<Stack['kind'], readonly (Pick<Side, 'config' | 'label' | 'source'> & { pool?: 'stock' | 'tutorial' })[]> = {
  prefork: [
    { config: 'stock', label: 'stock Debian', source: 'stock' },
    { config: 'tuned', label: 'after tune-lint', source: 'tune-lint' },
  ],
  fpm: [
    { config: 'stock', label: 'stock Debian pool', source: 'stock', pool: 'stock' },
    { config: 'tuned', label: 'stock pool after tune-lint', source: 'tune-lint', pool: 'stock' },
    { config: 'tutorial', label: 'tutorial pool', source: 'tutorial', pool: 'tutorial' },
    { config: 'tutorial-tuned', label: 'tutorial pool after tune-lint', source: 'tune-lint', pool: 'tutorial' },
  ],
};

async function main(): Promise<number> {
  const options = proofOptions();
  if (options === undefined) {
    console.log(USAGE);
    return 0;
  }
  const { capBytes, handSized } = options;
  keepTree = options.keepTree;
  const scenario: Scenario = options.stack === 'fpm' ? 'fpm' : options.withMariadb ? 'lamp' : 'web';
  preflight(scenario === 'lamp', options.stack);

  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-proof-'));
  tempDir = workDir;
  fs.chmodSync(workDir, 0o755);
  if (options.swapBytes > 0) {
    swap = await enableSwapFile(path.join(workDir, 'swapfile'), options.swapBytes);
    log(`swap file ${swap.file} on: ${mib(swap.bytes)}`);
  }
  const port = await freeLoopbackPort();
  if (scenario === 'lamp') database = databaseDir(path.join(workDir, 'db'));
  const sides = await writeSides(options.stack, workDir, port);
  const stockSide = sides[0];
  if (stockSide === undefined) throw new Error('no sides to compare');
  log(`server trees in ${workDir}, Apache on 127.0.0.1:${port}, memory cap ${mib(capBytes)}, swap ${mib(options.swapBytes)}`);
  if (database !== undefined && stockSide.databaseConfig !== undefined) {
    await initialiseDatabase(stockSide.databaseConfig, database);
    log(`MariaDB data directory ready in ${database.datadir} (socket only, no TCP)`);
  }

  const measurement = await measurePerChild(stockSide, options);
  for (const [who, children] of [
    ['Apache', measurement.apache],
    ['php-fpm', measurement.php],
  ] as const) {
    if (children === undefined) continue;
    const summary = children.summary;
    log(
      `${who} per child after warm-up: median PSS ${mib(summary.medianPssBytes)} over ${summary.children} children (RSS ${mib(summary.medianRssBytes)})`,
    );
  }
  const configs = await tuneSides(sides, measurement, options);

  const loadAtStart = os.loadavg()[0] ?? 0;
  const runs = await runLevels(sides, options);

  const results: ProofResults = {
    version: 2,
    scenario,
    swapBytes: options.swapBytes,
    date: new Date().toISOString().slice(0, 10),
    machine: await machineFacts(),
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] ?? 0 },
    capBytes,
    load: { requests: options.requests, timeLimitSeconds: options.timeLimitSeconds, concurrency: [...options.levels] },
    warmup: measurement.warmup,
    perChild: measurement.apache,
    ...(measurement.php ? { phpPerChild: measurement.php } : {}),
    ...(measurement.database ? { databaseAfterWarmup: measurement.database } : {}),
    configs,
    runs,
    totalSeconds: (Date.now() - started) / 1000,
  };
  const defaultDir = path.join(RESULTS_ROOT, resultsPlace(scenario, options.swapBytes).dir);
  const resultsDir =
    handSized !== undefined
      ? fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-proof-dev-results-'))
      : path.resolve(options.results ?? defaultDir);
  writeResults(results, resultsDir, resultsDir === defaultDir);
  return 0;
}

/** A tree per side (and its my.cnf in the LAMP scenario), the untuned ones checked by the servers themselves. */
async function writeSides(stackKind: Stack['kind'], workDir: string, port: number): Promise<Side[]> {
  const page = fs.readFileSync(PAGE_SOURCE, 'utf8');
  const pageDatabase = database && {
    socket: database.socket,
    user: PAGE_ACCOUNT.user,
    password: PAGE_ACCOUNT.password,
    name: PAGE_ACCOUNT.database,
  };
  const sides = SIDES[stackKind].map(({ pool, ...named }): Side => {
    const stack: Stack = pool === undefined ? { kind: 'prefork', prefork: DEBIAN_PREFORK } : { kind: 'fpm', pool };
    const tree = writeServerTree(path.join(workDir, named.config), port, stack, page, pageDatabase);
    if (database === undefined) return { ...named, tree, databaseConfig: undefined };
    const databaseConfig = path.join(tree.root, 'mysql', 'my.cnf');
    writeDatabaseConfig(databaseConfig, database);
    return { ...named, tree, databaseConfig };
  });
  for (const side of sides) {
    if (side.source === 'tune-lint') continue;
    await checkConfig(side.tree);
    if (side.tree.fpm) await checkPool(side.tree.fpm);
  }
  return sides;
}

/** Each tuned side after tune-lint's --fix (or the dev-only hand-written number), and what every side ends up with. */
async function tuneSides(sides: Side[], measurement: Measurement, options: ProofOptions): Promise<ConfigDescription[]> {
  const configs: ConfigDescription[] = [];
  for (const [index, side] of sides.entries()) {
    let tuned: { outcome: TuneOutcome; from: string } | undefined;
    if (side.source === 'tune-lint' && options.handSized !== undefined) {
      rewritePrefork(side.tree, { ...DEBIAN_PREFORK, maxRequestWorkers: options.handSized });
      side.source = 'hand-sized (dev only)';
      side.label = 'hand-sized (dev only)';
      log(`DEV ONLY: hand-written MaxRequestWorkers ${options.handSized}, not tune-lint's patch`);
    } else if (side.source === 'tune-lint') {
      const from = sides[index - 1]?.label ?? 'the config before';
      tuned = { outcome: await tune(side, measurement, options.cap, from), from };
      await checkConfig(side.tree);
      if (side.tree.fpm) await checkPool(side.tree.fpm);
    }
    configs.push(describe(side, tuned));
  }
  return configs;
}

/** tune-lint's --fix on a side's tree with the sizes measured on the stock one; a fix that changes nothing stops the run. */
async function tune(side: Side, measurement: Measurement, cap: string, before: string): Promise<TuneOutcome> {
  const tuneLint = await applyTuneLint(
    REPO_ROOT,
    side.tree,
    {
      hostRam: cap,
      perChild: measurement.apache.passedToTuneLint,
      ...(measurement.php ? { phpPerChild: measurement.php.passedToTuneLint } : {}),
    },
    database && side.databaseConfig !== undefined
      ? { configFile: side.databaseConfig, target: MARIADB_TARGET, dir: database.root }
      : undefined,
  );
  if (tuneLint.changedFiles.length === 0) {
    throw new Error(
      `${tuneLint.command} changed nothing in ${before}: there is no tuned config to compare. Its report:\n${tuneLint.report}`,
    );
  }
  log(`${tuneLint.command} changed ${tuneLint.changedFiles.join(', ')}`);
  return tuneLint;
}

/** Each side at each concurrency, in turn, with a line of what each run gave. */
async function runLevels(sides: readonly Side[], options: ProofOptions): Promise<RunRecord[]> {
  const runs: RunRecord[] = [];
  for (const concurrency of options.levels) {
    for (const side of sides) {
      const run = await measureRun(side, options, {
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
      const swapText = options.swapBytes > 0 ? `, swap ${mib(run.cgroup.swapBytes ?? 0)}, ${run.cgroup.majorFaults} major faults` : '';
      log(
        `${side.config} -c ${concurrency}: ${summaryText}, ${run.cgroup.oomKills} OOM kills, peak ${mib(run.cgroup.peakBytes)}${swapText}, ${run.peakChildren} children${databaseText}`,
      );
    }
  }
  return runs;
}

/** results.json, results.md and plot.svg, and the README's latest results when they are the default ones. */
function writeResults(results: ProofResults, resultsDir: string, isDefault: boolean): void {
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(path.join(resultsDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(resultsDir, 'results.md'), `# tune-lint proof: latest results\n\n${resultsMarkdown(results)}`);
  fs.writeFileSync(path.join(resultsDir, 'plot.svg'), plotSvg(results));
  if (isDefault) {
    const readme = withLatestResults(fs.readFileSync(README, 'utf8'), results);
    if (readme === undefined) console.error(`${README} has no latest-results markers for this scenario: not updated`);
    else fs.writeFileSync(README, readme);
  }
  console.log(resultsTable(results));
  console.log(`\nresults in ${resultsDir}; total ${results.totalSeconds.toFixed(0)} s`);
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  const unavailable = error instanceof CgroupUnavailableError || error instanceof SwapUnavailableError;
  const prefix =
    error instanceof CgroupUnavailableError
      ? 'cannot cap memory, stopping: '
      : unavailable
        ? 'cannot make swap, stopping: '
        : 'proof failed: ';
  console.error(`${prefix}${(error as Error).message}`);
  exitCode = unavailable ? 3 : 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);
