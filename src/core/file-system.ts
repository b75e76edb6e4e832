import { UserError } from '../util/user-error.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getSystemErrorMap } from 'node:util';
import { decodeBytes, SourceFile } from './source-file.js';

const DEFAULT_LIMITS = {
  /** Larger files are refused with a diagnostic; Apache itself caps a logical line at 16 MiB. */
  maxFileBytes: 64 * 1024 * 1024,
  /** Files read through includes, per run. */
  maxFiles: 100_000,
  /**
   * Bytes read for one main file, itself and every inclusion counted (a file
   * included twice counts twice): 100 symlinks to one 5 MB file, or 40,000
   * Includes of one file, would otherwise read gigabytes from a small
   * repository. Unless given, never less than one file may hold
   * (--max-file-size).
   */
  maxInputBytes: 64 * 1024 * 1024,
  /**
   * Lines read for one main file, counted as the bytes are. Memory goes with
   * lines as much as with bytes (each is an object in the model, and may be
   * a finding): 64 MiB of two-byte lines would be 33 million of them. The
   * worst lines found (a duplicate option with a fix on each) take about
   * 1 KB each at peak, a fix pass included (docs/robustness.md); 800,000
   * lines keep that under 1 GiB and are three times the 10,000-vhost
   * benchmark tree (24 lines a vhost).
   */
  maxInputLines: 800_000,
  /** Apache's AP_MAX_INCLUDE_DEPTH is 128; the MySQL reader stops at 10. */
  maxIncludeDepth: 128,
  /** Nesting of sections inside one file. */
  maxNesting: 1_000,
};
export type Limits = typeof DEFAULT_LIMITS;

/** The limits given and the defaults for the rest; the input a main file may read is never less than one file may hold. */
function withDefaults(given: Partial<Limits> | undefined): Limits {
  const maxInputBytes = given?.maxInputBytes ?? Math.max(DEFAULT_LIMITS.maxInputBytes, given?.maxFileBytes ?? 0);
  return { ...DEFAULT_LIMITS, ...given, maxInputBytes };
}

/**
 * What the reader of one main file has read so far, against the limits every
 * reader shares ({@link Limits.maxFiles}, {@link Limits.maxInputBytes},
 * {@link Limits.maxInputLines}, {@link Limits.maxIncludeDepth}): each of
 * Apache's, the option files' and php-fpm's readers charges every file it
 * reads here, so no language reads without bounds.
 */
export class InputBudget {
  private used = 0;
  private usedLines = 0;
  private included = 0;
  private spent = false;

  constructor(private readonly limits: Limits) {}

  /** Nothing more is read once a file has not fitted: the rest is not even opened. */
  get exhausted(): boolean {
    return this.spent;
  }

  /** Why an include at this depth (the main file is 0) goes too deep, if it does. */
  tooDeep(depth: number): string | undefined {
    return depth > this.limits.maxIncludeDepth
      ? `includes nested deeper than ${this.limits.maxIncludeDepth} levels; what is inside is not read`
      : undefined;
  }

  /** Counts the main file, which is read whole or not at all: one over the line limit is an input error. */
  chargeMain(file: SourceFile): void {
    const refused = this.chargeSize(file);
    if (refused !== undefined) {
      throw new FileAccessError(
        `${file.displayPath} has ${lineCount(file.text)} lines, over the limit of ${this.limits.maxInputLines} lines (--max-lines)`,
        'too-large',
      );
    }
  }

  /**
   * Counts a file an include read (again). Undefined when it fits; else it is
   * not read, nor anything after it: the first time with why, for one TL0006
   * at its include, then ''.
   */
  charge(file: SourceFile): string | undefined {
    if (this.spent) return '';
    if (this.included >= this.limits.maxFiles) {
      this.spent = true;
      return `more than ${this.limits.maxFiles} files read through includes; the rest is not read (--max-files)`;
    }
    const refused = this.chargeSize(file);
    if (refused === undefined) this.included++;
    return refused;
  }

