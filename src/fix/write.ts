import { UserError } from '../util/user-error.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { printable } from '../util/printable.js';
import { findServerTool, SERVER_TOOL_PATH } from '../util/system-tools.js';
import type { SourceFile } from '../core/source-file.js';

export interface PendingWrite {
  readonly file: SourceFile;
  readonly before: string;
  readonly after: string;
}

export interface WriteReport {
  /** Real paths written, in the order given. */
  readonly written: readonly string[];
  /** Temporary files of earlier runs that were killed before their rename, removed from the directories written to. */
  readonly staleTempFiles: readonly string[];
}

/** Why --fix wrote nothing (or not everything): one line, exit code 2. */
export class WriteError extends UserError {}

/** `.<name>.tune-lint-<pid>-<8 hex>`: hidden, and never ending in `.conf`/`.cnf`, so no Include or !includedir pattern picks it up. */
const TEMP_NAME = /^\.(.+)\.tune-lint-(\d+)-[0-9a-f]{8}$/;

/**
 * Writes fixed files so that no file is ever lost or half-written.
 *
 * 1. Every file is checked first: still exactly the bytes tune-lint read,
 *    a regular file with one link, writable by mode and by access, in a
 *    writable directory. Any failure: nothing is written.
 * 2. The new text of every file goes to a temporary file in the file's own
 *    directory (so the rename cannot cross filesystems), gets the original's
 *    owner, mode, ACL and extended attributes, and is fsynced.
 * 3. Each original is read once more right before its rename; if it changed,
 *    every temporary file is removed and nothing is renamed. A write by
 *    another program in the microseconds between that read and the rename
 *    would still be replaced: there is no lock all editors honour.
 * 4. rename() replaces each original atomically: a reader, or a crash, sees
 *    the old file or the new one, never a mix. Symlinks are written through:
 *    the file renamed is the link's target, the link stays a link.
 *
 * A process killed between steps 2 and 4 leaves the originals intact and at
 * most a temporary file per original; the next --fix run removes those whose
 * process is gone ({@link WriteReport.staleTempFiles}).
 */
export function writeFixes(pending: readonly PendingWrite[]): WriteReport {
  const changes = distinctChanges(pending);
  if (changes.length === 0) return { written: [], staleTempFiles: [] };
  for (const entry of changes) check(entry);
  const staleTempFiles = removeStaleTempFiles(new Set(changes.map((entry) => path.dirname(entry.file.realPath))));
  const temps: { entry: PendingWrite; temp: string | Buffer }[] = [];
  try {
    for (const entry of changes) temps.push({ entry, temp: writeTemp(entry) });
    for (const { entry } of temps) unchangedSinceRead(entry);
  } catch (error) {
    for (const { temp } of temps) fs.rmSync(temp, { force: true });
    throw error;
  }
  const written: string[] = [];
  for (const [index, { entry, temp }] of temps.entries()) {
    try {
      fs.renameSync(temp, nativeOf(entry));
    } catch (error) {
      for (const rest of temps.slice(index)) fs.rmSync(rest.temp, { force: true });
      const done =
        written.length === 0 ? 'nothing was written' : `already written: ${written.map((real) => shownOf(changes, real)).join(', ')}`;
      throw new WriteError(`${entry.file.displayPath}: could not replace it (${codeOf(error)}); it is unchanged, ${done}`);
    }
    written.push(entry.file.realPath);
  }
  for (const dir of new Set(written.map((real) => path.dirname(real)))) syncDirectory(dir);
  return { written, staleTempFiles };
}

/** One entry per real file; two different new texts for the same file (two hosts sharing it) are refused. */
function distinctChanges(pending: readonly PendingWrite[]): PendingWrite[] {
  const byReal = new Map<string, PendingWrite>();
  for (const entry of pending) {
    if (entry.before === entry.after) continue;
    const seen = byReal.get(entry.file.realPath);
    if (seen === undefined) byReal.set(entry.file.realPath, entry);
    else if (seen.after !== entry.after || seen.before !== entry.before) {
      throw new WriteError(
        `${entry.file.displayPath}: fixed differently for two hosts that share it; nothing written, fix it for one host at a time`,
      );
    }
  }
  return [...byReal.values()];
}

