import { parseTargetSpec } from '../core/targets.js';
import { editDistance } from '../util/nearest-name.js';
import { formatBytes, MIB, parseFriendlySize } from '../util/units.js';
import type { ChildMemory, Fact, HostFactName, HostFacts, MountEntry } from './facts.js';
import { HOST_FACT_NAMES, HostFactsError } from './facts.js';
import { readApacheLive, readMysqlLive, readOomKills } from './live-values.js';
import type { Located, LocatedEntry } from './located.js';

export type { Located, LocatedEntry } from './located.js';

/** Wraps plain values (no positions) so they go through the same checks as a profile. */
export function locatePlain(value: unknown, where: string): Located {
  if (Array.isArray(value)) return { value, where, items: value.map((item) => locatePlain(item, where)) };
  if (isPlainObject(value)) {
    return {
      value,
      where,
      entries: Object.entries(value).map(([key, child]) => ({ key, keyWhere: where, value: locatePlain(child, where) })),
    };
  }
  return { value, where };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Result of checking one value: the parsed value, or what is wrong with it (no location; the caller adds that). */
export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

function fail<T>(problem: string): Checked<T> {
  return { ok: false, problem };
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? String(value) : typeof value;
}

/** Smallest plausible figure per kind of size: a bare `512` is 512 bytes, which nobody means for RAM. */
const MINIMUM_SIZE = { RAM: 16 * MIB, 'per-child memory': 64 * 1024, swap: 0, 'MySQL RSS': 0 } as const;
export type SizeKind = keyof typeof MINIMUM_SIZE;

/** 1 PiB: the largest hosts have tens of TiB; beyond 2^53 a number no longer holds every byte count exactly. */
const MAXIMUM_SIZE = 2 ** 50;

/** A size written by a person: `512M`, `1.5G`, `20MiB`, or a number of bytes. */
export function checkSize(value: unknown, kind: SizeKind): Checked<number> {
  let bytes: number | undefined;
  if (typeof value === 'number') bytes = Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
  else if (typeof value === 'string') bytes = parseFriendlySize(value);
  if (bytes === undefined) return fail(`expected a size such as 512M or 2G, got ${shown(value)}`);
  const minimum = MINIMUM_SIZE[kind];
  if (bytes < minimum) {
    return fail(`${formatBytes(bytes)} is too small for ${kind} (sizes without a unit are bytes); write a unit, e.g. 512M`);
  }
  if (bytes > MAXIMUM_SIZE) return fail(`${shown(value)} is more ${kind} than any host has (at most ${formatBytes(MAXIMUM_SIZE)})`);
  return { ok: true, value: bytes };
}

/** A CPU count written as text; a count may also be a number. */
export const CPUS_TEXT = /^\s*\d+(\.\d+)?\s*$/;
/** A whole number written as text. */
export const WHOLE_NUMBER_TEXT = /^\s*\d+\s*$/;

/** Linux's NR_CPUS at its largest (x86_64 MAXSMP). */
const MAXIMUM_CPUS = 8192;

/** A CPU count; fractions are allowed because a cgroup quota of 1.5 CPUs is a real limit. */
export function checkCpus(value: unknown): Checked<number> {
  const number = typeof value === 'number' ? value : typeof value === 'string' && CPUS_TEXT.test(value) ? Number(value) : NaN;
  if (Number.isNaN(number) || !Number.isFinite(number))
    return fail(`expected a number of CPUs written as digits, such as 2 or 1.5, got ${shown(value)}`);
  if (number <= 0) return fail(`expected a number of CPUs greater than 0, such as 2 or 1.5, got ${shown(value)}`);
  if (number > MAXIMUM_CPUS) return fail(`${shown(value)} is more CPUs than Linux supports (at most ${MAXIMUM_CPUS})`);
  return { ok: true, value: number };
}

function checkPositiveInteger(value: unknown): Checked<number> {
  const number = typeof value === 'number' ? value : typeof value === 'string' && WHOLE_NUMBER_TEXT.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number <= 0) return fail(`expected a whole number greater than 0, got ${shown(value)}`);
  return { ok: true, value: number };
}

function checkHttpdVersion(value: unknown): Checked<string> {
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' && /^2\.[24](\.\d+)?$/.test(text.trim())
    ? { ok: true, value: text.trim() }
    : fail(`expected an httpd release like 2.4.71, got ${shown(value)}`);
}

