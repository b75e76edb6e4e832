import { median, pairedRatio, roundRatios, type Sample } from './measure.js';
import type { TreeShape } from './trees.js';

export interface MachineInfo {
  readonly cpu: string;
  readonly cpus: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly apache: string | undefined;
  readonly kernel: string;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly seconds: number;
  readonly repetitions: number;
  readonly rss: boolean;
  /** Which build of the CLI was timed (file, commit). */
  readonly measured: string;
  /** NODE_EXTRA_CA_CERTS, when set: every Node process, `node -e 0` included, parses it before running a line. */
  readonly extraCaCerts: string | undefined;
}

export interface TreeInfo {
  readonly key: string;
  readonly label: string;
  readonly vhosts: number | undefined;
  readonly fileCount: number;
  readonly lines: number;
  readonly bytes: number;
  /** tune-lint read the same files in the same order as `apache2 -t -D DUMP_INCLUDES`. */
  readonly checkedAgainstApache: boolean;
}

export interface ReportInput {
  readonly machine: MachineInfo;
  readonly trees: readonly TreeInfo[];
  readonly samples: ReadonlyMap<string, readonly Sample[]>;
  readonly sizes: readonly number[];
  /** The tree shapes measured at the largest size beside the proxy one (bench/trees.ts). */
  readonly shapes: readonly TreeShape[];
  /** Millions of instructions by command id (--instructions); empty when not counted. */
  readonly instructions: ReadonlyMap<string, number>;
}

/**
 * Lints as a user runs them on a live server, with this machine probed
 * (`--no-live`, so that a server it runs is not asked): beside the rows of
 * tune-lint alone, what the probe adds (the servers' binaries asked for
 * their versions, the rules that read host facts).
 */
export const PROBED_LIVE_ETC = 'lint-probed/live-etc';

export function probedId(treeKey: string): string {
  return `lint-probed/${treeKey}`;
}

/** The lint of a tree for a host whose sites are on NFS (a host profile): a finding and a fix per vhost. */
export function sitesOnNfsId(treeKey: string): string {
  return `lint-nfs/${treeKey}`;
}

