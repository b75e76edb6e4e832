import type { Document, Node as YamlNode } from 'yaml';
import type { ChildMemory, Fact, HostFacts, MountEntry } from './facts.js';
import { HOST_FACT_NAMES, HostFactsError, type HostFactName } from './facts.js';
import { readHostInput } from './input-file.js';
import type { Located, LocatedEntry } from './values.js';
import { hostFactsFromLocated, locatePlain } from './values.js';
import { KIB } from '../util/units.js';

type YamlModule = typeof import('yaml');

/**
 * Host facts from a profile file (`--profile host.yaml`): a YAML mapping with
 * the keys of the `host:` section of .tune-lint.yaml. Unknown keys, wrong
 * types and YAML syntax errors are HostFactsErrors naming file:line:col.
 */
export async function loadHostProfile(filePath: string): Promise<HostFacts> {
  const file = readHostInput(filePath, '--profile');
  return parseHostProfile(file.text, file.displayPath);
}

/** The same as loadHostProfile, for text already in hand; `displayPath` names it in sources and errors. */
export async function parseHostProfile(text: string, displayPath: string): Promise<HostFacts> {
  const yaml: YamlModule = await import('yaml');
  const lineCounter = new yaml.LineCounter();
  const document = yaml.parseDocument(text, { lineCounter, prettyErrors: false });
  const where = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${displayPath}:${line}:${col}`;
  };
  const syntaxError = document.errors[0];
  if (syntaxError !== undefined) throw new HostFactsError(`${where(syntaxError.pos[0])}: ${syntaxError.message}`);
  if (document.contents === null) {
    throw new HostFactsError(`${displayPath}:1:1: the profile is empty; expected host facts such as ram: 2G, cpus: 2, perChild: 40M`);
  }
  const root = locateYaml(yaml, document, document.contents, where);
  return hostFactsFromLocated(root, `profile ${displayPath}`);
}

/**
 * A YAML node as a Located tree for the host-fact checks; `where` turns an
 * offset into `file:line:col`. The config loader uses it for the `host:`
 * section of .tune-lint.yaml, so its errors carry positions as a profile's do.
 */
export function locateYaml(yaml: YamlModule, document: Document, node: YamlNode, where: (offset: number) => string): Located {
  const resolved = yaml.isAlias(node) ? (node.resolve(document) ?? node) : node;
  const position = where(node.range?.[0] ?? 0);
  if (yaml.isMap(resolved)) {
    const entries: LocatedEntry[] = resolved.items.map((pair) => {
      const keyNode = pair.key;
      const keyWhere = yaml.isNode(keyNode) ? where(keyNode.range?.[0] ?? 0) : position;
      const key = yaml.isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const value: Located = yaml.isNode(pair.value) ? locateYaml(yaml, document, pair.value, where) : { value: null, where: keyWhere };
      return { key, keyWhere, value };
    });
    return { value: {}, where: position, entries };
  }
  if (yaml.isSeq(resolved)) {
    const items = resolved.items.map((item) =>
      yaml.isNode(item) ? locateYaml(yaml, document, item, where) : { value: item, where: position },
    );
    return { value: [], where: position, items };
  }
  return { value: yaml.isScalar(resolved) ? resolved.value : null, where: position };
}

/** Host facts from plain values (no positions), e.g. test settings; errors name `source` and the key path. */
export function hostFactsFromConfig(values: Record<string, unknown>, source: string): HostFacts {
  return hostFactsFromLocated(locatePlain(values, source), source, 'host.');
}

const UNITS: readonly (readonly [string, number])[] = [
  ['G', KIB ** 3],
  ['M', KIB ** 2],
  ['K', KIB],
];

/** A size as the shortest exact text the profile loader reads back: `256M`, `24683656K`, or bytes. */
function sizeText(bytes: number): string {
  for (const [unit, factor] of UNITS) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return String(bytes);
}

/** Kernel pseudo filesystems: never where a DocumentRoot lives, only noise in a profile meant for a config repo. */
const PSEUDO_FILESYSTEMS = new Set([
  'proc',
  'sysfs',
  'cgroup',
  'cgroup2',
  'devpts',
  'devtmpfs',
  'mqueue',
  'debugfs',
  'tracefs',
  'securityfs',
  'pstore',
  'bpf',
  'configfs',
  'fusectl',
  'hugetlbfs',
  'autofs',
  'binfmt_misc',
  'rpc_pipefs',
  'nsfs',
  'efivarfs',
  'selinuxfs',
]);

/** A YAML string that is always read back as the same string: JSON's escapes are valid in YAML double quotes. */
function quoted(text: string): string {
  return JSON.stringify(text);
}

function comment(source: string): string {
  return `  # ${source.replace(/[\r\n]+/g, ' ')}`;
}

