import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { isSystemFile } from '../host/trust.js';
import { findServerTool, SERVER_TOOL_PATH } from '../util/system-tools.js';
import { decodeLines, type ToolRun } from './server-tools.js';

/**
 * Where `--verify` runs the servers' config checkers: a bubblewrap sandbox.
 * bubblewrap is Debian's and Fedora's own unprivileged sandbox (Flatpak's),
 * a small setuid-free C program that does one thing; `unshare` alone would
 * need a shell script of mounts written here, and a script is what the
 * repository under check could try to steer.
 *
 * Inside: a root that holds only the verify copy (the files the lint read, at
 * their server paths, patched or not), the system's own program and library
 * directories, a private `/proc`, a minimal `/dev` and an empty `/tmp`; all
 * read-only but `/tmp`. New user, PID, network, IPC, UTS and cgroup
 * namespaces, so no network and no other process; no capabilities; the
 * environment is the one given, nothing inherited; run as `nobody` when
 * tune-lint runs as root; address space and file size bounded; killed with
 * the whole sandbox when the time is up or tune-lint exits.
 */

/** The directories of programs and libraries the sandbox shows from the host, read-only. */
const SYSTEM_DIRS = ['/usr', '/lib', '/lib64', '/bin', '/sbin'] as const;

/** The user the servers' checkers run as when tune-lint is root: Debian's and RHEL's `nobody`. */
const NOBODY = 65_534;

/** Enough for `mariadbd --help --verbose` with large buffer settings (it reserves about 600 MiB), far from a host's RAM. */
const ADDRESS_SPACE_BYTES = 4 * 1024 ** 3;
/** Nothing the checkers write is kept; a file they write in `/tmp` has this bound. */
const FILE_SIZE_BYTES = 16 * 1024 ** 2;

export interface SandboxCommand {
  /** An absolute path under one of {@link SYSTEM_DIRS}. */
  readonly binary: string;
  readonly args: readonly string[];
  /** The whole environment of the command. */
  readonly env: Readonly<Record<string, string>>;
  /** A directory inside the root. */
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Files of tune-lint's own, each bound writable at a server path whose mount point the root holds: logs a checker must open to write. */
  readonly writable?: readonly { readonly hostPath: string; readonly serverPath: string }[];
}

export class Sandbox {
  private constructor(
    private readonly bwrap: string,
    private readonly prlimit: string,
    private readonly timeout: string,
  ) {}

  /** The sandbox, or why there is none here (not installed, no user namespaces); its tools only from the system directories. */
  static open(searchPath: readonly string[] = SERVER_TOOL_PATH.split(':')): Sandbox | string {
    const bwrap = findServerTool('bwrap', searchPath);
    if (bwrap === undefined) return 'bubblewrap (bwrap) is not installed';
    if (!isSystemFile(bwrap))
      return `${bwrap} is not root's alone (its file or a directory above it belongs to, or may be written by, someone else)`;
    const prlimit = findServerTool('prlimit', searchPath);
    if (prlimit === undefined || !underSystemDirs(prlimit) || !isSystemFile(prlimit))
      return 'prlimit (util-linux) is not installed in the system directories';
    const timeout = findServerTool('timeout', searchPath);
    if (timeout === undefined || !underSystemDirs(timeout) || !isSystemFile(timeout))
      return 'timeout (coreutils) is not installed in the system directories';
    const sandbox = new Sandbox(bwrap, prlimit, timeout);
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'tune-lint-sandbox-probe-'));
    const root = path.join(dir, 'root');
    try {
      fs.mkdirSync(root);
      prepareRoot(root);
      handOver(dir);
      const probe = spawnSync(bwrap, sandbox.arguments(root, { binary: '/bin/true', args: [], env: {}, cwd: '/', timeoutMs: 0 }), {
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
        timeout: 10_000,
        ...identity(),
      });
      if (probe.status !== 0)
        return `bwrap cannot make a sandbox here (${lastLineOr(probe.stderr, `exit ${probe.status ?? probe.signal}`)})`;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return sandbox;
  }

  /**
   * Runs a command in a sandbox whose root is `root` (prepared with
   * {@link prepareRoot}). At the time limit the sandbox's first process is
   * killed, which ends every process in its PID namespace (bwrap's
   * --die-with-parent does not hold once the sandbox has changed its user),
   * and the run ends then, whatever still holds its output open.
   */
  run(root: string, command: SandboxCommand): Promise<ToolRun> {
    return new Promise((resolve, reject) => {
      // A process group of its own: killed as a group, the sandbox's first process goes too before bwrap has said which it is.
      const child = spawn(this.bwrap, ['--info-fd', '3', ...this.arguments(root, command)], {
        env: {},
        cwd: '/',
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
        detached: true,
        ...identity(),
      });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let info = '';
      let timedOut = false;
      let done = false;
      const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearTimeout(grace);
        resolve({ exitCode, signal, timedOut, stdout: decodeLines(Buffer.concat(stdout)), stderr: decodeLines(Buffer.concat(stderr)) });
      };
      let grace: NodeJS.Timeout | undefined;
      const timer = setTimeout(() => {
        timedOut = true;
        const sandboxInit = /"child-pid"\s*:\s*(\d+)/.exec(info)?.[1];
        if (sandboxInit === undefined) {
          if (child.pid !== undefined) killQuietly(-child.pid);
          child.kill('SIGKILL');
          return;
        }
        // bwrap outside reaps its child and exits; it is killed too only if it does not.
        killQuietly(Number(sandboxInit));
        grace = setTimeout(() => child.kill('SIGKILL'), 2_000);
      }, command.timeoutMs);
      const [, out, err, infoPipe] = child.stdio as unknown as [null, Readable, Readable, Readable];
      out.on('data', (chunk: Buffer) => stdout.push(chunk));
      err.on('data', (chunk: Buffer) => stderr.push(chunk));
      infoPipe.on('data', (chunk: Buffer) => {
        info += chunk.toString('utf8');
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('exit', (exitCode, signal) => {
        if (!timedOut) return;
        for (const stream of [out, err, infoPipe]) stream.destroy();
        finish(exitCode, signal);
      });
      child.on('close', finish);
    });
  }

  private arguments(root: string, command: SandboxCommand): string[] {
    const args = ['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--clearenv'];
    for (const [name, value] of Object.entries(command.env)) args.push('--setenv', name, value);
    args.push('--ro-bind', root, '/');
    for (const dir of SYSTEM_DIRS) if (isRealDirectory(dir)) args.push('--ro-bind', dir, dir);
    for (const file of command.writable ?? []) args.push('--bind', file.hostPath, file.serverPath);
    args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
    // A configuration under /tmp (a checkout there) stays visible, read-only, in the sandbox's own /tmp.
    for (const name of fs.readdirSync(path.join(root, 'tmp')))
      args.push('--ro-bind', path.join(root, 'tmp', name), path.join('/tmp', name));
    args.push('--chdir', command.cwd);
    // A second clock inside: whatever escapes the kill from outside still ends at the time limit.
    const seconds = Math.max(1, Math.ceil(command.timeoutMs / 1000));
    args.push(
      '--',
      this.prlimit,
      `--as=${ADDRESS_SPACE_BYTES}`,
      `--fsize=${FILE_SIZE_BYTES}`,
      '--core=0',
      '--',
      this.timeout,
      '--signal=KILL',
      `${seconds}s`,
      command.binary,
      ...command.args,
    );
    return args;
  }
}

