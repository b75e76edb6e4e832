/**
 * `npm run bench:compare -- --base REV`: this checkout's bin against the bin
 * of another revision, built in a git worktree of its own, in paired rounds
 * on the bench's trees. On a shared machine a change of a few per cent is
 * inside one command's spread from round to round; the ratio of the two
 * builds within each round is not, and its median over 20 or more rounds,
 * with a bootstrap interval, says whether a change is real. Instruction
 * counts (`--instructions`) are exact for the short Debian runs only: on the
 * big trees V8 sizes its heap from the speed of its own collections, which
 * moves the count by about a percent from run to run (docs/performance.md).
 *
 *   node dist/bench/compare.js --base REV [--trees debian,small-files,single-file] [--vhosts 10000] [--reps 21] [--instructions]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findTool } from '../test/helpers/tools.js';
import {
  binOf,
  countInstructions,
  describeBuild,
  gnuTimeAvailable,
  median,
  roundRatios,
  runMain,
  Runner,
  scratchDirectory,
  seededRandom,
  type BenchCommand,
  type Sample,
} from './measure.js';
import { buildVhostTree, copyDebianTree, TREE_SHAPES, type TreeShape } from './trees.js';

const CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));
const USAGE = `usage: compare.js --base REV [--trees debian,${Object.keys(TREE_SHAPES).join(',')}] [--vhosts N] [--reps N] [--instructions]`;

interface CompareOptions {
  readonly base: string;
  readonly trees: readonly ('debian' | TreeShape)[];
  readonly vhosts: number;
  readonly repetitions: number;
  readonly instructions: boolean;
}

function compareOptions(): CompareOptions {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      trees: { type: 'string', default: 'debian,small-files' },
      vhosts: { type: 'string', default: '10000' },
      reps: { type: 'string', default: '21' },
      instructions: { type: 'boolean', default: false },
    },
  });
  const trees = values.trees.split(',');
  const vhosts = Number(values.vhosts);
  const repetitions = Number(values.reps);
  if (
    values.base === undefined ||
    !trees.every((tree): tree is 'debian' | TreeShape => tree === 'debian' || tree in TREE_SHAPES) ||
    !Number.isInteger(vhosts) ||
    vhosts < 1 ||
    !Number.isInteger(repetitions) ||
    repetitions < 2
  ) {
    throw new Error(USAGE);
  }
  return { base: values.base, trees, vhosts, repetitions, instructions: values.instructions };
}

/** Runs a command to its end; throws with its output when it fails. */
function run(file: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(file, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0)
    throw new Error(`${file} ${args.join(' ')} (in ${cwd}) exited ${result.status ?? result.signal}\n${result.stderr}`);
  return result.stdout.trim();
}

/** The base revision checked out beside this one and built with its own build script and this checkout's node_modules. */
function buildBase(revision: string, into: string): { commit: string; bin: string } {
  const commit = run('git', ['rev-parse', '--verify', `${revision}^{commit}`], CHECKOUT);
  run('git', ['worktree', 'add', '--detach', into, commit], CHECKOUT);
  fs.symlinkSync(path.join(CHECKOUT, 'node_modules'), path.join(into, 'node_modules'));
  run('npm', ['run', '--silent', 'build'], into);
  return { commit, bin: binOf(into) };
}

interface Tree {
  readonly key: string;
  /** The lint's arguments after the bin. */
  readonly args: readonly string[];
}

function buildTrees(options: CompareOptions, scratch: string): Tree[] {
  const lint = ['--no-probe', '--format', 'json'];
  return options.trees.map((tree): Tree => {
    if (tree === 'debian') {
      const debian = copyDebianTree(scratch);
      return { key: 'debian', args: [...lint, '--sysroot', debian.root, debian.apacheConf, debian.myCnf] };
    }
    return { key: `${tree}-${options.vhosts}`, args: [...lint, buildVhostTree(scratch, options.vhosts, tree).apacheConf] };
  });
}

/**
 * Each round runs every tree's two builds back to back, base first in even
 * rounds and this checkout first in odd ones: the command that runs right
 * after a big lint is slower or faster by several per cent, and this way
 * each build is there equally often (measureRounds's shuffle only on
 * average).
 */
