import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostFacts } from '../../src/host/facts.js';
import { hostModuleUrl, temporaryDirectory } from './host-fixtures.js';

export interface ChildProbe {
  readonly facts: HostFacts;
  /** What systeminformation itself reports in the same process, to show what it misses. */
  readonly systeminformation?: { readonly memTotal: number; readonly cpuCores: number };
}

export interface ChildProbeOptions {
  /** Run as this user and group (root only). */
  readonly uid?: number;
  readonly gid?: number;
  /** probeHost's root option. */
  readonly root?: string;
  /** Also ask systeminformation directly (si.mem(), si.cpu()). */
  readonly askSystemInformation?: boolean;
  /** Shell commands run before node is exec'd in the same process, e.g. joining a cgroup: `echo $$ > DIR/cgroup.procs`. */
  readonly shellBefore?: readonly string[];
}

export const NOBODY = 65534;

/**
 * Why the compiled modules cannot be run as `nobody` (uid 65534), or
 * undefined when they can: a checkout under a private directory is not
 * readable by other users, and then tests that probe as another user skip.
 */
export function unreadableByNobody(): string | undefined {
  if (process.geteuid?.() !== 0) return 'needs root to run a process as another user';
  const files = [fileURLToPath(hostModuleUrl('probe.js')), createRequire(import.meta.url).resolve('systeminformation')];
  for (const file of files) {
    const check = spawnSync('/bin/sh', ['-c', 'test -r "$0"', file], { uid: NOBODY, gid: NOBODY });
    if (check.status !== 0) return `${file} is not readable by uid ${NOBODY}, so the probe cannot run as another user here`;
  }
  return undefined;
}

/**
 * Runs probeHost in a separate node process, for what cannot be done in the
 * test process: probing as another user, or from inside a cgroup.
 */
export async function probeInChildProcess(options: ChildProbeOptions = {}): Promise<ChildProbe> {
  const { dir, remove } = temporaryDirectory('tune-lint-probe-');
  try {
    fs.chmodSync(dir, 0o755);
    const script = path.join(dir, 'probe.mjs');
    const probeUrl = hostModuleUrl('probe.js');
    fs.writeFileSync(
      script,
      [
        `const { probeHost } = await import(${JSON.stringify(probeUrl)});`,
        `const facts = await probeHost(${options.root === undefined ? '' : `{ root: ${JSON.stringify(options.root)} }`});`,
        'let systeminformation;',
        options.askSystemInformation === true
          ? [
              "const { createRequire } = await import('node:module');",
              `const si = createRequire(new URL(${JSON.stringify(probeUrl)}))('systeminformation');`,
              'systeminformation = { memTotal: (await si.mem()).total, cpuCores: (await si.cpu()).cores };',
            ].join('\n')
          : '',
        'process.stdout.write(JSON.stringify({ facts, systeminformation }));',
      ].join('\n'),
    );
    fs.chmodSync(script, 0o644);
    const shell = [...(options.shellBefore ?? []), 'exec "$0" "$1"'].join(' && ');
    const child = spawn('/bin/sh', ['-c', shell, process.execPath, script], {
      cwd: '/',
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`probe child exited with ${code}: ${stderr.trim()}`);
    return JSON.parse(stdout) as ChildProbe;
  } finally {
    remove();
  }
}