  private chargeSize(file: SourceFile): string | undefined {
    const total = this.used + file.byteLength;
    if (total > this.limits.maxInputBytes && this.used > 0) {
      this.spent = true;
      return `${file.displayPath} would bring what this config reads, counting every inclusion, to ${total} bytes, over the limit of ${this.limits.maxInputBytes} bytes (--max-input-size); it and the rest are not read`;
    }
    const lines = this.usedLines + lineCount(file.text);
    if (lines > this.limits.maxInputLines) {
      this.spent = true;
      return `${file.displayPath} would bring what this config reads, counting every inclusion, to ${lines} lines, over the limit of ${this.limits.maxInputLines} lines (--max-lines); it and the rest are not read`;
    }
    this.used = total;
    this.usedLines = lines;
    return undefined;
  }
}

/** Lines of a text: its line breaks, and one more for a last line without one. */
function lineCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return text.length > 0 && !text.endsWith('\n') ? count + 1 : count;
}

export type FileKind = 'file' | 'directory' | 'missing' | 'other';

export class FileAccessError extends UserError {
  constructor(
    message: string,
    readonly code: 'missing' | 'not-a-file' | 'is-directory' | 'too-large' | 'unreadable' | 'escapes-sysroot' | 'loop',
    /** The system error behind it (`EACCES`), when there is one: the servers print it in their own words. */
    readonly systemCode?: string,
  ) {
    super(message);
  }
}

/** A system error as C's strerror words it, with its number: `EACCES` -> 13, "Permission denied". */
export function systemError(code: string | undefined): { readonly errno: number | undefined; readonly text: string } {
  // The map is libuv's (negative errno -> [name, text]); node:os's errno table would load a module per run for an error path.
  if (code !== undefined) {
    for (const [negated, [name, text]] of getSystemErrorMap()) {
      if (name === code) return { errno: -negated, text: text.charAt(0).toUpperCase() + text.slice(1) };
    }
  }
  return { errno: undefined, text: code ?? 'unknown error' };
}

const MAX_SYMLINK_HOPS = 40;

/**
 * Every file access of a run goes through here, so a config repository linted
 * with `--sysroot` cannot read outside it: absolute paths, `..` and symlinks
 * (absolute or relative) all resolve inside the root, as in a chroot. With
 * `--sysroot-at`, the root holds one directory of the server's (a repository
 * of /etc/httpd's files), and what lies outside that directory does not exist.
 */
export class ConfigFileSystem {
  readonly sysroot: string | undefined;
  /** The sysroot as given, symlinks not followed: a path under it is a path under the sysroot. */
  private readonly sysrootAsGiven: string | undefined;
  /** The server path the sysroot holds, as given (`/etc/httpd`); `/` for a whole root. */
  readonly sysrootAt: string;
  /** The same without a trailing `/`: '' for the whole root. */
  private readonly mount: string;
  readonly cwd: string;
  readonly limits: Limits;

  /** Texts that replace files on disk (keyed by real path): the fixer's passes lint their own output. */
  private readonly overlay: ReadonlyMap<string, string>;
  /** The files the overlay replaces, as read through this view. */
  private readonly overlaid = new Map<string, SourceFile>();
  /** What this view and the overlay views made from it learnt about the disk during the run. */
  private readonly known: DiskKnowledge;

  constructor(
    options: {
      sysroot?: string | undefined;
      sysrootAt?: string | undefined;
      cwd?: string;
      limits?: Partial<Limits>;
      overlay?: ReadonlyMap<string, string>;
      /**
       * The view this one is made from (withOverlay), whose knowledge of the
       * disk and limits it shares as they are: set once per view, so the code
       * V8 optimised for the first view's fields stays valid for the next.
       */
      shared?: ConfigFileSystem;
    } = {},
  ) {
    this.cwd = options.cwd ?? process.cwd();
    this.overlay = options.overlay ?? new Map();
    this.sysrootAsGiven = options.sysroot === undefined ? undefined : path.resolve(this.cwd, options.sysroot);
    this.sysroot = this.sysrootAsGiven === undefined ? undefined : fs.realpathSync(this.sysrootAsGiven);
    this.sysrootAt = options.sysrootAt ?? '/';
    if (!isNormalAbsolute(this.sysrootAt) && this.sysrootAt !== '/') {
      throw new UserError(`--sysroot-at ${this.sysrootAt}: expected an absolute path without '.', '..' or a trailing '/', e.g. /etc/httpd`);
    }
    if (this.sysrootAt !== '/' && this.sysroot === undefined)
      throw new UserError(`--sysroot-at ${this.sysrootAt} needs --sysroot: the directory that holds it`);
    this.mount = this.sysrootAt === '/' ? '' : this.sysrootAt;
    this.known = options.shared?.known ?? new DiskKnowledge();
    this.limits = options.shared?.limits ?? withDefaults(options.limits);
  }

