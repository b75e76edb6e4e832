/**
 * `npm run bench`: tune-lint against Node's own start-up floor and against
 * Apache's parser on the same trees, measured side by side in one run.
 *
 *   node dist/bench/run.js [--reps 10] [--sizes 1000,2500,5000,10000] [--shapes small-files,single-file,panel]
 *                          [--cli FILE] [--json FILE] [--keep] [--instructions]
 *
 * `--cli` times another build of the CLI; by default it is package.json's
 * `bin`, what users run.
 *
 * The proxy shape is built at every size (the scaling table); the other
 * shapes of bench/trees.ts at the largest size only.
 *
 * Builds the trees (bench/trees.ts), checks once that every command succeeds
 * and that tune-lint reads exactly the files `apache2 -t -D DUMP_INCLUDES`
 * reads, then runs one warm-up round and `--reps` measured rounds, every
 * command once per round, and prints a Markdown report of medians.
 * `--instructions` adds instruction counts under valgrind (callgrind) for
 * `node -e 0`, the Debian lints and the smallest vhost tree: ratios to Node's
 * floor that do not move with the load (two minutes more).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseDumpIncludes, readEnvvars } from '../test/helpers/apache-oracle.js';
import { findTool } from '../test/helpers/tools.js';
import {
  binOf,
  countInstructions,
  describeBuild,
  gnuTimeAvailable,
  measureRounds,
  runMain,
  Runner,
  scratchDirectory,
  type BenchCommand,
} from './measure.js';
import { formatReport, probedId, PROBED_LIVE_ETC, sitesOnNfsId, type MachineInfo, type TreeInfo } from './report.js';
import { buildVhostTree, copyDebianTree, TREE_SHAPES, type TreeShape } from './trees.js';

const CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

interface ApacheTree {
  readonly key: string;
  readonly label: string;
  readonly serverRoot: string;
  readonly conf: string;
  /** tune-lint's --sysroot for the tree, when it is a copy of /etc. */
  readonly sysroot: string | undefined;
  readonly vhosts: number | undefined;
  /** Set for the shapes beside the proxy one, which is built at every size. */
  readonly shape?: TreeShape;
  /** Where the generated sites' DocumentRoots are. */
  readonly webRoot?: string;
}

/** The command line, checked. */
function benchOptions() {
  const { values } = parseArgs({
    options: {
      reps: { type: 'string', default: '10' },
      sizes: { type: 'string', default: '1000,2500,5000,10000' },
      shapes: { type: 'string', default: 'small-files,single-file,panel' },
      json: { type: 'string' },
      keep: { type: 'boolean', default: false },
      cli: { type: 'string' },
      instructions: { type: 'boolean', default: false },
    },
  });
  const repetitions = Number(values.reps);
  const sizes = values.sizes.split(',').map(Number);
  const shapes = values.shapes === '' ? [] : values.shapes.split(',');
  if (
    !Number.isInteger(repetitions) ||
    repetitions < 1 ||
    sizes.some((size) => !Number.isInteger(size) || size < 1) ||
    !shapes.every((shape): shape is TreeShape => shape in TREE_SHAPES && shape !== 'proxy')
  ) {
    throw new Error(
      `usage: run.js [--reps N] [--sizes 1000,10000] [--shapes ${Object.keys(TREE_SHAPES).slice(1).join(',')}] [--cli FILE] [--json FILE] [--keep] [--instructions]`,
    );
  }
  return { values, repetitions, sizes, shapes };
}

