import * as fs from 'node:fs';
import * as http from 'node:http';
import type { MemoryCgroup } from './cgroup.js';
import { processExists, runCommand, sleep } from './processes.js';
import type { ServerTree } from './server-root.js';

export const APACHE = '/usr/sbin/apache2';
export const PAGE_PATH = '/page.php';
const PAGE_BYTES = 28000;

/** A running Apache parent that this proof started, inside its memory cgroup. */
export interface RunningApache {
  tree: ServerTree;
  cgroup: MemoryCgroup;
  parentPid: number;
}

/** `apache2 -t` on a tree: a patched config must still be one Apache accepts. */
export async function checkConfig(tree: ServerTree): Promise<void> {
  const result = await runCommand(APACHE, ['-d', tree.root, '-f', tree.configFile, '-t'], { timeoutMs: 20_000 });
  if (result.code !== 0) {
    throw new Error(`apache2 -t rejects ${tree.configFile}: ${(result.stderr || result.stdout).trim()}`);
  }
}

function fetchPage(port: number): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: PAGE_PATH, timeout: 10_000, agent: false }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
  });
}

function readPid(pidFile: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts Apache inside the cgroup: a shell writes its own PID into the group's
 * cgroup.procs and then execs `apache2 -k start`, so the parent and every child
 * it forks are charged to the group. Waits until the page answers in full.
 */
export async function startApache(tree: ServerTree, cgroup: MemoryCgroup): Promise<RunningApache> {
  // A pidfile left by a server that was killed would name a PID outside this group.
  fs.rmSync(tree.pidFile, { force: true });
  const script = 'echo $$ > "$1" && exec "$2" -d "$3" -f "$4" -k start';
  const started = await runCommand('/bin/sh', ['-c', script, 'proof', cgroup.procsFile, APACHE, tree.root, tree.configFile], {
    timeoutMs: 30_000,
  });
  if (started.code !== 0) {
    throw new Error(`apache2 -k start failed (exit ${started.code}): ${(started.stderr || started.stdout).trim()}`);
  }
  const deadline = Date.now() + 30_000;
  let lastProblem = 'no pidfile yet';
  for (let attempt = 0; attempt < 300 && Date.now() < deadline; attempt++) {
    const parentPid = readPid(tree.pidFile);
    if (parentPid !== undefined) {
      if (!cgroup.pids().includes(parentPid)) throw new Error(`Apache parent ${parentPid} is not in ${cgroup.dir}`);
      try {
        const page = await fetchPage(tree.port);
        if (page.status === 200 && page.bytes === PAGE_BYTES) return { tree, cgroup, parentPid };
        lastProblem = `GET ${PAGE_PATH} gave status ${page.status} and ${page.bytes} bytes, expected 200 and ${PAGE_BYTES}`;
      } catch (error) {
        lastProblem = (error as Error).message;
      }
    }
    await sleep(100);
  }
  throw new Error(`Apache did not serve ${PAGE_PATH} on 127.0.0.1:${tree.port} within 30 s (${lastProblem}); see ${tree.errorLog}`);
}

/** The parent's children (the workers), from the cgroup. */
export function workerPids(server: RunningApache): number[] {
  return server.cgroup.pids().filter((pid) => pid !== server.parentPid);
}

/**
 * Stops the server by the PID in its pidfile (graceful TERM, as `apache2 -k stop`
 * does), waits for the group to empty, and kills by PID whatever is left in
 * the group. Bounded in time.
 */
export async function stopApache(tree: ServerTree, cgroup: MemoryCgroup): Promise<void> {
  const parentPid = readPid(tree.pidFile);
  if (parentPid !== undefined && cgroup.pids().includes(parentPid)) {
    try {
      process.kill(parentPid, 'SIGTERM');
    } catch {
      // It died on its own (an OOM kill can take the parent too).
    }
    for (let attempt = 0; attempt < 100 && processExists(parentPid); attempt++) await sleep(100);
  }
  for (let attempt = 0; attempt < 50 && cgroup.pids().length > 0; attempt++) await sleep(100);
  for (const pid of cgroup.pids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}