  /**
   * Where a path written in a config (as the server would see it) is on this
   * disk: joined under the sysroot when there is one. Relative paths resolve
   * against `base`, which is itself such a path.
   */
  locate(configPath: string, base?: string): string {
    if (base !== undefined) return this.locateFrom(configPath, base);
    // Remembered: an include walk locates each file it lists, then each file it reads.
    let located = this.known.located.get(configPath);
    if (located === undefined) {
      located = this.locateFrom(configPath, undefined);
      this.known.located.set(configPath, located);
    }
    return located;
  }

  private locateFrom(configPath: string, base: string | undefined): string {
    // What resolve gives for a path it would leave as it is, without its cost per included file.
    const normal = isNormalAbsolute(configPath);
    if (this.sysroot === undefined) {
      if (normal) return configPath;
      return path.resolve(this.cwd, base === undefined ? configPath : path.posix.resolve(base, configPath));
    }
    const serverPath = normal ? configPath : path.posix.resolve(base ?? '/', configPath);
    return this.hostOf(serverPath) ?? outsideSysroot(serverPath);
  }

  /**
   * Where a normalised absolute server path is under the sysroot (which is
   * set): undefined for a path outside the directory `--sysroot-at` names.
   */
  private hostOf(serverPath: string): string | undefined {
    const root = this.sysroot as string;
    if (this.mount === '') return serverPath === '/' ? root : childPath(root, serverPath.slice(1));
    if (serverPath === this.mount) return root;
    return serverPath.startsWith(`${this.mount}/`) ? childPath(root, serverPath.slice(this.mount.length + 1)) : undefined;
  }

  /**
   * The same view of the disk with some files replaced by new text, over the
   * texts this view already replaces (an editor's unsaved buffers). It shares
   * what this view learnt: a fix pass re-reads only the files it changed.
   */
  withOverlay(overlay: ReadonlyMap<string, string>): ConfigFileSystem {
    const merged = this.overlay.size === 0 ? overlay : new Map([...this.overlay, ...overlay]);
    return new ConfigFileSystem({ sysroot: this.sysrootAsGiven, sysrootAt: this.sysrootAt, cwd: this.cwd, overlay: merged, shared: this });
  }

  /** The inverse of locate for display: the path as the server would see it. */
  serverPath(hostPath: string): string {
    if (this.sysroot === undefined) return hostPath;
    const outside = serverPathOutside(hostPath);
    if (outside !== undefined) return outside;
    const inside = path.relative(this.sysroot, this.underRealRoot(hostPath));
    if (inside.startsWith('..')) return hostPath;
    return inside === '' ? this.sysrootAt : `${this.mount}/${inside.split(path.sep).join('/')}`;
  }

  /** Path relative to the working directory, with `/` separators, for people and patches. */
  display(hostPath: string): string {
    let shown = this.known.displayed.get(hostPath);
    if (shown === undefined) {
      shown = serverPathOutside(hostPath) ?? this.relativeToCwd(hostPath);
      this.known.displayed.set(hostPath, shown);
    }
    return shown;
  }

  private relativeToCwd(hostPath: string): string {
    // What path.relative gives for a normalised path under the working directory, without its cost per included file.
    const under = this.cwd.endsWith('/') ? this.cwd : `${this.cwd}/`;
    // A path outside the working directory is shown absolute, as it is.
    if (isNormalAbsolute(hostPath)) return hostPath.startsWith(under) ? hostPath.slice(under.length) : hostPath;
    const relative = path.relative(this.cwd, hostPath);
    return (relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? hostPath : relative).split(path.sep).join('/');
  }

