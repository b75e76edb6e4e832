import * as fs from 'node:fs';

export interface ChildMemory {
  pid: number;
  pssBytes: number;
  rssBytes: number;
  privateBytes: number;
}

export interface ChildMemorySummary {
  children: number;
  medianPssBytes: number;
  maxPssBytes: number;
  medianRssBytes: number;
  medianPrivateBytes: number;
}

/** One process's memory from /proc/PID/smaps_rollup; undefined when it exited while being read. */
export function readChildMemory(pid: number): ChildMemory | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    return match ? Number(match[1]) * 1024 : 0;
  };
  if (!/^Pss:/m.test(text)) return undefined;
  return {
    pid,
    pssBytes: kib('Pss'),
    rssBytes: kib('Rss'),
    privateBytes: kib('Private_Clean') + kib('Private_Dirty'),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function summarise(children: readonly ChildMemory[]): ChildMemorySummary {
  return {
    children: children.length,
    medianPssBytes: median(children.map((child) => child.pssBytes)),
    maxPssBytes: Math.max(...children.map((child) => child.pssBytes)),
    medianRssBytes: median(children.map((child) => child.rssBytes)),
    medianPrivateBytes: median(children.map((child) => child.privateBytes)),
  };
}