/**
 * Makes `root` (an empty directory of tune-lint's) a root the sandbox can
 * mount: mount points for the system directories (or the same symlinks the
 * host has, `/lib -> usr/lib` on a merged-/usr system), `/proc`, `/dev`,
 * `/tmp`, and the user and group databases, which httpd needs for `User`.
 */
export function prepareRoot(root: string): void {
  for (const dir of SYSTEM_DIRS) {
    const stat = lstatOrUndefined(dir);
    if (stat?.isSymbolicLink() === true) fs.symlinkSync(fs.readlinkSync(dir), path.join(root, dir));
    else if (stat?.isDirectory() === true) fs.mkdirSync(path.join(root, dir));
  }
  for (const dir of ['/proc', '/dev', '/tmp', '/etc']) fs.mkdirSync(path.join(root, dir), { recursive: true });
  for (const file of ['/etc/passwd', '/etc/group']) {
    const target = path.join(root, file);
    if (!fs.existsSync(target) && fs.existsSync(file)) fs.copyFileSync(file, target);
  }
}

/**
 * Gives what tune-lint wrote under `dir` (its own temporary directory, mode
 * 0700) to the sandbox's user, so that a file the server must read keeps its
 * mode (the MySQL reader skips world-writable files) and is still readable.
 */
export function handOver(dir: string): void {
  const { uid, gid } = identity();
  if (uid === undefined || gid === undefined) return;
  const walk = (entry: string): void => {
    fs.lchownSync(entry, uid, gid);
    if (fs.lstatSync(entry).isDirectory()) for (const name of fs.readdirSync(entry)) walk(path.join(entry, name));
  };
  walk(dir);
}

/** The sandbox's user and group: `nobody` when tune-lint is root, else the user running it. */
function identity(): { uid?: number; gid?: number } {
  return process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};
}

/** True for a path under one of {@link SYSTEM_DIRS}, which the sandbox shows from the host. */
export function underSystemDirs(file: string): boolean {
  return SYSTEM_DIRS.some((dir) => file === dir || file.startsWith(`${dir}/`));
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

function isRealDirectory(dir: string): boolean {
  return lstatOrUndefined(dir)?.isDirectory() === true;
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

/** The last line of what a tool printed, or `fallback` when it printed nothing. */
function lastLineOr(output: string | null, fallback: string): string {
  const last = (output ?? '').trim().split('\n').pop() ?? '';
  return last === '' ? fallback : last;
}
