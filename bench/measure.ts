/**
 * Timing one command: wall time from spawn to exit, taken in this process
 * with the monotonic clock, and peak RSS as the kernel reports it to the
 * parent in wait4's rusage (`ru_maxrss`), read through GNU time
 * (`/usr/bin/time -f '%M %U %S' -o FILE`), with the CPU time beside it.
 *
 * Why GNU time and not `process.resourceUsage()`: Node reports only its own
 * rusage (and none of its children's), while wait4 gives the child's exact
 * high-water mark. GNU time forks a process of its own size (about 1 MiB)
 * that then execs the command, so the high-water mark carried across exec is
 * that small fork, not a copy of this Node process as a direct spawn from
 * libuv would leave. Its 10 ms wall clock is too coarse, so wall time is ours;
 * the cost of starting GNU time itself is measured as the `true` row.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface BenchCommand {
  /** Stable key, e.g. `lint/vhosts-10000`. */
  readonly id: string;
  readonly argv: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory; the runner's by default. */
  readonly cwd?: string;
  /** Exit codes that count as a successful run (a linter exits 1 on findings). */
  readonly okExitCodes: readonly number[];
}

export interface Sample {
  readonly wallMs: number;
  /** Peak resident set of the command, KiB; undefined without GNU time. */
  readonly maxRssKiB: number | undefined;
  /** User + system CPU time of the command (10 ms resolution); undefined without GNU time. */
  readonly cpuMs: number | undefined;
}

const GNU_TIME = '/usr/bin/time';

export function gnuTimeAvailable(): boolean {
  try {
    fs.accessSync(GNU_TIME, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export class Runner {
  private readonly usageFile: string;
  private readonly devNull: number;

  constructor(
    private readonly withRss: boolean,
    scratch: string,
    /** Working directory of every command. */
    private readonly cwd: string,
  ) {
    this.usageFile = path.join(scratch, 'usage.txt');
    this.devNull = fs.openSync('/dev/null', 'w');
  }

  /** One run, stdout to /dev/null. Throws when the command fails, with its stderr. */
  async run(command: BenchCommand): Promise<Sample> {
    const [file, ...args] = this.withRss ? [GNU_TIME, '-f', '%M %U %S', '-o', this.usageFile, ...command.argv] : [...command.argv];
    const stderr: Buffer[] = [];
    const started = process.hrtime.bigint();
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(file as string, args, {
        cwd: command.cwd ?? this.cwd,
        stdio: ['ignore', this.devNull, 'pipe'],
        env: command.env ?? process.env,
      });
      child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.on('error', reject);
      child.on('exit', (code) => resolve(code));
    });
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    if (exitCode === null || !command.okExitCodes.includes(exitCode)) {
      throw new Error(`${command.id}: ${command.argv.join(' ')} exited with ${exitCode}\n${Buffer.concat(stderr).toString()}`);
    }
    if (!this.withRss) return { wallMs, maxRssKiB: undefined, cpuMs: undefined };
    return { wallMs, ...this.readUsage() };
  }

  close(): void {
    fs.closeSync(this.devNull);
  }

  /** GNU time writes `Command exited with non-zero status N` first when the exit code is not 0; ours is the last line. */
  private readUsage(): { maxRssKiB: number; cpuMs: number } {
    const lines = fs.readFileSync(this.usageFile, 'utf8').trim().split('\n');
    const [maxRssKiB, user, system] = (lines[lines.length - 1] ?? '').split(' ').map(Number);
    if (maxRssKiB === undefined || user === undefined || system === undefined || [maxRssKiB, user, system].some(Number.isNaN)) {
      throw new Error(`unexpected GNU time output: ${lines.join(' | ')}`);
    }
    return { maxRssKiB, cpuMs: (user + system) * 1000 };
  }
}

/**
 * Runs every command `repetitions` times, one of each per round so load
 * changes on a shared machine hit all of them alike, in a new order each
 * round (a shuffle with a fixed seed, so a run can be repeated): the command
 * that runs right after a big lint is several per cent slower or faster
 * than it would be otherwise, and a fixed or rotated order puts the same
 * command there round after round (two builds of the same code, rotated,
 * measured 1.043x apart on the small-files tree; alternated, 0.996x).
 */
export async function measureRounds(
  runner: Runner,
  commands: readonly BenchCommand[],
  repetitions: number,
  onRound: (round: number) => void,
): Promise<Map<string, Sample[]>> {
  const samples = new Map<string, Sample[]>(commands.map((command) => [command.id, []]));
  const random = seededRandom(repetitions);
  for (let round = 0; round < repetitions; round++) {
    for (const command of shuffled(commands, random)) samples.get(command.id)?.push(await runner.run(command));
    onRound(round + 1);
  }
  return samples;
}

function shuffled<Item>(items: readonly Item[], random: () => number): Item[] {
  const order = [...items];
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other] as Item, order[index] as Item];
  }
  return order;
}

/** A small generator (mulberry32) with a fixed seed, so the same run gives the same order and the same interval. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * Millions of instructions a command executes, as valgrind's callgrind counts
 * them: the same from run to run whatever the load on the machine, where wall
 * time on a shared machine moves by a fifth. Node runs with --predictable
 * (one GC thread, no concurrent compilation, so the collector's timing does
 * not change the count), which V8 still accepts the bin's code cache under;
 * --single-threaded would make V8 reject it.
 */
export function countInstructions(valgrind: string, command: BenchCommand, cwd: string): number {
  const [file, ...args] = command.argv;
  const argv = file === process.execPath ? [file, '--predictable', ...args] : [...command.argv];
  const run = spawnSync(valgrind, ['--tool=callgrind', '--callgrind-out-file=/dev/null', ...argv], {
    cwd: command.cwd ?? cwd,
    env: command.env ?? process.env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const collected = /Collected : (\d+)/.exec(run.stderr);
  if (run.status === null || !command.okExitCodes.includes(run.status) || collected === null) {
    throw new Error(`${command.id} under callgrind: ${argv.join(' ')} exited with ${run.status ?? run.signal}\n${run.stderr.slice(-2000)}`);
  }
  return Number(collected[1]) / 1e6;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The median over rounds of a/b within each round: both ran seconds apart,
 * so a burst of load from elsewhere cancels out instead of landing in one
 * side's median only.
 */
export function pairedRatio(a: readonly Sample[], b: readonly Sample[]): number {
  return median(roundRatios(a, b));
}

/** The ratio of wall times in each round, in round order. */
export function roundRatios(a: readonly Sample[], b: readonly Sample[]): number[] {
  const ratios: number[] = [];
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    ratios.push((a[index] as Sample).wallMs / (b[index] as Sample).wallMs);
  }
  return ratios;
}

export function scratchDirectory(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-bench-'));
}

/** A bench script's entry point: a failure is one line on stderr and exit code 2, as the CLI's input errors are. */
export async function runMain(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  }
}

/** The `bin` of a checkout's package.json: the file `tune-lint` runs once installed. */
export function binOf(checkout: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(checkout, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.['tune-lint'];
  if (bin === undefined) throw new Error(`${checkout}/package.json has no bin for tune-lint`);
  return path.resolve(checkout, bin);
}

/** A build of the CLI as a report names it: its path in the checkout, the commit, and whether tracked files changed since. */
export function describeBuild(checkout: string, cli: string): string {
  const commit = spawnSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  const dirty = spawnSync('git', ['-C', checkout, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' });
  const at = commit.status === 0 ? ` at ${commit.stdout.trim()}${dirty.stdout.trim() === '' ? '' : ' with uncommitted changes'}` : '';
  return `${path.relative(checkout, cli)}${at}`;
}