  /**
   * Follows symlinks; inside a sysroot they are resolved relative to it and may not leave it.
   * Remembered for the run: the include walk asks for a file's real path more
   * than once, and each answer costs a system call per path component.
   */
  resolve(hostPath: string): string {
    let real = this.known.realPaths.get(hostPath);
    if (real === undefined) {
      if (this.sysroot === undefined) real = this.realPath(hostPath);
      else real = isOutsideSysroot(hostPath) ? hostPath : this.resolveInRoot(this.sysroot, this.underRealRoot(hostPath));
      this.known.realPaths.set(hostPath, real);
    }
    return real;
  }

  private realPath(hostPath: string): string {
    try {
      const native = this.native(hostPath);
      // A path with bytes that are not UTF-8 is already real as far as its listing went: realpath would decode them.
      return typeof native === 'string' ? fs.realpathSync.native(native) : hostPath;
    } catch (error) {
      if (isCode(error, 'ELOOP')) throw new FileAccessError(`${this.display(hostPath)}: too many levels of symbolic links`, 'loop');
      return hostPath;
    }
  }

  /** A path given under the sysroot as written (`repo-link/etc/...`), as the same path under the real sysroot. */
  private underRealRoot(hostPath: string): string {
    const given = this.sysrootAsGiven;
    if (given === undefined || this.sysroot === undefined || given === this.sysroot) return hostPath;
    const inside = path.relative(given, hostPath);
    return inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside) ? hostPath : path.join(this.sysroot, inside);
  }

  private resolveInRoot(root: string, hostPath: string): string {
    // Walked as the server sees the path, from its `/`: a symlink's target is a server path, and `..` above
    // --sysroot-at leaves the directory the sysroot holds. The path so far is grown and cut a component at a
    // time, its parts being plain names (no '', '.' or '/'): path.join and path.relative would normalise whole
    // strings again for every path resolved.
    const top = root.endsWith('/') ? root.slice(0, -1) : root;
    const inside =
      isNormalAbsolute(hostPath) && hostPath.startsWith(`${top}/`) ? hostPath.slice(top.length + 1) : path.relative(root, hostPath);
    const start = this.walkStart(inside);
    const { pending, remember } = start;
    // A directory walk is remembered only for paths inside, so a first part '..' is seen either way.
    if (pending[0] === '..') throw new FileAccessError(`${this.display(hostPath)} is outside the sysroot ${root}`, 'escapes-sysroot');
    let { resolved, hops } = start;
    // The parts of the path as given still to walk, as against those of symlink targets put before them.
    let givenLeft = pending.length;
    let targetParts = 0;
    while (pending.length > 0) {
      if (remember !== undefined && targetParts === 0 && givenLeft === 1) this.known.directoryWalks.set(remember, { resolved, hops });
      const part = pending.shift() as string;
      if (targetParts > 0) targetParts--;
      else givenLeft--;
      if (part === '..') {
        if (resolved !== '') resolved = resolved.slice(0, resolved.lastIndexOf('/'));
        continue;
      }
      const candidate = `${resolved}/${part}`;
      const onDisk = this.hostOf(candidate);
      // Outside the directory the sysroot holds nothing exists, symlinks included.
      const link = onDisk === undefined ? undefined : this.linkAt(onDisk);
      if (link === undefined) {
        resolved = candidate;
        continue;
      }
      if (++hops > MAX_SYMLINK_HOPS) throw new FileAccessError(`${this.display(hostPath)}: too many levels of symbolic links`, 'loop');
      const target = link.split('/').filter((p) => p !== '' && p !== '.');
      if (link.startsWith('/')) resolved = '';
      pending.unshift(...target);
      targetParts += target.length;
    }
    return this.hostOf(resolved === '' ? '/' : resolved) ?? outsideSysroot(resolved);
  }

  /**
   * Where resolving a path starts. Every file of a directory walks the same
   * parts up to its own name, so where the walk stood before the last part is
   * remembered by the directory (`remember`) and the next file there starts
   * from it with its last part alone. `inside` is normalised (no '', '.' or
   * inner '..' part), so its text up to the last '/' is the parts before the
   * last one.
   */
  private walkStart(inside: string): { pending: string[]; resolved: string; hops: number; remember: string | undefined } {
    const slash = inside.lastIndexOf('/');
    const directory = inside.slice(0, Math.max(0, slash));
    const before = inside === '' ? undefined : this.known.directoryWalks.get(directory);
    if (before !== undefined)
      return { pending: [inside.slice(slash + 1)], resolved: before.resolved, hops: before.hops, remember: undefined };
    const pending = inside.split(path.sep).filter((part) => part !== '' && part !== '.');
    return { pending, resolved: this.mount, hops: 0, remember: inside === '' ? undefined : directory };
  }

  /**
   * The target of a symlink inside the sysroot, undefined for anything else;
   * remembered, since every path under a directory walks the same prefixes.
   */
  private linkAt(candidate: string): string | undefined {
    let link = this.known.links.get(candidate);
    if (link === undefined) {
      link = null;
      try {
        // A listing has said which entries are symlinks (Debian's mods-enabled is all symlinks): no lstat for those.
        if (this.known.entryKinds.get(candidate) === 'symlink') {
          link = fs.readlinkSync(this.native(candidate), 'utf8');
        } else {
          const stat = fs.lstatSync(this.native(candidate), NO_THROW_IF_MISSING);
          if (stat?.isSymbolicLink() === true) link = fs.readlinkSync(this.native(candidate), 'utf8');
          else if (stat !== undefined) this.known.realKinds.set(candidate, kindOf(stat));
        }
      } catch {
        link = null;
      }
      this.known.links.set(candidate, link);
    }
    return link ?? undefined;
  }

  kind(hostPath: string): FileKind {
    let kind = this.known.kinds.get(hostPath);
    if (kind === undefined) {
      kind = this.statKind(hostPath);
      this.known.kinds.set(hostPath, kind);
    }
    return kind;
  }

  private statKind(hostPath: string): FileKind {
    if (isOutsideSysroot(hostPath)) return 'missing';
    try {
      if (this.sysroot === undefined) return kindOf(fs.statSync(this.native(hostPath), NO_THROW_IF_MISSING));
      const real = this.resolve(hostPath);
      // Resolving inside a sysroot lstat'ed the last component already, unless a listing or the cache answered.
      return this.known.realKinds.get(real) ?? kindOf(fs.statSync(this.native(real), NO_THROW_IF_MISSING));
    } catch {
      return 'missing';
    }
  }

  /**
   * The type of a directory entry itself, a symlink not followed, as a
   * directory listing reports it (httpd's wildcard walk relies on that).
   */
  entryKind(hostPath: string): FileKind | 'symlink' {
    const listed = this.known.entryKinds.get(hostPath);
    if (listed !== undefined) return listed;
    if (isOutsideSysroot(hostPath)) return 'missing';
    try {
      const stat = fs.lstatSync(this.native(path.join(this.resolve(path.dirname(hostPath)), path.basename(hostPath))), NO_THROW_IF_MISSING);
      return stat?.isSymbolicLink() === true ? 'symlink' : kindOf(stat);
    } catch {
      return 'missing';
    }
  }

  /** Entry names of a directory, unsorted; [] when it cannot be read. */
  list(hostPath: string): string[] {
    try {
      return this.readDirectory(hostPath);
    } catch {
      return [];
    }
  }

  /** Entry names of a directory, unsorted; a FileAccessError when it cannot be read (the servers refuse to start then). */
  readDirectory(hostPath: string): string[] {
    let entries: fs.Dirent[];
    if (isOutsideSysroot(hostPath))
      throw new FileAccessError(`${this.display(hostPath)}: cannot read the directory (ENOENT)`, 'missing', 'ENOENT');
    const directory = this.sysroot === undefined ? hostPath : this.resolve(hostPath);
    try {
      entries = fs.readdirSync(this.native(directory), { withFileTypes: true });
      if (entries.some((entry) => entry.name.includes('\uFFFD'))) entries = this.withRawNames(hostPath, directory);
    } catch (error) {
      if (error instanceof FileAccessError) throw error;
      const code = isCode(error, 'ENOENT') ? 'missing' : isCode(error, 'ELOOP') ? 'loop' : 'unreadable';
      throw new FileAccessError(`${this.display(hostPath)}: cannot read the directory (${codeOf(error)})`, code, codeOf(error));
    }
    this.rememberEntries(hostPath, entries);
    return entries.map((entry) => entry.name);
  }

  /**
   * The listing again with names that are not UTF-8 (`caf\351.conf`, which
   * httpd reads as any other) read as latin1, one char per byte, and the
   * bytes of each such path remembered for the system calls on it: Node
   * decodes names as UTF-8 and would turn them into names that do not exist.
   */
  private withRawNames(hostPath: string, directory: string): fs.Dirent[] {
    const raw = fs.readdirSync(this.nativeBuffer(directory), { withFileTypes: true, encoding: 'buffer' });
    return raw.map((entry) => {
      const bytes = entry.name;
      const utf8 = bytes.toString('utf8');
      if (!utf8.includes('\uFFFD')) return Object.assign(entry, { name: utf8 });
      const name = bytes.toString('latin1');
      // The path as listed, as resolved into the sysroot, and as real (what the reads use): each with the name's bytes.
      for (const parent of new Set([hostPath, directory, this.resolve(hostPath)])) {
        this.known.nativePaths.set(childPath(parent, name), Buffer.concat([this.nativeBuffer(parent), Buffer.from('/'), bytes]));
      }
      return Object.assign(entry, { name });
    });
  }

  /** A path as the system calls need it: its bytes when a listing found a name in it that is not UTF-8. */
  private native(file: string): string | Buffer {
    if (this.known.nativePaths.size === 0) return file;
    for (let prefix = file; ; prefix = path.dirname(prefix)) {
      const bytes = this.known.nativePaths.get(prefix);
      if (bytes !== undefined) return prefix === file ? bytes : Buffer.concat([bytes, Buffer.from(file.slice(prefix.length), 'utf8')]);
      if (prefix === path.dirname(prefix)) return file;
    }
  }

  private nativeBuffer(file: string): Buffer {
    const native = this.native(file);
    return typeof native === 'string' ? Buffer.from(native, 'utf8') : native;
  }

  /**
   * What a listing tells for free: each entry's own type and, for an entry
   * that is not a symlink, its kind and real path (the directory's real path
   * and its name). An include of a directory of 10,000 vhosts then costs no
   * stat and no realpath per file.
   */
  private rememberEntries(hostPath: string, entries: readonly fs.Dirent[]): void {
    const realDirectory = this.resolve(hostPath);
    for (const entry of entries) {
      const entryPath = childPath(hostPath, entry.name);
      if (entry.isSymbolicLink()) {
        this.known.entryKinds.set(entryPath, 'symlink');
        continue;
      }
      const kind: FileKind = entry.isFile() ? 'file' : entry.isDirectory() ? 'directory' : 'other';
      // One string for both where the directory is its own real path: each new path is hashed by every map it goes in.
      const real = realDirectory === hostPath ? entryPath : childPath(realDirectory, entry.name);
      this.known.entryKinds.set(entryPath, kind);
      this.known.kinds.set(entryPath, kind);
      this.known.realPaths.set(entryPath, real);
      if (this.sysroot !== undefined) this.known.links.set(real, null);
    }
  }

  /**
   * Reads a regular file without ever blocking on a FIFO or device: it is
   * opened non-blocking and checked with fstat before a byte is read.
   * `/dev/null` reads as empty, as Apache allows it.
   */
  read(hostPath: string, displayPath = this.display(hostPath)): SourceFile {
    if (hostPath === '/dev/null' && this.sysroot === undefined) return new SourceFile(hostPath, displayPath, '');
    const real = this.resolve(hostPath);
    let onDisk = this.known.files.get(hostPath);
    if (onDisk?.displayPath !== displayPath) {
      onDisk = this.readDisk(hostPath, real, displayPath);
      this.known.files.set(hostPath, onDisk);
    }
    const replaced = this.overlay.get(real);
    if (replaced === undefined) return onDisk;
    // One SourceFile per file and view, as for the disk: what is parsed of it is kept per SourceFile.
    let overlaid = this.overlaid.get(hostPath);
    if (overlaid?.displayPath !== displayPath) {
      overlaid = new SourceFile(hostPath, displayPath, replaced, onDisk.encoding, onDisk.patchPath, real);
      this.overlaid.set(hostPath, overlaid);
    }
    return overlaid;
  }

  private readDisk(hostPath: string, real: string, displayPath: string): SourceFile {
    if (isOutsideSysroot(real)) throw new FileAccessError(`${displayPath}: no such file`, 'missing');
    let fd: number;
    try {
      fd = fs.openSync(this.native(real), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    } catch (error) {
      if (isCode(error, 'ENOENT')) throw new FileAccessError(`${displayPath}: no such file`, 'missing');
      if (isCode(error, 'ELOOP')) throw new FileAccessError(`${displayPath}: too many levels of symbolic links`, 'loop');
      if (isCode(error, 'EISDIR')) throw new FileAccessError(`${displayPath} is a directory, not a file`, 'is-directory');
      throw new FileAccessError(`${displayPath}: cannot read (${codeOf(error)})`, 'unreadable', codeOf(error));
    }
    try {
      const stat = fs.fstatSync(fd);
      if (stat.isDirectory()) throw new FileAccessError(`${displayPath} is a directory, not a file`, 'is-directory');
      if (!stat.isFile()) throw new FileAccessError(`${displayPath} is not a regular file`, 'not-a-file');
      if (stat.size > this.limits.maxFileBytes) {
        throw new FileAccessError(
          `${displayPath} is ${stat.size} bytes, over the limit of ${this.limits.maxFileBytes} bytes (--max-file-size)`,
          'too-large',
        );
      }
      const { text, encoding } = decodeBytes(readToEnd(fd, stat.size, this.limits.maxFileBytes, displayPath));
      const patchPath = real === hostPath ? displayPath : this.display(real);
      const native = this.native(real);
      return new SourceFile(hostPath, displayPath, text, encoding, patchPath, real, typeof native === 'string' ? undefined : native);
    } catch (error) {
      if (error instanceof FileAccessError) throw error;
      throw new FileAccessError(`${displayPath}: cannot read (${codeOf(error)})`, 'unreadable', codeOf(error));
    } finally {
      fs.closeSync(fd);
    }
  }
}

