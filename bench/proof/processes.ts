import { spawn } from 'node:child_process';

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Children of this script still running, so an interrupt can end them by PID. */
const running = new Set<number>();

/** Ends every child this script spawned and is still waiting for (on Ctrl-C or a fatal error). */
export function killRunningChildren(): void {
  for (const pid of running) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      running.delete(pid);
    }
  }
}

/**
 * Runs a program without a shell and collects its output. A child that outlives
 * `timeoutMs` is killed by its PID, so no step of the proof can hang the run.
 */
export function runCommand(command: string, args: readonly string[], options: { timeoutMs: number; cwd?: string }): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const pid = child.pid;
    if (pid !== undefined) running.add(pid);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      if (pid !== undefined) running.delete(pid);
      reject(new Error(`cannot run ${command}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (pid !== undefined) running.delete(pid);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        timedOut,
      });
    });
  });
}

export interface BackgroundProcess {
  pid: number;
  /** Settles when the process has exited, with its exit code or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whatever it wrote to stdout and stderr so far (bounded to the last 64 KiB). */
  output: () => string;
}

/** A long-running child (a server that does not daemonize), tracked so an interrupt ends it by PID. */
export function startBackground(command: string, args: readonly string[]): BackgroundProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer | string): void => {
    output = (output + chunk.toString()).slice(-65536);
  };
  child.on('error', (error) => collect(`\ncannot run ${command}: ${error.message}\n`));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`cannot start ${command}`);
  running.add(pid);
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(pid);
      resolve({ code, signal });
    });
  });
  return { pid, exited, output: () => output };
}

/** Graceful TERM by PID, then KILL if it has not gone within `graceMs` (a server that exits on TERM). */
export async function stopBackground(server: BackgroundProcess, graceMs: number): Promise<void> {
  if (!processExists(server.pid)) return;
  try {
    process.kill(server.pid, 'SIGTERM');
  } catch {
    return;
  }
  const stopped = await Promise.race([server.exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!stopped) {
    try {
      process.kill(server.pid, 'SIGKILL');
    } catch {
      // Gone between the wait and the kill.
    }
    await Promise.race([server.exited, sleep(5_000)]);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** True while a process with this PID exists (zombies included). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