function check(entry: PendingWrite): void {
  const real = nativeOf(entry);
  const shown = entry.file.displayPath;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(real);
  } catch (error) {
    throw new WriteError(`${shown}: cannot look at it again before writing (${codeOf(error)}); nothing written`);
  }
  if (!stat.isFile()) throw new WriteError(`${shown}: no longer a regular file; nothing written`);
  unchangedSinceRead(entry);
  if (stat.nlink > 1) {
    throw new WriteError(
      `${shown}: has ${stat.nlink} hard links, which replacing it would split; nothing written, apply the patch by hand`,
    );
  }
  if ((stat.mode & 0o222) === 0) {
    throw new WriteError(`${shown}: read-only (mode ${(stat.mode & 0o7777).toString(8).padStart(4, '0')}); nothing written`);
  }
  try {
    fs.accessSync(real, fs.constants.W_OK);
  } catch (error) {
    throw new WriteError(`${shown}: not writable (${codeOf(error)}); nothing written`);
  }
  try {
    fs.accessSync(parentOf(real), fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    throw new WriteError(
      `${shown}: its directory ${path.dirname(entry.file.realPath)} is not writable (${codeOf(error)}), and the file is replaced by renaming a new file over it; nothing written`,
    );
  }
}

function unchangedSinceRead(entry: PendingWrite): void {
  let current: Buffer;
  try {
    current = fs.readFileSync(nativeOf(entry));
  } catch (error) {
    throw new WriteError(`${entry.file.displayPath}: cannot read it again before writing (${codeOf(error)}); nothing written`);
  }
  if (!current.equals(entry.file.encode(entry.before))) {
    throw new WriteError(`${entry.file.displayPath}: changed on disk since tune-lint read it; nothing written, run again`);
  }
}

function writeTemp(entry: PendingWrite): string | Buffer {
  const real = nativeOf(entry);
  const stat = fs.statSync(real);
  const temp = besideOf(real);
  try {
    const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeFileSync(fd, entry.file.encode(entry.after));
      try {
        fs.fchownSync(fd, stat.uid, stat.gid);
      } catch {
        // Only root may give a file away; an unprivileged user keeps the file as their own, as any editor would.
      }
      // After chown, which clears set-id bits.
      fs.fchmodSync(fd, stat.mode & 0o7777);
      keepAttributes(entry, temp);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    fs.rmSync(temp, { force: true });
    if (error instanceof WriteError) throw error;
    throw new WriteError(`${entry.file.displayPath}: could not write the new version beside it (${codeOf(error)}); nothing written`);
  }
  return temp;
}

/**
 * Gives the new version the original's POSIX ACL and extended attributes
 * (SELinux label, `user.*`, capabilities), which a rename would otherwise
 * drop, and which chmod alone gets wrong: with an ACL the group bits are its
 * mask. Node has no call for extended attributes; GNU cp copies exactly these
 * (`--attributes-only` leaves the data alone), as every Linux has it.
 */
function keepAttributes(entry: PendingWrite, temp: string | Buffer): void {
  const cp = findServerTool('cp', SERVER_TOOL_PATH.split(':'));
  const copied = cp === undefined ? undefined : copyAttributes(cp, nativeOf(entry), temp);
  if (copied?.status === 0) return;
  const why =
    copied === undefined
      ? 'no GNU cp in the system directories'
      : (copied.stderr.trim().split('\n').pop() ?? `cp exited with ${copied.status}`);
  throw new WriteError(
    `${entry.file.displayPath}: could not give the new version its ACL and extended attributes (${printable(why)}); nothing written`,
  );
}