/**
 * The facts as a profile file (`tune-lint probe --yaml`): every value exact,
 * so `--profile` reads back the same facts, with each source as a comment.
 * Kernel pseudo filesystems are left out of the mount list.
 */
export async function hostFactsToProfileYaml(facts: HostFacts): Promise<string> {
  const yaml: YamlModule = await import('yaml');
  const lines = ['# tune-lint host profile: use with --profile FILE, or copy the keys under host: in .tune-lint.yaml.'];
  for (const name of HOST_FACT_NAMES) {
    const fact = facts[name] as Fact<unknown> | undefined;
    if (fact === undefined) continue;
    lines.push(...factYaml(yaml, name, fact));
  }
  for (const note of facts.notes ?? []) lines.push(`# note: ${note.replace(/[\r\n]+/g, ' ')}`);
  return `${lines.join('\n')}\n`;
}

const SIZE_FACTS: ReadonlySet<HostFactName> = new Set(['ram', 'swap', 'mysqlRss']);
const PLAIN_FACTS: ReadonlySet<HostFactName> = new Set([
  'cpus',
  'somaxconn',
  'apacheRunning',
  'mysqlRunning',
  'httpdVersion',
  'databaseServer',
]);

/** One fact as profile lines: the key, its value and its source as a comment. */
function factYaml(yaml: YamlModule, name: HostFactName, fact: Fact<unknown>): string[] {
  const lines: string[] = [];
  if (name === 'mysqlLive' || name === 'apacheLive' || name === 'oomKills') {
    return liveFactYaml(yaml, name, fact);
  }
  if (SIZE_FACTS.has(name)) return [`${name}: ${sizeText(fact.value as number)}${comment(fact.source)}`];
  if (PLAIN_FACTS.has(name)) return [`${name}: ${String(fact.value)}${comment(fact.source)}`];
  switch (name) {
    case 'perChild':
    case 'phpPerChild': {
      const child = fact.value as ChildMemory;
      lines.push(`${name}:${comment(fact.source)}`);
      lines.push(`  median: ${sizeText(child.median)}`, `  max: ${sizeText(child.max)}`);
      if (child.p90 !== undefined) lines.push(`  p90: ${sizeText(child.p90)}`);
      lines.push(`  count: ${child.count}`);
      if (child.busy !== undefined) lines.push(`  busy: ${child.busy}`);
      lines.push(`  metric: ${child.metric}`);
      if (child.measuredOn?.mpm !== undefined) lines.push(`  mpm: ${child.measuredOn.mpm}`);
      if (child.measuredOn !== undefined) lines.push(`  php: ${String(child.measuredOn.php)}`);
      break;
    }
    case 'mounts': {
      const mounts = (fact.value as readonly MountEntry[]).filter((mount) => !PSEUDO_FILESYSTEMS.has(mount.fsType));
      lines.push(mounts.length === 0 ? `mounts: []${comment(fact.source)}` : `mounts:${comment(fact.source)}`);
      for (const mount of mounts) {
        lines.push(`  - { mountPoint: ${quoted(mount.mountPoint)}, fsType: ${quoted(mount.fsType)}, source: ${quoted(mount.source)} }`);
      }
      break;
    }
  }
  return lines;
}

/**
 * What the running servers and the kernel log said, written by yaml itself:
 * every string that would read back as something else (`"10"`, `"ON"`, an
 * empty mapping) is quoted or written `{}`, so --profile reads back the same.
 */
function liveFactYaml(yaml: YamlModule, name: 'mysqlLive' | 'apacheLive' | 'oomKills', fact: Fact<unknown>): string[] {
  const [first = '', ...rest] = yaml
    .stringify({ [name]: fact.value }, { lineWidth: 0, sortMapEntries: false, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' })
    .trimEnd()
    .split('\n');
  return [`${first}${comment(fact.source)}`, ...rest];
}
