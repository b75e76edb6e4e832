import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MountEntry, RunningApache } from './facts.js';

/*
 * Readers for the Linux files the probe needs and systeminformation does not
 * give: cgroup limits, the mount table, processes with their PSS. Every read
 * is relative to a root directory so tests can point it at a fake tree, and
 * every failure is a value (the errno code), never an exception.
 */

export type ReadResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly code: string };

export class ProcReader {
  constructor(readonly root = '/') {}

  /** Reads an absolute path such as `/proc/meminfo` under the root. */
  read(file: string): ReadResult {
    try {
      return { ok: true, text: fs.readFileSync(this.path(file), 'utf8') };
    } catch (error) {
      return { ok: false, code: errorCode(error) };
    }
  }

  /** Where a symlink such as `/proc/PID/exe` points; undefined when it cannot be read (another user's process). */
  link(file: string): string | undefined {
    try {
      return fs.readlinkSync(this.path(file));
    } catch {
      return undefined;
    }
  }

  list(directory: string): readonly string[] | undefined {
    try {
      return fs.readdirSync(this.path(directory));
    } catch {
      return undefined;
    }
  }

  /** Where an absolute path such as `/proc/1/exe` is on this machine: under the root. */
  path(file: string): string {
    return this.root === '/' ? file : path.join(this.root, file);
  }
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') {
    return (error as { code: string }).code;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The MPM and PHP a process runs, from the shared objects it has mapped
 * (`/proc/PID/maps`): `mod_mpm_event.so`, `libphp8.2.so`. Undefined when the
 * map cannot be read.
 */
export function mappedApache(reader: ProcReader, pid: number): RunningApache | undefined {
  const maps = reader.read(`/proc/${pid}/maps`);
  if (!maps.ok) return undefined;
  const mpm = /\/mod_mpm_(prefork|worker|event)\.so$/m.exec(maps.text)?.[1] as RunningApache['mpm'];
  return { mpm, php: /\/(libphp[\d.]*|mod_php[\d.]*)\.so$/m.test(maps.text) };
}

/** One line of /proc/PID/mountinfo (man 5 proc): what is mounted, where, and which part of it (`root`). */
export interface MountInfoEntry extends MountEntry {
  readonly root: string;
  readonly mountOptions: readonly string[];
  readonly superOptions: readonly string[];
}

/** mountinfo escapes space, tab, newline and backslash as octal (`\040`). */
function unescapeOctal(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export function parseMountInfo(text: string): MountInfoEntry[] {
  const entries: MountInfoEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (fields.length < 10 || separator === -1 || separator + 3 > fields.length) continue;
    entries.push({
      root: unescapeOctal(fields[3] as string),
      mountPoint: unescapeOctal(fields[4] as string),
      mountOptions: (fields[5] as string).split(','),
      fsType: fields[separator + 1] as string,
      source: unescapeOctal(fields[separator + 2] as string),
      superOptions: (fields[separator + 3] ?? '').split(','),
    });
  }
  return entries;
}

/** One line of /proc/PID/cgroup: `4:memory:/docker/abc` (v1) or `0::/user.slice` (v2). */
export interface CgroupMembership {
  readonly hierarchyId: string;
  readonly controllers: readonly string[];
  readonly path: string;
}

export function parseCgroupFile(text: string): CgroupMembership[] {
  const memberships: CgroupMembership[] = [];
  for (const line of text.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (match === null) continue;
    memberships.push({ hierarchyId: match[1] as string, controllers: (match[2] as string).split(','), path: match[3] as string });
  }
  return memberships;
}

/**
 * The directory of a cgroup on this machine. /proc/self/cgroup names the path
 * from the hierarchy's root, but a container may have only its own subtree
 * mounted (mountinfo root `/docker/abc`), in which case that prefix is cut;
 * inside a cgroup namespace the path is `/` and the mount point is the group.
 */
function cgroupDirectory(membership: CgroupMembership, mount: MountInfoEntry): string {
  const root = mount.root === '/' ? '' : mount.root;
  let relative = membership.path;
  if (root !== '') {
    if (relative === root || relative.startsWith(`${root}/`)) relative = relative.slice(root.length);
    else relative = '';
  }
  return path.posix.join(mount.mountPoint, relative);
}

/** The group and its ancestors up to the mount point: a limit anywhere above applies too. */
function groupAndAncestors(directory: string, mountPoint: string): string[] {
  const chain: string[] = [];
  let current = directory;
  while (current.startsWith(mountPoint) && current.length >= mountPoint.length) {
    chain.push(current);
    if (current === mountPoint) break;
    const parent = path.posix.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  if (chain.length === 0) chain.push(mountPoint);
  return chain;
}

export interface CgroupContext {
  readonly memberships: readonly CgroupMembership[];
  readonly mounts: readonly MountInfoEntry[];
}

/** The directories of this process's group (and ancestors) in the v1 hierarchy of `controller`, or in v2. */
function cgroupChain(context: CgroupContext, version: 1 | 2, controller: string): string[] {
  if (version === 1) {
    const membership = context.memberships.find((entry) => entry.hierarchyId !== '0' && entry.controllers.includes(controller));
    const mount = context.mounts.find((entry) => entry.fsType === 'cgroup' && entry.superOptions.includes(controller));
    if (membership === undefined || mount === undefined) return [];
    return groupAndAncestors(cgroupDirectory(membership, mount), mount.mountPoint);
  }
  const membership = context.memberships.find((entry) => entry.hierarchyId === '0');
  const mount = context.mounts.find((entry) => entry.fsType === 'cgroup2');
  if (membership === undefined || mount === undefined) return [];
  return groupAndAncestors(cgroupDirectory(membership, mount), mount.mountPoint);
}

export interface Limit {
  readonly value: number;
  readonly version: 1 | 2;
  readonly directory: string;
}

/**
 * The lowest memory limit over this process's group and its ancestors, v1
 * (`memory.limit_in_bytes`) and v2 (`memory.max`). "max" and v1's
 * unlimited value (a page-rounded 2^63) are no limit.
 */
export function memoryLimit(reader: ProcReader, context: CgroupContext): Limit | undefined {
  let lowest: Limit | undefined;
  const consider = (value: number, version: 1 | 2, directory: string) => {
    if (!Number.isFinite(value) || value <= 0 || value >= 2 ** 62) return;
    if (lowest === undefined || value < lowest.value) lowest = { value, version, directory };
  };
  for (const directory of cgroupChain(context, 1, 'memory')) {
    const read = reader.read(`${directory}/memory.limit_in_bytes`);
    if (read.ok) consider(Number(read.text.trim()), 1, directory);
  }
  for (const directory of cgroupChain(context, 2, 'memory')) {
    const read = reader.read(`${directory}/memory.max`);
    if (read.ok && read.text.trim() !== 'max') consider(Number(read.text.trim()), 2, directory);
  }
  return lowest;
}

/** The lowest CPU quota (CPUs, possibly fractional) over the group and its ancestors, v1 CFS and v2 `cpu.max`. */
export function cpuQuota(reader: ProcReader, context: CgroupContext): Limit | undefined {
  let lowest: Limit | undefined;
  const consider = (quota: number, period: number, version: 1 | 2, directory: string) => {
    if (!Number.isFinite(quota) || !Number.isFinite(period) || quota <= 0 || period <= 0) return;
    const cpus = quota / period;
    if (lowest === undefined || cpus < lowest.value) lowest = { value: cpus, version, directory };
  };
  for (const directory of cgroupChain(context, 1, 'cpu')) {
    const quota = reader.read(`${directory}/cpu.cfs_quota_us`);
    const period = reader.read(`${directory}/cpu.cfs_period_us`);
    if (quota.ok && period.ok) consider(Number(quota.text.trim()), Number(period.text.trim()), 1, directory);
  }
  for (const directory of cgroupChain(context, 2, 'cpu')) {
    const read = reader.read(`${directory}/cpu.max`);
    if (!read.ok) continue;
    const [quota, period] = read.text.trim().split(/\s+/);
    if (quota !== undefined && quota !== 'max') consider(Number(quota), Number(period ?? '100000'), 2, directory);
  }
  return lowest;
}

/** `Key:   value kB` lines of /proc/meminfo, /proc/PID/status and smaps_rollup. */
export function parseKeyedLines(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) values.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return values;
}

/** A `1234 kB` value in bytes. */
function kilobytes(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /^(\d+)\s*kB$/.exec(value);
  return match === null ? undefined : Number(match[1]) * 1024;
}

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly name: string;
  /** VmRSS; undefined for kernel threads. */
  readonly rss: number | undefined;
}