/** `mariadb=10.11.19`, `mysql=8.0.36`: what --target takes for the database. */
function checkDatabaseServer(value: unknown): Checked<string> {
  if (typeof value !== 'string' || !/^(mysql|mariadb)=/i.test(value.trim())) {
    return fail(`expected the server as a target, like mariadb=10.11.19 or mysql=8.0.36, got ${shown(value)}`);
  }
  try {
    parseTargetSpec(value.trim());
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  return { ok: true, value: value.trim().toLowerCase() };
}

function checkBoolean(value: unknown): Checked<boolean> {
  return typeof value === 'boolean' ? { ok: true, value } : fail(`expected true or false, got ${shown(value)}`);
}

function at(where: string, keyPath: string, problem: string): HostFactsError {
  return new HostFactsError(`${where}: ${keyPath}: ${problem}`);
}

function take<T>(checked: Checked<T>, where: string, keyPath: string): T {
  if (!checked.ok) throw at(where, keyPath, checked.problem);
  return checked.value;
}

/** Keys are compared without case, dashes and underscores to suggest `perChild` for `per_child`. */
function suggestion(key: string, known: readonly string[]): string {
  const squash = (text: string) => text.toLowerCase().replace(/[-_]/g, '');
  const close = known.find((name) => squash(name) === squash(key)) ?? known.find((name) => editDistance(squash(name), squash(key), 2) <= 2);
  return close === undefined ? `expected one of ${known.join(', ')}` : `did you mean ${close}?`;
}

function checkKeys(node: Located, known: readonly string[], keyPath: string): ReadonlyMap<string, LocatedEntry> {
  const byKey = new Map<string, LocatedEntry>();
  for (const entry of node.entries ?? []) {
    const path = keyPath === '' ? entry.key : `${keyPath}.${entry.key}`;
    if (!known.includes(entry.key)) throw at(entry.keyWhere, path, `unknown key; ${suggestion(entry.key, known)}`);
    byKey.set(entry.key, entry);
  }
  return byKey;
}

export const PER_CHILD_KEYS = ['median', 'max', 'p90', 'count', 'busy', 'metric', 'mpm', 'php'] as const;
export const MOUNT_KEYS = ['mountPoint', 'fsType', 'source'] as const;

function checkPerChild(node: Located, keyPath: string): ChildMemory {
  if (node.entries === undefined) {
    const bytes = take(checkSize(node.value, 'per-child memory'), node.where, keyPath);
    return { median: bytes, max: bytes, count: 0, metric: 'pss' };
  }
  const fields = checkKeys(node, PER_CHILD_KEYS, keyPath);
  const field = (key: string) => fields.get(key)?.value;
  const medianNode = field('median');
  if (medianNode === undefined) throw at(node.where, keyPath, 'a mapping needs median (and may give max, count, metric)');
  const median = take(checkSize(medianNode.value, 'per-child memory'), medianNode.where, `${keyPath}.median`);
  const maxNode = field('max');
  const max = maxNode === undefined ? median : take(checkSize(maxNode.value, 'per-child memory'), maxNode.where, `${keyPath}.max`);
  if (maxNode !== undefined && max < median) {
    throw at(maxNode.where, `${keyPath}.max`, `${formatBytes(max)} is below the median ${formatBytes(median)}`);
  }
  const count = processCount(field('count'), `${keyPath}.count`, 'the number of processes measured') ?? 0;
  const busy = processCount(field('busy'), `${keyPath}.busy`, 'the number of them that had served requests');
  const p90Node = field('p90');
  const p90 = p90Node === undefined ? undefined : take(checkSize(p90Node.value, 'per-child memory'), p90Node.where, `${keyPath}.p90`);
  const metricNode = field('metric');
  let metric: 'pss' | 'rss' = 'pss';
  if (metricNode !== undefined) {
    if (metricNode.value !== 'pss' && metricNode.value !== 'rss') {
      throw at(metricNode.where, `${keyPath}.metric`, `expected pss or rss, got ${shown(metricNode.value)}`);
    }
    metric = metricNode.value;
  }
  const measuredOn = checkMeasuredOn(field('mpm'), field('php'), keyPath);
  return {
    median,
    max,
    count,
    metric,
    ...(p90 === undefined ? {} : { p90 }),
    ...(busy === undefined ? {} : { busy }),
    ...(measuredOn === undefined ? {} : { measuredOn }),
  };
}

/** A count of processes in a perChild mapping (0 or more), undefined when not given. */
function processCount(node: Located | undefined, keyPath: string, what: string): number | undefined {
  if (node === undefined) return undefined;
  const value = node.value;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw at(node.where, keyPath, `expected ${what} (0 or more), got ${shown(value)}`);
  }
  return value;
}