/** The Markdown report: machine, trees, times with ratios, scaling, and the issue's targets. */
export function formatReport({ machine, trees, samples, sizes, shapes, instructions }: ReportInput): string {
  const out: string[] = [];
  const wall = (id: string): number => median((samples.get(id) ?? []).map((sample) => sample.wallMs));
  const rss = (id: string): number | undefined => rssOf(samples, id);
  const cpu = (id: string): number | undefined => {
    const values = (samples.get(id) ?? []).flatMap((sample) => (sample.cpuMs === undefined ? [] : [sample.cpuMs]));
    return values.length === 0 ? undefined : median(values);
  };
  const ratio = (a: string, b: string): number | undefined => pairedRatioOf(samples, a, b);
  // How far single rounds were from the median: on a shared machine a target's verdict can turn on the load.

  const load = (values: readonly number[]): string => values.map((value) => value.toFixed(2)).join(' ');
  out.push(
    `Machine: ${machine.cpu}, ${machine.cpus} CPUs, ${machine.memoryGiB.toFixed(1)} GiB RAM, ${machine.kernel}; Node ${machine.node}` +
      `${machine.apache === undefined ? '; apache2 not installed' : `; ${machine.apache}`}.`,
    `tune-lint: ${machine.measured}.`,
    ...(machine.extraCaCerts === undefined
      ? []
      : [
          `NODE_EXTRA_CA_CERTS=${machine.extraCaCerts}: every Node process, \`node -e 0\` included, parses it at start, which raises the floor.`,
        ]),
    `${machine.repetitions} round${machine.repetitions === 1 ? '' : 's'} after one warm-up, every command once per round (${machine.seconds.toFixed(0)} s); ` +
      `load average ${load(machine.loadBefore)} before, ${load(machine.loadAfter)} after.`,
    '',
    '| Tree | Files read | Lines | Bytes | Same files as `apache2 -D DUMP_INCLUDES` |',
    '|---|---:|---:|---:|---|',
  );
  for (const tree of trees) {
    out.push(
      `| ${tree.label} | ${int(tree.fileCount)} | ${int(tree.lines)} | ${int(tree.bytes)} | ${tree.checkedAgainstApache ? 'yes' : 'not checked'} |`,
    );
  }

  out.push(
    '',
    'Wall and CPU (user + system) time are medians over the rounds; the ratios are medians of the per-round ratios of wall time (both commands ran in the same round).',
    '',
    '| Command | Tree | Wall (ms) | CPU (ms) | Peak RSS (MiB) | × `node -e 0` | × `apache2 -t` |',
    '|---|---|---:|---:|---:|---:|---:|',
  );
  const row = (label: string, tree: string, id: string, apacheId?: string): void => {
    if (!samples.has(id)) return;
    const versusNode = id === 'node' || id === 'spawn' ? undefined : ratio(id, 'node');
    const versusApache = apacheId === undefined || apacheId === id ? undefined : ratio(id, apacheId);
    out.push(`| ${label} | ${tree} | ${ms(wall(id))} | ${ms(cpu(id))} | ${mib(rss(id))} | ${times(versusNode)} | ${times(versusApache)} |`);
  };
  row('`true` (spawn + GNU time)', '—', 'spawn');
  row('`node -e 0`', '—', 'node');
  row('tune-lint (lint)', 'Debian Apache + MariaDB (copy, `--sysroot`)', 'lint/debian+mysql', 'apache2/debian');
  row('tune-lint (lint)', 'the same as a config repository with `.tune-lint.yaml` (host facts)', 'lint/config-repo', 'apache2/debian');
  row('tune-lint (lint)', 'Debian Apache + MariaDB (live `/etc`)', 'lint/live-etc', 'apache2/debian');
  row('tune-lint (lint, this machine probed)', 'Debian Apache + MariaDB (live `/etc`)', PROBED_LIVE_ETC, 'apache2/debian');
  for (const tree of trees) {
    row('tune-lint (lint)', tree.label, `lint/${tree.key}`, `apache2/${tree.key}`);
    row('tune-lint (lint, this machine probed)', tree.label, probedId(tree.key), `apache2/${tree.key}`);
    row('tune-lint (lint, sites on NFS: `--profile`)', tree.label, sitesOnNfsId(tree.key), `apache2/${tree.key}`);
    row('tune-lint dump', tree.label, `dump/${tree.key}`, `apache2/${tree.key}`);
    row('`apache2 -t`', tree.label, `apache2/${tree.key}`);
  }

  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  if (sizes.length > 1) {
    const ordered = [...sizes].sort((a, b) => a - b);
    out.push(
      '',
      `Scaling: wall time (ms) by number of vhosts; the last columns are ${int(largest)} over ${int(smallest)} vhosts (${(largest / smallest).toFixed(0)}x the vhosts) and the marginal cost of one more vhost.`,
      '',
      `| Command | ${ordered.map(int).join(' | ')} | ${int(largest)} / ${int(smallest)} | µs per vhost |`,
      `|---|${ordered.map(() => '---:').join('|')}|---:|---:|`,
    );
    for (const [label, prefix] of [
      ['tune-lint (lint)', 'lint'],
      ['tune-lint dump', 'dump'],
      ['`apache2 -t`', 'apache2'],
    ] as const) {
      if (!samples.has(`${prefix}/vhosts-${largest}`)) continue;
      const cells = ordered.map((size) => ms(wall(`${prefix}/vhosts-${size}`)));
      const growth = ratio(`${prefix}/vhosts-${largest}`, `${prefix}/vhosts-${smallest}`);
      const perVhost = ((wall(`${prefix}/vhosts-${largest}`) - wall(`${prefix}/vhosts-${smallest}`)) / (largest - smallest)) * 1000;
      out.push(`| ${label} | ${cells.join(' | ')} | ${times(growth)} | ${perVhost.toFixed(0)} |`);
    }
  }

  if (instructions.size > 0) {
    // Against Node's floor only: Apache spends its time in system calls, which callgrind does not count.
    out.push(
      '',
      "Instructions (millions) under valgrind's callgrind, Node with `--predictable`: the same in every run whatever the load, so these ratios do not move.",
      '',
      '| Command | Tree | Instructions (M) | × `node -e 0` |',
      '|---|---|---:|---:|',
    );
    const floor = instructions.get('node');
    const counted = (label: string, tree: string, id: string): void => {
      const count = instructions.get(id);
      if (count === undefined) return;
      out.push(
        `| ${label} | ${tree} | ${int(Math.round(count))} | ${times(id === 'node' || floor === undefined ? undefined : count / floor)} |`,
      );
    };
    counted('`node -e 0`', '—', 'node');
    counted('tune-lint (lint)', 'Debian Apache + MariaDB (copy, `--sysroot`)', 'lint/debian+mysql');
    counted('tune-lint (lint)', 'the same as a config repository with `.tune-lint.yaml` (host facts)', 'lint/config-repo');
    counted('tune-lint (lint)', 'Debian Apache + MariaDB (live `/etc`)', 'lint/live-etc');
    const smallestTree = trees.find((tree) => tree.vhosts === Math.min(...sizes));
    if (smallestTree !== undefined) counted('tune-lint (lint)', smallestTree.label, `lint/${smallestTree.key}`);
  }

  out.push('', 'Targets:', '', ...targets({ trees, samples, sizes, shapes, instructions }));
  return `${out.join('\n')}\n`;
}