/** Most file systems take names of at most 255 bytes; a file whose own name is near that still gets a temporary file beside it. */
const NAME_MAX_BYTES = 255;

/** The temporary file beside a file: `.NAME.tune-lint-PID-HEX` in its directory, NAME cut to fit, in the file's own bytes. */
function besideOf(file: string | Buffer): string | Buffer {
  // Not a secret: O_EXCL and O_NOFOLLOW make the open safe, the random part only keeps two runs apart.
  // (node:crypto would load OpenSSL's bindings and Node's streams on every run for these 4 bytes.)
  const random = Math.floor(Math.random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0');
  const suffix = `.tune-lint-${process.pid}-${random}`;
  const bytes = typeof file === 'string' ? Buffer.from(file, 'utf8') : file;
  const slash = bytes.lastIndexOf(0x2f);
  let base = bytes.subarray(slash + 1);
  const room = NAME_MAX_BYTES - 1 - suffix.length;
  // Cut on a byte boundary; a UTF-8 name also loses the character the cut split.
  if (base.length > room)
    base =
      typeof file === 'string'
        ? Buffer.from(
            base
              .subarray(0, room)
              .toString('utf8')
              .replace(/\uFFFD$/, ''),
          )
        : base.subarray(0, room);
  const temp = Buffer.concat([bytes.subarray(0, slash + 1), Buffer.from('.'), base, Buffer.from(suffix)]);
  return typeof file === 'string' ? temp.toString('utf8') : temp;
}

/** The file's path for the system calls: its bytes when a name in it is not UTF-8. */
function nativeOf(entry: PendingWrite): string | Buffer {
  return entry.file.nativePath ?? entry.file.realPath;
}

function parentOf(file: string | Buffer): string | Buffer {
  return typeof file === 'string' ? path.dirname(file) : file.subarray(0, Math.max(1, file.lastIndexOf(0x2f)));
}

/**
 * cp on the two files. Its arguments are strings, so a path that is not
 * UTF-8 goes to it as a descriptor of this process's, opened here and
 * handed down (`/proc/self/fd/N`).
 */
function copyAttributes(
  cp: string,
  from: string | Buffer,
  to: string | Buffer,
): { readonly status: number | null; readonly stderr: string } {
  if (typeof from === 'string' && typeof to === 'string')
    return spawnSync(cp, ['--attributes-only', '--preserve=mode,xattr', '--', from, to], {
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  const source = fs.openSync(from, 'r');
  const target = fs.openSync(to, 'r');
  try {
    return spawnSync(cp, ['--attributes-only', '--preserve=mode,xattr', '--', '/proc/self/fd/3', '/proc/self/fd/4'], {
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe', source, target],
    });
  } finally {
    fs.closeSync(source);
    fs.closeSync(target);
  }
}

/** A temp file this old is not being written any more, even by a tune-lint whose pid this process cannot see (another PID namespace). */
const STALE_AFTER_MS = 60_000;

/** Removes `.<name>.tune-lint-<pid>-<hex>` files in these directories whose process no longer runs and that are a minute old. */
function removeStaleTempFiles(directories: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (const dir of directories) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = TEMP_NAME.exec(name);
      if (match === null || processRuns(Number(match[2]))) continue;
      const temp = path.join(dir, name);
      try {
        const stat = fs.lstatSync(temp);
        if (!stat.isFile() || Date.now() - stat.mtimeMs < STALE_AFTER_MS) continue;
        fs.rmSync(temp);
        removed.push(temp);
      } catch {
        // Gone already, or not ours to remove: leave it.
      }
    }
  }
  return removed;
}

function processRuns(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function shownOf(changes: readonly PendingWrite[], real: string): string {
  return changes.find((entry) => entry.file.realPath === real)?.file.displayPath ?? real;
}

function syncDirectory(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is already atomic.
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? (error instanceof Error ? error.message : String(error));
}
