import * as fs from 'node:fs';
import * as path from 'node:path';
import { processExists, sleep } from './processes.js';

/** Raised when this machine cannot give the proof a memory cap; the run must stop, not go on uncapped. */
export class CgroupUnavailableError extends Error {}

export interface CgroupCounters {
  /** Processes the kernel OOM-killed inside the group (`memory.oom_control` oom_kill). */
  oomKills: number;
  /** Times an allocation hit the limit (`memory.failcnt`). */
  limitHits: number;
  /** Peak charge of the group in bytes (`memory.max_usage_in_bytes`). */
  peakBytes: number;
  /** Swap used by the group at the end of the run, when the kernel accounts it (`memory.stat` swap). */
  swapBytes: number | undefined;
  /** Peak of RAM and swap together (`memory.memsw.max_usage_in_bytes`), when the kernel accounts swap. */
  peakWithSwapBytes: number | undefined;
  /** Page faults that had to read from disk or swap (`memory.stat` pgmajfault): thrashing shows here. */
  majorFaults: number;
}

/**
 * The memory controller of cgroup v1 as this machine has it: the hierarchy is
 * mounted at /sys/fs/cgroup/memory and our own group is named in /proc/self/cgroup.
 */
function findOwnMemoryCgroupV1(): string {
  const ownGroups = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const memoryLine = ownGroups.find((line) => line.split(':')[1]?.split(',').includes('memory'));
  if (memoryLine === undefined) {
    const v2Only = ownGroups.some((line) => line.startsWith('0::'));
    throw new CgroupUnavailableError(
      v2Only
        ? 'no cgroup v1 memory controller: this machine has only the unified cgroup v2 hierarchy, which this proof does not drive'
        : 'no memory controller listed in /proc/self/cgroup',
    );
  }
  const ownPath = memoryLine.split(':').slice(2).join(':');
  const mount = fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => {
      const separator = fields.indexOf('-');
      return separator > 0 && fields[separator + 1] === 'cgroup' && (fields[separator + 3] ?? '').split(',').includes('memory');
    });
  const mountPoint = mount?.[4];
  if (mountPoint === undefined) throw new CgroupUnavailableError('the cgroup v1 memory hierarchy is not mounted');
  return path.join(mountPoint, ownPath);
}

function readNumber(file: string): number {
  const value = Number(fs.readFileSync(file, 'utf8').trim());
  if (!Number.isFinite(value)) throw new Error(`${file} does not hold a number`);
  return value;
}

/** `key value` lines such as memory.oom_control and memory.stat. */
function readKeyedNumbers(file: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key !== undefined && value !== undefined) values.set(key, Number(value));
  }
  return values;
}

/**
 * A fresh child memory cgroup with a hard limit. One per server run, because
 * the OOM-kill counter of a group cannot be reset.
 */
export class MemoryCgroup {
  private constructor(readonly dir: string) {}

  /**
   * `swapBytes` is how much of the host's swap the group may use beyond its
   * RAM cap (`memory.memsw.limit_in_bytes`, RAM and swap together); without
   * swap accounting the kernel lets a group swap freely, so a swap run refuses.
   */
  static create(name: string, limitBytes: number, swapBytes = 0): MemoryCgroup {
    const parent = findOwnMemoryCgroupV1();
    const dir = path.join(parent, name);
    try {
      fs.mkdirSync(dir);
    } catch (error) {
      throw new CgroupUnavailableError(`cannot create memory cgroup ${dir}: ${(error as Error).message}`);
    }
    const group = new MemoryCgroup(dir);
    try {
      fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(limitBytes));
      const applied = readNumber(path.join(dir, 'memory.limit_in_bytes'));
      if (applied > limitBytes) throw new Error(`the kernel kept a limit of ${applied} bytes`);
      const memsw = path.join(dir, 'memory.memsw.limit_in_bytes');
      if (fs.existsSync(memsw)) fs.writeFileSync(memsw, String(limitBytes + swapBytes));
      else if (swapBytes > 0) throw new Error('the kernel does not account swap per group (no memory.memsw.limit_in_bytes)');
      fs.readFileSync(path.join(dir, 'memory.oom_control'), 'utf8');
    } catch (error) {
      fs.rmdirSync(dir);
      throw new CgroupUnavailableError(`cannot cap memory cgroup ${dir}: ${(error as Error).message}`);
    }
    return group;
  }

  get procsFile(): string {
    return path.join(this.dir, 'cgroup.procs');
  }

  /** PIDs in the group; on cgroupfs the file reports size 0, so read it rather than stat it. */
  pids(): number[] {
    try {
      return fs
        .readFileSync(this.procsFile, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map(Number);
    } catch {
      return [];
    }
  }

  counters(): CgroupCounters {
    const oomControl = readKeyedNumbers(path.join(this.dir, 'memory.oom_control'));
    const stat = readKeyedNumbers(path.join(this.dir, 'memory.stat'));
    return {
      oomKills: oomControl.get('oom_kill') ?? 0,
      limitHits: readNumber(path.join(this.dir, 'memory.failcnt')),
      peakBytes: readNumber(path.join(this.dir, 'memory.max_usage_in_bytes')),
      swapBytes: stat.get('swap'),
      peakWithSwapBytes: fs.existsSync(path.join(this.dir, 'memory.memsw.max_usage_in_bytes'))
        ? readNumber(path.join(this.dir, 'memory.memsw.max_usage_in_bytes'))
        : undefined,
      majorFaults: stat.get('pgmajfault') ?? 0,
    };
  }

  resetPeak(): void {
    fs.writeFileSync(path.join(this.dir, 'memory.max_usage_in_bytes'), '0');
  }

  /**
   * Kills whatever is left in the group (only processes this proof started can
   * be in it), waits for them to go, then removes the group. Bounded in time.
   */
  async destroy(): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const pids = this.pids();
      if (pids.length === 0) break;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone between the read and the kill.
        }
      }
      await sleep(100);
    }
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        fs.rmdirSync(this.dir);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return;
        if (code !== 'EBUSY') throw error;
        await sleep(100);
      }
    }
    const left = this.pids().filter(processExists);
    throw new Error(`memory cgroup ${this.dir} could not be removed (processes left: ${left.join(', ') || 'none'})`);
  }
}