async function main(): Promise<void> {
  const { values, repetitions, sizes, shapes } = benchOptions();
  const cli = values.cli === undefined ? binOf(CHECKOUT) : path.resolve(values.cli);
  const valgrind = values.instructions ? findTool('valgrind') : undefined;
  if (values.instructions && valgrind === undefined) throw new Error('--instructions needs valgrind (apt-get install valgrind)');
  const apache2 = findTool('apache2');
  const withRss = gnuTimeAvailable();
  const scratch = scratchDirectory();
  const progress = (text: string): boolean => process.stderr.write(`${text}\n`);
  try {
    progress(`building trees in ${scratch}`);
    const debian = copyDebianTree(scratch);
    // An empty working directory: no .tune-lint.yaml above it, and paths into the trees print absolute.
    const workDir = path.join(scratch, 'cwd');
    fs.mkdirSync(workDir);
    const trees: ApacheTree[] = [
      {
        key: 'debian',
        label: 'Debian stock (copy, --sysroot)',
        serverRoot: path.dirname(debian.apacheConf),
        conf: debian.apacheConf,
        sysroot: debian.root,
        vhosts: undefined,
      },
      ...sizes.map((size): ApacheTree => {
        const tree = buildVhostTree(scratch, size);
        return {
          key: `vhosts-${size}`,
          label: `${size.toLocaleString('en-US')} vhosts`,
          serverRoot: tree.serverRoot,
          conf: tree.apacheConf,
          sysroot: undefined,
          vhosts: size,
        };
      }),
      ...shapes.map((shape): ApacheTree => {
        const size = Math.max(...sizes);
        const tree = buildVhostTree(scratch, size, shape);
        return {
          key: `${shape}-${size}`,
          label: `${size.toLocaleString('en-US')} vhosts, ${shape}`,
          serverRoot: tree.serverRoot,
          conf: tree.apacheConf,
          sysroot: undefined,
          vhosts: size,
          shape,
          webRoot: tree.webRoot,
        };
      }),
    ];

    const node = process.execPath;
    const sysrootArgs = (tree: ApacheTree): string[] => (tree.sysroot === undefined ? [] : ['--sysroot', tree.sysroot]);
    const commands: BenchCommand[] = [
      { id: 'spawn', argv: ['/bin/true'], okExitCodes: [0] },
      { id: 'node', argv: [node, '-e', '0'], okExitCodes: [0] },
      {
        id: 'lint/debian+mysql',
        argv: [node, cli, '--no-probe', '--format', 'json', '--sysroot', debian.root, debian.apacheConf, debian.myCnf],
        okExitCodes: [0, 1],
      },
      {
        id: 'lint/config-repo',
        argv: [node, cli, '--no-probe', '--format', 'json', '--sysroot', '.', 'etc/apache2/apache2.conf', 'etc/mysql/my.cnf'],
        cwd: debian.repository,
        okExitCodes: [0, 1],
      },
      {
        id: 'lint/live-etc',
        argv: [node, cli, '--no-probe', '--format', 'json', '/etc/apache2/apache2.conf', '/etc/mysql/my.cnf'],
        okExitCodes: [0, 1],
      },
      // As a user runs it on a live server: this machine probed (`--no-live`: a server this machine runs is not asked).
      {
        id: PROBED_LIVE_ETC,
        argv: [node, cli, '--no-live', '--format', 'json', '/etc/apache2/apache2.conf', '/etc/mysql/my.cnf'],
        okExitCodes: [0, 1],
      },
    ];
    for (const tree of trees) {
      if (tree.key !== 'debian') {
        commands.push({ id: `lint/${tree.key}`, argv: [node, cli, '--no-probe', '--format', 'json', tree.conf], okExitCodes: [0, 1] });
      }
      if (tree.shape === 'small-files') {
        commands.push({ id: probedId(tree.key), argv: [node, cli, '--no-live', '--format', 'json', tree.conf], okExitCodes: [0, 1] });
        if (tree.webRoot !== undefined) {
          const profile = sitesOnNfsProfile(workDir, tree.webRoot);
          commands.push({
            id: sitesOnNfsId(tree.key),
            argv: [node, cli, '--profile', profile, '--format', 'json', tree.conf],
            okExitCodes: [0, 1],
          });
        }
      }
      commands.push({ id: `dump/${tree.key}`, argv: [node, cli, 'dump', ...sysrootArgs(tree), tree.conf, '--json'], okExitCodes: [0] });
      if (apache2 !== undefined) commands.push({ id: `apache2/${tree.key}`, ...apacheCommand(apache2, tree) });
    }

    progress('checking every command once');
    const treeInfo =
      apache2 === undefined
        ? trees.map((tree) => describeTree(cli, tree, undefined, workDir).info)
        : trees.map((tree) => verifyTree(cli, tree, apache2, workDir));
    for (const id of ['lint/debian+mysql', 'lint/config-repo'])
      verifyLint(commands.find((command) => command.id === id) as BenchCommand, workDir);

    const runner = new Runner(withRss, scratch, workDir);
    const loadBefore = os.loadavg();
    progress('warm-up round');
    await measureRounds(runner, commands, 1, () => undefined);
    const started = Date.now();
    const samples = await measureRounds(runner, commands, repetitions, (round) => progress(`round ${round}/${repetitions}`));
    const loadAfter = os.loadavg();
    runner.close();
    const instructions = new Map<string, number>();
    if (valgrind !== undefined) {
      const counted = ['node', 'lint/debian+mysql', 'lint/config-repo', 'lint/live-etc', `lint/vhosts-${Math.min(...sizes)}`];
      for (const command of commands.filter((candidate) => counted.includes(candidate.id))) {
        progress(`counting instructions: ${command.id}`);
        instructions.set(command.id, countInstructions(valgrind, command, workDir));
      }
    }

    const machine: MachineInfo = {
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cpus: os.availableParallelism(),
      memoryGiB: os.totalmem() / 2 ** 30,
      node: process.version,
      apache: apache2 === undefined ? undefined : apacheVersion(apache2),
      kernel: `${os.type()} ${os.release()}`,
      loadBefore,
      loadAfter,
      seconds: (Date.now() - started) / 1000,
      repetitions,
      rss: withRss,
      measured: describeBuild(CHECKOUT, cli),
      extraCaCerts: process.env.NODE_EXTRA_CA_CERTS,
    };
    process.stdout.write(formatReport({ machine, trees: treeInfo, samples, sizes, shapes, instructions }));
    if (values.json !== undefined) {
      const raw = Object.fromEntries([...samples].map(([id, list]) => [id, list]));
      const counts = Object.fromEntries(instructions);
      fs.writeFileSync(values.json, `${JSON.stringify({ machine, trees: treeInfo, samples: raw, instructions: counts }, null, 2)}\n`);
    }
  } finally {
    if (values.keep) progress(`trees kept in ${scratch}`);
    else fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** `apache2 -d ROOT -f FILE -t` with the tree's envvars exported, as apache2ctl runs it (see test/helpers/apache-oracle.ts). */
function apacheCommand(binary: string, tree: ApacheTree, extra: readonly string[] = []): Omit<BenchCommand, 'id'> {
  const envvars = path.join(tree.serverRoot, 'envvars');
  const exported = fs.existsSync(envvars) ? readEnvvars(fs.readFileSync(envvars, 'utf8'), { PATH: CHILD_PATH }) : {};
  return {
    argv: [binary, '-d', tree.serverRoot, '-f', path.basename(tree.conf), '-t', ...extra],
    env: { PATH: CHILD_PATH, LANG: 'C', ...exported },
    okExitCodes: [0],
  };
}

/**
 * Both readers must agree on what they read before their speed means
 * anything: the same files in the same order (Apache's paths into the copy
 * mapped back to server paths for the sysroot tree).
 */
function verifyTree(cli: string, tree: ApacheTree, apache2: string, workDir: string): TreeInfo {
  const command = apacheCommand(apache2, tree, ['-D', 'DUMP_INCLUDES']);
  const apache = spawnSync(command.argv[0] as string, command.argv.slice(1), { env: command.env, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (apache.status !== 0) {
    throw new Error(`apache2 -t rejects the ${tree.label} tree:\n${apache.stderr}`);
  }
  const toServerPath = (file: string): string =>
    tree.sysroot !== undefined && file.startsWith(`${tree.sysroot}/`) ? file.slice(tree.sysroot.length) : file;
  const apacheFiles = parseDumpIncludes(apache.stdout).map((include) => toServerPath(include.file));
  const { info, files } = describeTree(cli, tree, apacheFiles, workDir);
  const ours = files.map(toServerPath);
  if (ours.length !== apacheFiles.length || ours.some((file, index) => file !== apacheFiles[index])) {
    const first = ours.findIndex((file, index) => file !== apacheFiles[index]);
    throw new Error(
      `${tree.label}: tune-lint reads ${ours.length} files, apache2 ${apacheFiles.length}; first difference at #${first}: ${ours[first]} vs ${apacheFiles[first]}`,
    );
  }
  return info;
}

function describeTree(
  cli: string,
  tree: ApacheTree,
  apacheFiles: readonly string[] | undefined,
  workDir: string,
): { info: TreeInfo; files: string[] } {
  const dump = spawnSync(
    process.execPath,
    [cli, 'dump', ...(tree.sysroot === undefined ? [] : ['--sysroot', tree.sysroot]), tree.conf, '--json'],
    {
      cwd: workDir,
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    },
  );
  if (dump.status !== 0) throw new Error(`tune-lint dump fails on the ${tree.label} tree:\n${dump.stderr}`);
  const files = (JSON.parse(dump.stdout) as { files: { path: string }[] }).files.map((file) => file.path);
  let lines = 0;
  let bytes = 0;
  for (const file of files) {
    // dump prints host paths (the copy's, under the sysroot) for files outside the working directory.
    const text = fs.readFileSync(file, 'latin1');
    bytes += text.length;
    lines += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  }
  const info = {
    key: tree.key,
    label: tree.label,
    vhosts: tree.vhosts,
    fileCount: files.length,
    lines,
    bytes,
    checkedAgainstApache: apacheFiles !== undefined,
  };
  return { info, files };
}

function verifyLint(command: BenchCommand, workDir: string): void {
  const run = spawnSync(command.argv[0] as string, command.argv.slice(1), {
    cwd: command.cwd ?? workDir,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (run.status === null || !command.okExitCodes.includes(run.status)) throw new Error(`${command.id} failed:\n${run.stderr}`);
  const report = JSON.parse(run.stdout) as { results: { language: string }[] };
  const languages = new Set(report.results.map((result) => result.language));
  if (!languages.has('apache') || !languages.has('mycnf'))
    throw new Error(`${command.id}: expected Apache and my.cnf results, got ${[...languages].join(', ')}`);
}

function apacheVersion(binary: string): string {
  const run = spawnSync(binary, ['-v'], { encoding: 'utf8', env: { PATH: CHILD_PATH, LANG: 'C' } });
  return /^Server version: (.*)$/m.exec(run.stdout)?.[1] ?? 'unknown';
}

await runMain(main);

/**
 * A host profile whose sites are on NFS, as on a hosting cluster with shared
 * storage: the network-filesystem rules then have a finding and a fix for
 * every vhost (an `EnableMMAP Off` in each site's file).
 */
function sitesOnNfsProfile(workDir: string, webRoot: string): string {
  const file = path.join(workDir, 'sites-on-nfs.yaml');
  const mounts = [
    { mountPoint: '/', fsType: 'ext4', source: '/dev/vda1' },
    { mountPoint: webRoot, fsType: 'nfs4', source: 'nas:/export/www' },
  ];
  fs.writeFileSync(file, `ram: 64G\ncpus: 16\nmounts: ${JSON.stringify(mounts)}\n`);
  return file;
}
