import * as fs from 'node:fs';
import type { MemoryCgroup } from './cgroup.js';
import { processExists, runCommand, sleep, startBackground, stopBackground } from './processes.js';
import type { BackgroundProcess } from './processes.js';
import type { PhpFpmTree } from './server-root.js';

export const PHP_FPM = '/usr/sbin/php-fpm8.2';

/** `php-fpm8.2 -t` on a tree's master config: a patched pool must still be one php-fpm starts with. */
export async function checkPool(fpm: PhpFpmTree): Promise<void> {
  const result = await runCommand(PHP_FPM, ['-t', '-y', fpm.configFile], { timeoutMs: 20_000 });
  if (result.code !== 0) throw new Error(`php-fpm8.2 -t rejects ${fpm.configFile}: ${(result.stderr || result.stdout).trim()}`);
}

/**
 * Starts php-fpm in the foreground inside the cgroup (the same shell trick as
 * for Apache, so the master and every child it forks are charged to the group)
 * and waits until its socket exists.
 */
export async function startPhpFpm(fpm: PhpFpmTree, cgroup: MemoryCgroup): Promise<BackgroundProcess> {
  fs.rmSync(fpm.socket, { force: true });
  const master = startBackground('/bin/sh', [
    '-c',
    'echo $$ > "$1" && exec "$2" --nodaemonize -y "$3"',
    'proof',
    cgroup.procsFile,
    PHP_FPM,
    fpm.configFile,
  ]);
  for (let attempt = 0; attempt < 300; attempt++) {
    if (fs.existsSync(fpm.socket)) return master;
    if (!processExists(master.pid)) break;
    await sleep(100);
  }
  await stopPhpFpm(master);
  throw new Error(`php-fpm did not open ${fpm.socket} within 30 s: ${master.output().trim()}`);
}

/** TERM to the master by PID (it ends its children), KILL after 10 s. */
export async function stopPhpFpm(master: BackgroundProcess): Promise<void> {
  await stopBackground(master, 10_000);
}

/** The name a process runs under (`/proc/PID/comm`), to tell Apache's children from php-fpm's. */
export function processName(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}
