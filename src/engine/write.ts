import { UserError } from '../util/user-error.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { SourceFile } from './source-file.js';

export interface PendingWrite {
  readonly file: SourceFile;
  readonly before: string;
  readonly after: string;
}

/** Why --fix wrote nothing: one line, exit code 2; the originals are untouched. */
export class WriteError extends UserError {}

/**
 * Writes fixed files so that no file is ever lost or half-written: every file
 * is first checked (unchanged since it was read, writable, not read-only by
 * mode), then each is written to a temporary file in its own directory,
 * fsynced, given the original's mode and owner, and renamed over the
 * original — through symlinks, to the file they point at.
 */
export function writeFixes(pending: readonly PendingWrite[]): void {
  const changed = pending.filter((entry) => entry.before !== entry.after);
  for (const entry of changed) check(entry);
  for (const entry of changed) replace(entry);
}

function check(entry: PendingWrite): void {
  const real = entry.file.realPath;
  const shown = entry.file.displayPath;
  let stat: fs.Stats;
  let current: Buffer;
  try {
    stat = fs.statSync(real);
    current = fs.readFileSync(real);
  } catch (error) {
    throw new WriteError(`${shown}: cannot read it again before writing (${codeOf(error)}); nothing written`);
  }
  if (!current.equals(entry.file.encode(entry.before))) {
    throw new WriteError(`${shown}: changed on disk since tune-lint read it; nothing written, run again`);
  }
  if ((stat.mode & 0o222) === 0) {
    throw new WriteError(`${shown}: read-only (mode ${(stat.mode & 0o7777).toString(8).padStart(4, '0')}); nothing written`);
  }
  try {
    fs.accessSync(real, fs.constants.W_OK);
    fs.accessSync(path.dirname(real), fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    throw new WriteError(`${shown}: not writable (${codeOf(error)}); nothing written`);
  }
}

function replace(entry: PendingWrite): void {
  const real = entry.file.realPath;
  const stat = fs.statSync(real);
  const temp = path.join(path.dirname(real), `.${path.basename(real)}.tune-lint-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, stat.mode & 0o7777);
    try {
      fs.writeFileSync(fd, entry.file.encode(entry.after));
      fs.fchmodSync(fd, stat.mode & 0o7777);
      try {
        fs.fchownSync(fd, stat.uid, stat.gid);
      } catch {
        // Only root may give a file away; an unprivileged user keeps the file as their own, as any editor would.
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, real);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw new WriteError(`${entry.file.displayPath}: could not write (${codeOf(error)}); the original is unchanged`);
  }
  syncDirectory(path.dirname(real));
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
  return (error as NodeJS.ErrnoException)?.code ?? (error instanceof Error ? error.message : String(error));
}
