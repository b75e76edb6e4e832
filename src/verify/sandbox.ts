import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findServerTool, SERVER_TOOL_PATH } from '../util/system-tools.js';
import { runTool, type ToolRun } from './server-tools.js';

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
export const SYSTEM_DIRS = ['/usr', '/lib', '/lib64', '/bin', '/sbin'] as const;

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
}

export class Sandbox {
  private constructor(
    private readonly bwrap: string,
    private readonly prlimit: string,
  ) {}

  /** The sandbox, or why there is none here (not installed, no user namespaces); its tools only from the system directories. */
  static open(searchPath: readonly string[] = SERVER_TOOL_PATH.split(':')): Sandbox | string {
    const bwrap = findServerTool('bwrap', searchPath);
    if (bwrap === undefined) return 'bubblewrap (bwrap) is not installed';
    const prlimit = findServerTool('prlimit', searchPath);
    if (prlimit === undefined || !underSystemDirs(prlimit)) return 'prlimit (util-linux) is not installed in the system directories';
    const sandbox = new Sandbox(bwrap, prlimit);
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
      if (probe.status !== 0) return `bwrap cannot make a sandbox here (${(probe.stderr ?? '').trim().split('\n').pop() || `exit ${probe.status ?? probe.signal}`})`;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return sandbox;
  }

  /** Runs a command in a sandbox whose root is `root` (prepared with {@link prepareRoot}). */
  run(root: string, command: SandboxCommand): Promise<ToolRun> {
    return runTool(this.bwrap, this.arguments(root, command), {}, command.timeoutMs, '/', identity());
  }

  private arguments(root: string, command: SandboxCommand): string[] {
    const args = ['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--clearenv'];
    for (const [name, value] of Object.entries(command.env)) args.push('--setenv', name, value);
    args.push('--ro-bind', root, '/');
    for (const dir of SYSTEM_DIRS) if (isRealDirectory(dir)) args.push('--ro-bind', dir, dir);
    args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
    // A configuration under /tmp (a checkout there) stays visible, read-only, in the sandbox's own /tmp.
    for (const name of fs.readdirSync(path.join(root, 'tmp'))) args.push('--ro-bind', path.join(root, 'tmp', name), path.join('/tmp', name));
    args.push('--chdir', command.cwd);
    args.push('--', this.prlimit, `--as=${ADDRESS_SPACE_BYTES}`, `--fsize=${FILE_SIZE_BYTES}`, '--core=0', '--', command.binary, ...command.args);
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