/** The issue's targets, each met, missed or not measured, with the numbers. */
function targets({ trees, samples, sizes, shapes, instructions }: Omit<ReportInput, 'machine'>): string[] {
  const out: string[] = [];
  const ratio = (a: string, b: string): number | undefined => pairedRatioOf(samples, a, b);
  const spread = (a: string, b: string): string => spreadOf(samples, a, b);
  const rss = (id: string): number | undefined => rssOf(samples, id);
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  const check = (ok: boolean | undefined, text: string): void => {
    out.push(`- ${ok === undefined ? 'not measured' : ok ? 'met' : 'MISSED'}: ${text}`);
  };
  const startup = ratio('lint/debian+mysql', 'node');
  const nodeCount = instructions.get('node');
  const lintCount = instructions.get('lint/debian+mysql');
  const startupCount = nodeCount === undefined || lintCount === undefined ? undefined : lintCount / nodeCount;
  check(
    startupCount === undefined ? undefined : startupCount <= 1.35,
    `stock Debian Apache + MariaDB linted in ${times(startupCount)} the instructions of \`node -e 0\` (at most 1.35x; wall ${times(startup)}${spread('lint/debian+mysql', 'node')})`,
  );
  for (const key of [`vhosts-${largest}`, ...shapes.map((shape) => `${shape}-${largest}`)]) {
    const label = trees.find((tree) => tree.key === key)?.label ?? key;
    const versusApache = ratio(`lint/${key}`, `apache2/${key}`);
    check(
      versusApache === undefined ? undefined : versusApache <= 0.7,
      `${label}: linted in ${times(versusApache)} the time of \`apache2 -t\` (at most 0.7x${spread(`lint/${key}`, `apache2/${key}`)})`,
    );
    const ourRss = rss(`lint/${key}`);
    const apacheRss = rss(`apache2/${key}`);
    check(
      ourRss === undefined || apacheRss === undefined ? undefined : ourRss < apacheRss,
      `${label}: peak RSS ${mib(ourRss)} MiB against Apache's ${mib(apacheRss)} MiB`,
    );
  }
  const big = `vhosts-${largest}`;
  if (sizes.length > 1) {
    const growth = ratio(`lint/${big}`, `lint/vhosts-${smallest}`);
    const factor = largest / smallest;
    check(
      growth === undefined ? undefined : growth <= factor * 1.1,
      `${factor.toFixed(0)}x the vhosts costs ${times(growth)} the time (at most ${(factor * 1.1).toFixed(0)}x)`,
    );
  }
  return out;
}

type Samples = ReadonlyMap<string, readonly Sample[]>;

function pairedRatioOf(samples: Samples, a: string, b: string): number | undefined {
  const first = samples.get(a);
  const second = samples.get(b);
  return first === undefined || second === undefined ? undefined : pairedRatio(first, second);
}

/** The lowest and highest per-round ratio, for a target's line. */
function spreadOf(samples: Samples, a: string, b: string): string {
  const first = samples.get(a);
  const second = samples.get(b);
  if (first === undefined || second === undefined) return '';
  const ratios = roundRatios(first, second);
  return ratios.length < 2 ? '' : `; single rounds ${times(Math.min(...ratios))} to ${times(Math.max(...ratios))}`;
}

/** Median peak RSS in MiB, when GNU time measured it. */
function rssOf(samples: Samples, id: string): number | undefined {
  const values = (samples.get(id) ?? []).flatMap((sample) => (sample.maxRssKiB === undefined ? [] : [sample.maxRssKiB]));
  return values.length === 0 ? undefined : median(values) / 1024;
}

function int(value: number): string {
  return value.toLocaleString('en-US');
}

function ms(value: number | undefined): string {
  return value === undefined || Number.isNaN(value) ? '—' : value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

function mib(value: number | undefined): string {
  return value === undefined ? '—' : value.toFixed(1);
}

function times(value: number | undefined): string {
  return value === undefined ? '—' : `${value.toFixed(2)}x`;
}