/**
 * Every process visible in /proc, from /proc/PID/status; undefined when /proc
 * cannot be listed. Zombies are left out: they have exited, hold no memory
 * and serve nothing, though one whose parent has not reaped it keeps its name
 * (`[apache2] <defunct>`, reparented to PID 1 in a container whose init does
 * not reap) and would pass for a running server.
 */
export function listProcesses(reader: ProcReader): ProcessInfo[] | undefined {
  const entries = reader.list('/proc');
  if (entries === undefined) return undefined;
  const processes: ProcessInfo[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const status = reader.read(`/proc/${entry}/status`);
    if (!status.ok) continue;
    const fields = parseKeyedLines(status.text);
    if (/^[ZX]/.test(fields.get('State') ?? '')) continue;
    processes.push({
      pid: Number(entry),
      ppid: Number(fields.get('PPid') ?? '0'),
      name: fields.get('Name') ?? '',
      rss: kilobytes(fields.get('VmRSS')),
    });
  }
  return processes;
}

export type PssResult = { readonly ok: true; readonly bytes: number } | { readonly ok: false; readonly code: string };

/**
 * PSS of a process: its private pages plus its share of each shared page.
 * smaps_rollup (Linux 4.14+) is one cheap read; older kernels need the sum
 * over smaps. Reading it needs ptrace access, so another user's process gives
 * EACCES unless we are root.
 */
export function readPss(reader: ProcReader, pid: number): PssResult {
  const rollup = reader.read(`/proc/${pid}/smaps_rollup`);
  if (rollup.ok) {
    const pss = kilobytes(parseKeyedLines(rollup.text).get('Pss'));
    return pss === undefined ? { ok: false, code: 'ESRCH' } : { ok: true, bytes: pss };
  }
  if (rollup.code !== 'ENOENT' || !reader.read(`/proc/${pid}/status`).ok) return rollup;
  const smaps = reader.read(`/proc/${pid}/smaps`);
  if (!smaps.ok) return smaps;
  let total = 0;
  let seen = false;
  for (const match of smaps.text.matchAll(/^Pss:\s+(\d+) kB$/gm)) {
    total += Number(match[1]) * 1024;
    seen = true;
  }
  return seen ? { ok: true, bytes: total } : { ok: false, code: 'ESRCH' };
}
