import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporaryDirectory } from './host-fixtures.js';

/** A MariaDB a test started: its own datadir and socket, no TCP at all. */
export interface PrivateMariadb {
  readonly pid: number;
  readonly root: string;
  readonly socket: string;
  /** The `--defaults-file` it was started with. */
  readonly optionFile: string;
  /** Runs SQL as root over the socket (unix_socket authentication) and returns the tab-separated rows. */
  sql(statement: string): string;
}

function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Starts mariadbd on a fresh datadir (mariadb-install-db, root by
 * unix_socket) with `serverLines` in its [mysqld] group, and waits until it
 * answers. `register` receives the stop function before anything starts, so a
 * failing test still stops the server (TERM by PID, then KILL) and removes
 * the directory.
 */
export async function startMariadb(
  tools: { readonly mariadbd: string; readonly installDb: string; readonly client: string },
  serverLines: readonly string[],
  register: (stop: () => Promise<void>) => void,
): Promise<PrivateMariadb> {
  const root = temporaryDirectory('tune-lint-mariadb-').dir;
  const datadir = path.join(root, 'data');
  const socket = path.join(root, 'mysqld.sock');
  const optionFile = path.join(root, 'my.cnf');
  const started: { pid?: number } = {};
  register(async () => {
    const pid = started.pid;
    if (pid !== undefined && alive(pid)) {
      process.kill(pid, 'SIGTERM');
      const deadline = Date.now() + 30_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    fs.rmSync(root, { recursive: true, force: true });
  });
  const asRoot = process.geteuid?.() === 0;
  fs.writeFileSync(
    optionFile,
    [
      '[mysqld]',
      `datadir = ${datadir}`,
      `socket = ${socket}`,
      `pid-file = ${path.join(root, 'mysqld.pid')}`,
      `log-error = ${path.join(root, 'error.log')}`,
      'skip-networking',
      ...(asRoot ? ['user = root'] : []),
      ...serverLines,
      '',
    ].join('\n'),
  );
  const install = spawnSync(
    tools.installDb,
    [`--defaults-file=${optionFile}`, '--auth-root-authentication-method=socket', '--skip-test-db', ...(asRoot ? ['--user=root'] : [])],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr}${install.stdout}`);
  const server = spawn(tools.mariadbd, [`--defaults-file=${optionFile}`], { stdio: 'ignore', detached: false });
  const pid = server.pid as number;
  started.pid = pid;
  const sql = (statement: string): string => {
    const run = spawnSync(tools.client, ['--no-defaults', `--socket=${socket}`, '-u', 'root', '-N', '-B', '-e', statement], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.status !== 0) throw new Error(`mariadb client failed on ${statement.slice(0, 80)}: ${run.stderr}`);
    return run.stdout;
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!alive(pid)) throw new Error(`mariadbd exited: ${readTail(path.join(root, 'error.log'))}`);
    if (fs.existsSync(socket)) {
      const ping = spawnSync(tools.client, ['--no-defaults', `--socket=${socket}`, '-u', 'root', '-e', 'SELECT 1'], { timeout: 10_000 });
      if (ping.status === 0) break;
    }
    if (Date.now() > deadline) throw new Error(`mariadbd did not answer within 60 s: ${readTail(path.join(root, 'error.log'))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { pid, root, socket, optionFile, sql };
}

function readTail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-8).join('\n');
  } catch {
    return '(no error log)';
  }
}