/**
 * Answers about the disk remembered for one run (files do not change under a
 * lint): real paths, kinds, directory entries, symlinks and file contents.
 * The methods above look them up inline rather than through remembered()
 * (util/remembered.ts): a closure per lookup on the include walk's path cost
 * 5% of the instructions of a lint of 1,000 vhosts.
 */
class DiskKnowledge {
  readonly realPaths = new Map<string, string>();
  /** From stat, or from a directory listing (see rememberEntries). */
  readonly kinds = new Map<string, FileKind>();
  readonly entryKinds = new Map<string, FileKind | 'symlink'>();
  /** What lstat said of a real path inside the sysroot that is not a symlink, as resolving it learnt. */
  readonly realKinds = new Map<string, FileKind>();
  /** Symlink targets inside the sysroot by real path; null for what is not a symlink. */
  readonly links = new Map<string, string | null>();
  /** Where resolving stood before a path's last component, by the directory as written (resolveInRoot). */
  readonly directoryWalks = new Map<string, { readonly resolved: string; readonly hops: number }>();
  /** Files as read from disk, by host path. */
  readonly files = new Map<string, SourceFile>();
  /** locate() without a base, by config path. */
  readonly located = new Map<string, string>();
  /** display() by host path. */
  readonly displayed = new Map<string, string>();
  /** The bytes of paths whose names are not UTF-8, by the path as tune-lint holds it (those names as latin1). */
  readonly nativePaths = new Map<string, Buffer>();
}

