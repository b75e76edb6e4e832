import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateYaml } from '../../src/host/profile.js';
import type { Located } from '../../src/host/values.js';

/** Absolute path of a file under fixtures/host/ (this module runs from dist/test/helpers/). */
export function hostFixture(relative: string): string {
  return fileURLToPath(new URL(`../../../fixtures/host/${relative}`, import.meta.url));
}

/** Absolute path of a compiled module under dist/src/host/, for scripts run in child processes. */
export function hostModuleUrl(name: string): string {
  return new URL(`../../src/host/${name}`, import.meta.url).href;
}

/** A temporary directory, removed by the returned function. */
export function temporaryDirectory(prefix: string): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Writes a fake filesystem tree for the probe's `root` option:
 * `{ '/proc/self/cgroup': '4:memory:/docker/abc\n', ... }`.
 */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(root, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
}

/** A /proc/PID/status as the kernel writes it, with the fields the probe reads; root's process unless `uid` says otherwise. */
export function statusFile(name: string, pid: number, ppid: number, rssKb?: number, uid = 0): string {
  const lines = [
    `Name:\t${name}`,
    'Umask:\t0022',
    'State:\tS (sleeping)',
    `Tgid:\t${pid}`,
    `Pid:\t${pid}`,
    `PPid:\t${ppid}`,
    `Uid:\t${uid}\t${uid}\t${uid}\t${uid}`,
  ];
  if (rssKb !== undefined) lines.push(`VmRSS:\t${String(rssKb).padStart(8)} kB`);
  lines.push('Threads:\t1');
  return `${lines.join('\n')}\n`;
}

/** A /proc/PID/smaps_rollup with the given PSS. */
export function smapsRollup(rssKb: number, pssKb: number): string {
  return [
    '55f496be0000-7ffd98d61000 ---p 00000000 00:00 0                          [rollup]',
    `Rss:            ${rssKb} kB`,
    `Pss:            ${pssKb} kB`,
    'Shared_Clean:       1516 kB',
    'Private_Dirty:       116 kB',
    '',
  ].join('\n');
}

/** The `host:` section of a .tune-lint.yaml text, located as the config loader hands it to resolveHostFacts. */
export async function configHostSection(text: string, source: string): Promise<{ located: Located; source: string }> {
  const yaml = await import('yaml');
  const lineCounter = new yaml.LineCounter();
  const document = yaml.parseDocument(text, { lineCounter });
  const host = document.get('host', true);
  if (!yaml.isNode(host)) throw new Error(`no host: section in ${source}`);
  const where = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return `${source}:${line}:${col}`;
  };
  return { located: locateYaml(yaml, document, host, where), source };
}

/**
 * A /proc/PID/stat as the kernel writes it, with the CPU time the probe reads
 * (utime and stime, fields 14 and 15, in clock ticks of 1/100 s); the
 * command name in parentheses may hold spaces and parentheses itself.
 */
export function statFile(name: string, pid: number, ppid: number, userTicks: number, systemTicks: number): string {
  const afterName = ['S', ppid, pid, pid, 0, -1, 4194560, 1200, 0, 0, 0, userTicks, systemTicks, 0, 0, 20, 0, 1, 0, 4400];
  return `${pid} (${name}) ${afterName.join(' ')}\n`;
}
