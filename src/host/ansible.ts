import { LineIndex } from '../core/line-index.js';
import type { HostFacts, MountEntry } from './facts.js';
import { HostFactsError } from './facts.js';
import { readHostInput } from './input-file.js';
import { MIB } from '../util/units.js';

/** The line `ansible HOST -m setup` prints before the JSON of one host. */
const AD_HOC_HEADER = /^([^\s|]+) \| (SUCCESS|CHANGED|FAILED!|UNREACHABLE!) => /m;
const CONTAINER_TYPES = new Set(['docker', 'podman', 'container', 'containerd', 'lxc', 'openvz', 'systemd-nspawn']);

/** Host facts from an Ansible facts file (`--facts FILE`). */
export function loadAnsibleFacts(filePath: string): HostFacts {
  const file = readHostInput(filePath, '--facts');
  return parseAnsibleFacts(file.text, file.displayPath);
}

/**
 * Reads the three shapes Ansible writes: a file of `ansible HOST -m setup
 * --tree DIR` (`{"ansible_facts": {...}, "changed": false}`), the same with the
 * `HOST | SUCCESS => ` header of the terminal output, and a jsonfile fact-cache
 * entry (the facts themselves, `{"ansible_memtotal_mb": ..., ...}`).
 */
export function parseAnsibleFacts(text: string, displayPath: string): HostFacts {
  const lines = new LineIndex(text);
  const at = (offset: number): string => {
    const { line, column } = lines.position(offset);
    return `${displayPath}:${line}:${column}`;
  };
  // A byte order mark, which editors on Windows write and JSON.parse refuses, is blanked like the header below.
  const unmarked = text.startsWith('\uFEFF') ? ` ${text.slice(1)}` : text;
  const header = AD_HOC_HEADER.exec(unmarked);
  let json = unmarked;
  if (header !== null && unmarked.slice(0, header.index).trim() === '') {
    if (header[2] === 'FAILED!' || header[2] === 'UNREACHABLE!') {
      throw new HostFactsError(`${at(header.index)}: ansible reported ${header[1]} ${header[2]}; there are no facts in this file`);
    }
    const after = header.index + header[0].length;
    const another = AD_HOC_HEADER.exec(unmarked.slice(after));
    if (another !== null) {
      throw new HostFactsError(
        `${at(after + another.index)}: this output holds the facts of several hosts; ` +
          "give one host's file (ansible -m setup --tree DIR writes one per host)",
      );
    }
    // Blank out the header instead of cutting it, so JSON error offsets still point into the file.
    json = ' '.repeat(after) + unmarked.slice(after);
  }
  let document: unknown;
  try {
    document = JSON.parse(json);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /at position (\d+)/.exec(message);
    const where = position === null ? displayPath : at(Number(position[1]));
    throw new HostFactsError(`${where}: not valid JSON (${message.replace(/ in JSON at position \d+.*$/, '')}); expected Ansible facts`);
  }
  const facts = factsObject(document);
  if (facts === undefined) {
    throw new HostFactsError(
      `${displayPath}: not an Ansible facts file; expected {"ansible_facts": {...}} from ansible -m setup, or a fact-cache file with ansible_* keys`,
    );
  }
  return readFacts(facts, text, displayPath, at);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function factsObject(document: unknown): Record<string, unknown> | undefined {
  if (!isObject(document)) return undefined;
  if (isObject(document.ansible_facts)) return document.ansible_facts;
  return Object.keys(document).some((key) => key.startsWith('ansible_')) ? document : undefined;
}

function readFacts(facts: Record<string, unknown>, text: string, displayPath: string, at: (offset: number) => string): HostFacts {
  const source = `ansible facts ${displayPath}`;
  /** Where a key is written, for messages: the first `"key":` in the file. */
  const keyAt = (key: string): string => {
    const found = new RegExp(`"${key}"\\s*:`).exec(text);
    return found === null ? displayPath : at(found.index);
  };
  const wholeNumber = (key: string, minimum: number): number | undefined => {
    const value = facts[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
      throw new HostFactsError(`${keyAt(key)}: ${key}: expected a whole number of at least ${minimum}, got ${JSON.stringify(value)}`);
    }
    return value;
  };
  const result: { -readonly [K in keyof HostFacts]: HostFacts[K] } = {};
  const notes: string[] = [];
  const memory = wholeNumber('ansible_memtotal_mb', 1);
  if (memory !== undefined) result.ram = { value: memory * MIB, source };
  const vcpus = wholeNumber('ansible_processor_vcpus', 1) ?? wholeNumber('ansible_processor_nproc', 1);
  if (vcpus !== undefined) result.cpus = { value: vcpus, source };
  const swap = wholeNumber('ansible_swaptotal_mb', 0);
  if (swap !== undefined) result.swap = { value: swap * MIB, source };
  const mounts = readMounts(facts.ansible_mounts, keyAt);
  if (mounts !== undefined) result.mounts = { value: mounts, source };
  if (result.ram === undefined && result.cpus === undefined && result.mounts === undefined) {
    throw new HostFactsError(
      `${displayPath}: no ansible_memtotal_mb, ansible_processor_vcpus or ansible_mounts; gather the hardware facts (gather_subset: hardware)`,
    );
  }
  const expected = [
    ['ansible_memtotal_mb', result.ram],
    ['ansible_processor_vcpus', result.cpus],
    ['ansible_swaptotal_mb', result.swap],
  ] as const;
  for (const [key, fact] of expected) {
    if (fact === undefined) notes.push(`${displayPath} has no ${key}`);
  }
  const virtualization = facts.ansible_virtualization_type;
  if (facts.ansible_virtualization_role === 'guest' && typeof virtualization === 'string' && CONTAINER_TYPES.has(virtualization)) {
    notes.push(
      `${displayPath} describes a ${virtualization} container: ansible_memtotal_mb is the RAM of its host, ` +
        "not the container's memory limit; give ram in a profile or with --host-ram if the container is limited",
    );
  }
  if (notes.length > 0) result.notes = notes;
  return result;
}

function readMounts(value: unknown, keyAt: (key: string) => string): MountEntry[] | undefined {
  if (value === undefined) return undefined;
  const problem = (detail: string) => new HostFactsError(`${keyAt('ansible_mounts')}: ansible_mounts: ${detail}`);
  if (!Array.isArray(value)) throw problem('expected a list of mounts');
  return value.map((entry: unknown, index) => {
    if (!isObject(entry) || typeof entry.mount !== 'string' || typeof entry.fstype !== 'string') {
      throw problem(`entry ${index} needs the strings mount and fstype`);
    }
    return { mountPoint: entry.mount, fsType: entry.fstype, source: typeof entry.device === 'string' ? entry.device : '' };
  });
}
