import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporaryDirectory } from './host-fixtures.js';
import { childrenOf, freeLoopbackPort } from './processes.js';

export interface RunningApache {
  /** PID of the parent, from its PidFile. */
  readonly pid: number;
  readonly port: number;
  readonly root: string;
  /** Its config, `ROOT/apache2.conf`, which it was started with (`-f`). */
  readonly config: string;
  /** PIDs of its children as seen in /proc (PPid = parent). */
  children(): number[];
}

const START_SERVERS = 3;

function alive(pid: number): boolean {
  return fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readOr(`/proc/${pid}/status`, ''));
}

function readOr(file: string, fallback: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

async function waitFor(condition: () => boolean, milliseconds: number): Promise<boolean> {
  const deadline = Date.now() + milliseconds;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

/**
 * How every Apache a test starts begins: its own ServerRoot with the pid,
 * log, runtime and mutex files in it, one listener on 127.0.0.1, and (when
 * the test runs as root) www-data's user and group for the children.
 */
export function loopbackServerLines(root: string, port: number, asRoot: boolean): string[] {
  return [
    `ServerRoot "${root}"`,
    'ServerName 127.0.0.1',
    `Listen 127.0.0.1:${port}`,
    `PidFile "${root}/apache2.pid"`,
    `ErrorLog "${root}/error.log"`,
    `DefaultRuntimeDir "${root}"`,
    `Mutex file:${root} default`,
    ...(asRoot ? ['User www-data', 'Group www-data'] : []),
  ];
}

/** The MPMs a test Apache runs: prefork with three children, or event with two processes of five threads. */
export type TestMpm = 'prefork' | 'event';

const MPM_LINES: Readonly<Record<TestMpm, readonly string[]>> = {
  prefork: [`StartServers ${START_SERVERS}`, `MinSpareServers ${START_SERVERS}`, `MaxSpareServers ${START_SERVERS}`],
  event: ['StartServers 2', 'ServerLimit 2', 'ThreadsPerChild 5', 'MinSpareThreads 10', 'MaxSpareThreads 10'],
};

/** Children the MPM starts with, what startApache waits for. */
const STARTED: Readonly<Record<TestMpm, number>> = { prefork: START_SERVERS, event: 2 };

function configuration(root: string, port: number, modules: string, asRoot: boolean, mpm: TestMpm): string {
  return [
    ...loopbackServerLines(root, port, asRoot),
    `LoadModule mpm_${mpm}_module ${modules}/mod_mpm_${mpm}.so`,
    `LoadModule authz_core_module ${modules}/mod_authz_core.so`,
    ...MPM_LINES[mpm],
    'MaxRequestWorkers 10',
    `DocumentRoot "${root}/htdocs"`,
    `<Directory "${root}/htdocs">`,
    '    Require all granted',
    '</Directory>',
    '',
  ].join('\n');
}

/**
 * Starts a real apache2 (prefork unless `mpm` says event) with its own ServerRoot in a temp dir, on a
 * loopback high port, and waits for its children. `register` receives the
 * stop function before anything starts, so a failing test still stops the
 * server (parent by PID, then any child left, by PID) and removes the dir.
 */
export async function startApache(
  apache2: string,
  register: (stop: () => Promise<void>) => void,
  mpm: TestMpm = 'prefork',
): Promise<RunningApache> {
  const modules = path.resolve(path.dirname(apache2), '../lib/apache2/modules');
  if (!fs.existsSync(path.join(modules, 'mod_mpm_prefork.so'))) throw new Error(`no mod_mpm_prefork.so in ${modules}`);
  const { dir: root, remove } = temporaryDirectory('tune-lint-apache-');
  fs.chmodSync(root, 0o755);
  fs.mkdirSync(path.join(root, 'htdocs'));
  fs.writeFileSync(path.join(root, 'htdocs/index.html'), '<p>tune-lint</p>\n');
  const pidFile = path.join(root, 'apache2.pid');
  const parentPid = () => Number(readOr(pidFile, '0').trim());
  const seenChildren = new Set<number>();
  register(async () => {
    const pid = parentPid();
    if (pid > 0 && alive(pid)) {
      for (const child of childrenOf(pid)) seenChildren.add(child);
      process.kill(pid, 'SIGTERM');
      await waitFor(() => !alive(pid), 10_000);
    }
    for (const child of seenChildren) if (alive(child)) process.kill(child, 'SIGKILL');
    remove();
  });
  const asRoot = process.geteuid?.() === 0;
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freeLoopbackPort();
    const conf = path.join(root, 'apache2.conf');
    fs.writeFileSync(conf, configuration(root, port, modules, asRoot, mpm));
    const run = spawnSync(apache2, ['-d', root, '-f', conf, '-k', 'start'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' },
      timeout: 20_000,
    });
    if (run.status === 0 && (await waitFor(() => parentPid() > 0 && childrenOf(parentPid()).length >= STARTED[mpm], 10_000))) {
      const pid = parentPid();
      for (const child of childrenOf(pid)) seenChildren.add(child);
      return { pid, port, root, config: conf, children: () => childrenOf(pid) };
    }
    lastError = `${run.stderr.trim()} ${readOr(path.join(root, 'error.log'), '').trim()}`;
  }
  throw new Error(`apache2 did not start: ${lastError}`);
}