/** Files up to this size are read into one buffer kept for the next file; larger ones into their own. */
const SHARED_READ_BYTES = 64 * 1024;
const sharedRead = Buffer.allocUnsafe(SHARED_READ_BYTES);

/**
 * The bytes of an open file up to its end. The size fstat gives is where to
 * start, not the end: files in /proc and /sys say 0 and still have content,
 * which httpd, reading to EOF, gets.
 *
 * The bytes are valid until the next read: callers decode them at once.
 * A fresh buffer per file (4 KiB at least, past Node's pool) cost an
 * allocation and a collection each on 10,000 small vhost files. The buffer has
 * room for a byte more than fstat reported, so a file read whole comes back
 * short and that read is the last; a read that stops before fstat's size
 * (network and FUSE file systems may return less) is read on until a read
 * returns nothing, and so is a file that grew since.
 */
function readToEnd(fd: number, size: number, limit: number, displayPath: string): Buffer {
  let bytes = size < SHARED_READ_BYTES ? sharedRead : Buffer.allocUnsafe(size + 1);
  let filled = 0;
  for (;;) {
    if (filled === bytes.length) {
      if (filled > limit)
        throw new FileAccessError(`${displayPath} is more than ${limit} bytes, over the limit (--max-file-size)`, 'too-large');
      const larger = Buffer.allocUnsafe(bytes.length * 2);
      bytes.copy(larger, 0, 0, filled);
      bytes = larger;
    }
    const wanted = bytes.length - filled;
    const count = fs.readSync(fd, bytes, filled, wanted, null);
    filled += count;
    if (count === 0 || (count < wanted && filled >= size)) return bytes.subarray(0, filled);
  }
}