/** `mpm` and `php` of a perChild mapping: what the measured children ran, as the probe saw it. */
function checkMeasuredOn(mpmNode: Located | undefined, phpNode: Located | undefined, keyPath: string): ChildMemory['measuredOn'] {
  if (mpmNode === undefined && phpNode === undefined) return undefined;
  const mpm = mpmNode?.value;
  if (mpmNode !== undefined && mpm !== 'prefork' && mpm !== 'worker' && mpm !== 'event') {
    throw at(mpmNode.where, `${keyPath}.mpm`, `expected prefork, worker or event (the MPM the measured children run), got ${shown(mpm)}`);
  }
  const php = phpNode === undefined ? false : take(checkBoolean(phpNode.value), phpNode.where, `${keyPath}.php`);
  return { mpm: mpm as 'prefork' | 'worker' | 'event' | undefined, php };
}

function checkMounts(node: Located, keyPath: string): MountEntry[] {
  if (node.items === undefined)
    throw at(node.where, keyPath, `expected a list of { mountPoint, fsType, source }, got ${shown(node.value)}`);
  return node.items.map((item, index) => {
    const itemPath = `${keyPath}[${index}]`;
    if (item.entries === undefined)
      throw at(item.where, itemPath, `expected a mapping with mountPoint and fsType, got ${shown(item.value)}`);
    const fields = checkKeys(item, MOUNT_KEYS, itemPath);
    const text = (key: string, required: boolean): string => {
      const entry = fields.get(key);
      if (entry === undefined) {
        if (required) throw at(item.where, itemPath, `missing ${key}`);
        return '';
      }
      if (typeof entry.value.value !== 'string' || (required && entry.value.value === '')) {
        throw at(entry.value.where, `${itemPath}.${key}`, `expected text, got ${shown(entry.value.value)}`);
      }
      return entry.value.value;
    };
    const mountPoint = text('mountPoint', true);
    if (!mountPoint.startsWith('/')) {
      const where = fields.get('mountPoint')?.value.where ?? item.where;
      throw at(where, `${itemPath}.mountPoint`, `expected an absolute path, got ${shown(mountPoint)}`);
    }
    return { mountPoint, fsType: text('fsType', true), source: text('source', false) };
  });
}

/**
 * Host facts from a profile mapping or the `host:` section of .tune-lint.yaml.
 * Unknown keys and wrong types are errors naming where they were written.
 * `keyPrefix` is how keys are named in messages (`host.` for the config).
 */
export function hostFactsFromLocated(node: Located, source: string, keyPrefix = ''): HostFacts {
  const root = keyPrefix.replace(/\.$/, '');
  if (node.entries === undefined) {
    const prefix = root === '' ? '' : `${root}: `;
    throw new HostFactsError(
      `${node.where}: ${prefix}expected a mapping of host facts (${HOST_FACT_NAMES.join(', ')}), got ${shown(node.value)}`,
    );
  }
  const fields = checkKeys(node, HOST_FACT_NAMES, root);
  const facts: Partial<Record<HostFactName, Fact<unknown>>> = {};
  for (const [key, entry] of fields) {
    const name = key as HostFactName;
    const keyPath = `${keyPrefix}${key}`;
    const value = entry.value;
    facts[name] = { value: readFact(name, value, keyPath), source };
  }
  return facts as HostFacts;
}

function readFact(name: HostFactName, node: Located, keyPath: string): unknown {
  switch (name) {
    case 'ram':
      return take(checkSize(node.value, 'RAM'), node.where, keyPath);
    case 'swap':
      return take(checkSize(node.value, 'swap'), node.where, keyPath);
    case 'mysqlRss':
      return take(checkSize(node.value, 'MySQL RSS'), node.where, keyPath);
    case 'cpus':
      return take(checkCpus(node.value), node.where, keyPath);
    case 'somaxconn':
      return take(checkPositiveInteger(node.value), node.where, keyPath);
    case 'apacheRunning':
    case 'mysqlRunning':
      return take(checkBoolean(node.value), node.where, keyPath);
    case 'httpdVersion':
      return take(checkHttpdVersion(node.value), node.where, keyPath);
    case 'databaseServer':
      return take(checkDatabaseServer(node.value), node.where, keyPath);
    case 'perChild':
    case 'phpPerChild':
      return checkPerChild(node, keyPath);
    case 'mounts':
      return checkMounts(node, keyPath);
    case 'mysqlLive':
      return readMysqlLive(node, keyPath);
    case 'apacheLive':
      return readApacheLive(node, keyPath);
    case 'oomKills':
      return readOomKills(node, keyPath);
  }
}
