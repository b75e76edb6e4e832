import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseKeyedLines, type ProcessInfo, type ProcReader } from './proc.js';

/*
 * Who a process or a file belongs to, and whether tune-lint may believe it.
 * tune-lint runs as root on shared hosts, where any local user can start a
 * program called `mariadbd` or `apache2`, bind a socket in /tmp or leave a
 * file where a server's binary might be. A process is taken for a server only
 * when it runs as root, as the user tune-lint runs as, or as the server's own
 * system account; its children only when such a process started them.
 */

/** The accounts the distributions run the database server as (Debian, RHEL, SUSE, Arch, FreeBSD): all call it `mysql`. */
export const DATABASE_ACCOUNTS: readonly string[] = ['mysql'];

/** A process's real and effective user, from the `Uid:` line of /proc/PID/status. */
export interface ProcessOwner {
  readonly real: number;
  readonly effective: number;
}

export function processOwner(reader: ProcReader, pid: number): ProcessOwner | undefined {
  const status = reader.read(`/proc/${pid}/status`);
  if (!status.ok) return undefined;
  const [real, effective] = (parseKeyedLines(status.text).get('Uid') ?? '').split(/\s+/).map(Number);
  if (real === undefined || effective === undefined || !Number.isInteger(real) || !Number.isInteger(effective)) return undefined;
  return { real, effective };
}

/** The uids of the named accounts in the passwd file under the reader's root (system accounts live there, not in LDAP). */
function accountUids(reader: ProcReader, names: readonly string[]): number[] {
  const passwd = reader.read('/etc/passwd');
  if (!passwd.ok) return [];
  const uids: number[] = [];
  for (const line of passwd.text.split('\n')) {
    const [name, , uid] = line.split(':');
    if (name !== undefined && names.includes(name) && uid !== undefined && /^\d+$/.test(uid)) uids.push(Number(uid));
  }
  return uids;
}

/**
 * The users whose processes may be taken for a server: root, the user
 * tune-lint runs as (whose processes can read all tune-lint can anyway), and
 * the server's own accounts.
 */
export function trustedUsers(reader: ProcReader, accounts: readonly string[] = []): ReadonlySet<number> {
  const uids = new Set([0, ...accountUids(reader, accounts)]);
  const own = process.geteuid?.();
  if (own !== undefined) uids.add(own);
  return uids;
}

/** Whether a process runs, really and effectively, as one of these users. */
function runsAs(reader: ProcReader, pid: number, users: ReadonlySet<number>): boolean {
  const owner = processOwner(reader, pid);
  return owner !== undefined && users.has(owner.real) && users.has(owner.effective);
}

/** The processes of a server split by trust: those that run as a trusted user, and the rest, which are only named like it. */
export interface TrustedSplit {
  readonly trusted: readonly ProcessInfo[];
  readonly impostors: readonly ProcessInfo[];
}

export function splitByOwner(reader: ProcReader, processes: readonly ProcessInfo[], users: ReadonlySet<number>): TrustedSplit {
  const trusted: ProcessInfo[] = [];
  const impostors: ProcessInfo[] = [];
  for (const entry of processes) (runsAs(reader, entry.pid, users) ? trusted : impostors).push(entry);
  return { trusted, impostors };
}

/** A note naming processes that look like a server and were not taken for one. */
export function impostorNote(reader: ProcReader, impostors: readonly ProcessInfo[], server: string, accounts: string): string | undefined {
  const first = impostors[0];
  if (first === undefined) return undefined;
  const owner = processOwner(reader, first.pid);
  const more = impostors.length > 1 ? ` and ${impostors.length - 1} more` : '';
  return (
    `${first.name} PID ${first.pid}${more} ${owner === undefined ? 'has no owner that can be read' : `runs as uid ${owner.effective}`}, ` +
    `not as ${accounts}: not taken for the ${server}, nor measured, nor asked`
  );
}

/**
 * Whether a file and every directory above it (up to `root`, the probe's
 * root) belong to root and cannot be changed by group or others: a file a
 * local user cannot have put or replaced. Symlinks are followed to where they
 * lead, and that path is judged.
 */
export function isSystemFile(file: string, root = '/'): boolean {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    return false;
  }
  const top = root === '/' ? '/' : fs.realpathSync(root);
  if (real !== top && !real.startsWith(top === '/' ? '/' : `${top}/`)) return false;
  for (let current = real; ; current = path.dirname(current)) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(current);
    } catch {
      return false;
    }
    if (stat.uid !== 0 || (stat.mode & 0o022) !== 0) return false;
    if (current === top || current === path.dirname(current)) return true;
  }
}