/**
 * `path.join(directory, name)` for a normalised absolute directory and a name
 * from a listing (never `.`, `..` or containing `/`), without normalising
 * again: a directory of 10,000 vhosts is listed with one join per entry.
 */
export function childPath(directory: string, name: string): string {
  return directory.endsWith('/') ? `${directory}${name}` : `${directory}/${name}`;
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

function codeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') {
    return (error as { code: string }).code;
  }
  return error instanceof Error ? error.message : String(error);
}

function kindOf(stat: fs.Stats | undefined): FileKind {
  return stat === undefined ? 'missing' : stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : 'other';
}

/**
 * For a path that may not exist, as a config's optional paths often do: a
 * thrown error captures a stack trace, which costs more than the system call.
 */
const NO_THROW_IF_MISSING = { throwIfNoEntry: false } as const;

/**
 * A server path outside the directory `--sysroot-at` names, where a host path
 * stands: the NUL cannot be in a real path, so a slip past the checks above
 * is an error from Node rather than a read of some other file.
 */
const OUTSIDE_SYSROOT = '\0outside-sysroot:';

function outsideSysroot(serverPath: string): string {
  return `${OUTSIDE_SYSROOT}${serverPath === '' ? '/' : serverPath}`;
}

function isOutsideSysroot(hostPath: string): boolean {
  return hostPath.startsWith(OUTSIDE_SYSROOT);
}

function serverPathOutside(hostPath: string): string | undefined {
  return isOutsideSysroot(hostPath) ? hostPath.slice(OUTSIDE_SYSROOT.length) : undefined;
}

/** An absolute path that path.resolve leaves unchanged: no empty, `.` or `..` component and no trailing `/`. */
export function isNormalAbsolute(candidate: string): boolean {
  if (candidate.charCodeAt(0) !== 47 || candidate.length === 1 || candidate.endsWith('/')) return false;
  // Most paths have no component starting with a dot: two searches, not five, for each of a tree's 10,000 DocumentRoots.
  if (!candidate.includes('/.')) return !candidate.includes('//');
  return (
    !candidate.includes('//') &&
    !candidate.includes('/./') &&
    !candidate.includes('/../') &&
    !candidate.endsWith('/.') &&
    !candidate.endsWith('/..')
  );
}