async function pairedRounds(
  runner: Runner,
  pairs: readonly (readonly [BenchCommand, BenchCommand])[],
  repetitions: number,
  onRound: (round: number) => void = () => undefined,
): Promise<Map<string, Sample[]>> {
  const samples = new Map<string, Sample[]>(pairs.flat().map((command) => [command.id, []]));
  for (let round = 0; round < repetitions; round++) {
    for (const [first, second] of pairs) {
      for (const command of round % 2 === 0 ? [first, second] : [second, first]) samples.get(command.id)?.push(await runner.run(command));
    }
    onRound(round + 1);
  }
  return samples;
}

/** The 95 % bootstrap interval of the median of `values`. */
function medianInterval(values: readonly number[]): [number, number] {
  const random = seededRandom(1);
  const medians: number[] = [];
  for (let draw = 0; draw < 2_000; draw++) {
    medians.push(median(values.map(() => values[Math.floor(random() * values.length)] as number)));
  }
  medians.sort((a, b) => a - b);
  return [medians[Math.floor(medians.length * 0.025)] as number, medians[Math.floor(medians.length * 0.975)] as number];
}

async function main(): Promise<void> {
  const options = compareOptions();
  const valgrind = options.instructions ? findTool('valgrind') : undefined;
  if (options.instructions && valgrind === undefined) throw new Error('--instructions needs valgrind (apt-get install valgrind)');
  const scratch = scratchDirectory();
  const worktree = path.join(scratch, 'base');
  const progress = (text: string): boolean => process.stderr.write(`${text}\n`);
  try {
    progress(`building ${options.base} in ${worktree}`);
    const base = buildBase(options.base, worktree);
    const head = binOf(CHECKOUT);
    progress('building trees');
    const trees = buildTrees(options, scratch);
    const node = process.execPath;
    const pairs = trees.map((tree): [BenchCommand, BenchCommand] => [
      { id: `${tree.key}/base`, argv: [node, base.bin, ...tree.args], okExitCodes: [0, 1] },
      { id: `${tree.key}/head`, argv: [node, head, ...tree.args], okExitCodes: [0, 1] },
    ]);
    const runner = new Runner(gnuTimeAvailable(), scratch, scratch);
    progress('warm-up round');
    await pairedRounds(runner, pairs, 1);
    const samples = await pairedRounds(runner, pairs, options.repetitions, (round) => progress(`round ${round}/${options.repetitions}`));
    runner.close();

    const out = [
      `This checkout's ${describeBuild(CHECKOUT, head)} against ${options.base} (${base.commit.slice(0, 7)}), ${options.repetitions} paired rounds.`,
      '',
      '| Tree | base (ms) | this (ms) | this / base, median of rounds | 95 % interval | peak RSS base / this (MiB) |',
      '|---|---:|---:|---:|---|---|',
    ];
    for (const tree of trees) {
      const before = samples.get(`${tree.key}/base`) ?? [];
      const after = samples.get(`${tree.key}/head`) ?? [];
      const ratios = roundRatios(after, before);
      const [low, high] = medianInterval(ratios);
      const rss = (list: typeof before): string => (median(list.map((sample) => sample.maxRssKiB ?? Number.NaN)) / 1024).toFixed(1);
      out.push(
        `| ${tree.key} | ${median(before.map((sample) => sample.wallMs)).toFixed(0)} | ${median(after.map((sample) => sample.wallMs)).toFixed(0)} | ` +
          `${median(ratios).toFixed(3)}x | ${low.toFixed(3)}x-${high.toFixed(3)}x | ${rss(before)} / ${rss(after)} |`,
      );
    }
    if (valgrind !== undefined) {
      out.push('', '| Command | base (M instructions) | this | this / base |', '|---|---:|---:|---:|');
      for (const tree of trees.filter((candidate) => candidate.key === 'debian')) {
        const count = (id: string): number => {
          progress(`counting instructions: ${id}`);
          return countInstructions(valgrind, pairs.flat().find((command) => command.id === id) as BenchCommand, scratch);
        };
        const before = count(`${tree.key}/base`);
        const after = count(`${tree.key}/head`);
        out.push(`| ${tree.key} | ${before.toFixed(1)} | ${after.toFixed(1)} | ${(after / before).toFixed(4)}x |`);
      }
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    spawnSync('git', ['worktree', 'remove', '--force', worktree], { cwd: CHECKOUT, stdio: 'ignore' });
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await runMain(main);
