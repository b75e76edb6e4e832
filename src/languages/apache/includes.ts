import * as path from 'node:path';
import { childPath, FileAccessError, systemError, type ConfigFileSystem } from '../../core/file-system.js';
import { versionAtLeast } from '../../core/targets.js';
import { byteOrder, compileFnmatch, hasWildcard } from '../../util/fnmatch.js';

/**
 * What an `Include` or `IncludeOptional` pattern names, as httpd finds it:
 * the files in the order it reads them, or its own error when the include is
 * fatal. The model reads each of them where the include stands.
 */
export class IncludeResolver {
  constructor(
    private readonly fs: ConfigFileSystem,
    /** Target httpd version: 2.2 takes wildcards in the last component only. */
    private readonly httpd: string,
  ) {}

  /**
   * Expands an include target into files in the order httpd reads them
   * (config.c `ap_process_fnmatch_configs`): wildcards in any component on
   * 2.4 (a middle component matches directories only, as reported by the
   * directory entry itself), whole directories read recursively, candidates
   * sorted by strcmp, and a pattern with no match fatal unless IncludeOptional.
   */
  resolve(absolute: string, optional: boolean): { files: string[]; error?: string } {
    const files: string[] = [];
    const components = absolute.split('/').filter((part) => part !== '');
    if (!versionAtLeast(this.httpd, '2.4')) return this.resolve22(absolute, files);
    const firstWild = components.findIndex(hasWildcard);
    if (firstWild === -1) {
      const error = this.readPlain(absolute, optional, files, 0);
      return error === undefined ? { files } : { files, error };
    }
    const error = this.matchComponents(`/${components.slice(0, firstWild).join('/')}`, components.slice(firstWild), optional, files);
    return error === undefined ? { files } : { files, error };
  }

  /** The entries of a directory, or httpd's error when it cannot open it (fatal even for IncludeOptional). */
  private listDirectory(hostPath: string, serverPath: string): string[] | string {
    try {
      return this.fs.readDirectory(hostPath);
    } catch (error) {
      const reason = error instanceof FileAccessError ? systemError(error.systemCode).text : String(error);
      return `Could not open directory ${serverPath}: ${reason}`;
    }
  }

  private realPathOf(hostPath: string): string {
    try {
      return this.fs.resolve(hostPath);
    } catch {
      return hostPath;
    }
  }

  private matchComponents(dir: string, rest: readonly string[], optional: boolean, files: string[]): string | undefined {
    const [component, ...remaining] = rest as [string, ...string[]];
    if (!hasWildcard(component)) {
      const next = path.posix.join(dir, component);
      return remaining.length === 0 ? this.readPlain(next, optional, files, 0) : this.matchComponents(next, remaining, optional, files);
    }
    const hostDir = this.fs.locate(dir);
    if (this.fs.kind(hostDir) !== 'directory') {
      return optional ? undefined : `Could not open config directory ${dir}: No such file or directory`;
    }
    const matches = compileFnmatch(component);
    const listed = this.listDirectory(hostDir, dir);
    if (typeof listed === 'string') return listed;
    const candidates = listed
      .filter((name) => matches(name) && (remaining.length === 0 || this.isDirectoryEntry(childPath(hostDir, name))))
      .sort(byteOrder);
    if (candidates.length === 0) return optional ? undefined : `No matches for the wildcard '${component}' in '${dir}', failing`;
    for (const name of candidates) {
      const next = childPath(dir, name);
      const error =
        remaining.length === 0 ? this.readPlain(next, optional, files, 0) : this.matchComponents(next, remaining, optional, files);
      if (error !== undefined) return error;
    }
    return undefined;
  }

  /** A directory entry's own type, without following a symlink (httpd uses the dirent type). */
  private isDirectoryEntry(hostPath: string): boolean {
    return this.fs.entryKind(hostPath) === 'directory';
  }

  private readPlain(
    serverPath: string,
    optional: boolean,
    files: string[],
    dirDepth: number,
    walking: readonly { real: string; serverPath: string }[] = [],
  ): string | undefined {
    const hostPath = this.fs.locate(serverPath);
    const kind = this.fs.kind(hostPath);
    if (kind === 'directory') {
      if (dirDepth + 1 > 128) return `Directory ${serverPath} exceeds the maximum include directory nesting level of 128`;
      const real = this.realPathOf(hostPath);
      // httpd follows a symlink back to a directory it is reading until the path is too long; with two such links that takes forever.
      const again = walking.find((entry) => entry.real === real);
      if (again !== undefined)
        return `Directory ${serverPath} is ${again.serverPath} again through a symlink; httpd would follow the loop until the path is too long to open, and with two such links practically forever`;
      const inside = [...walking, { real, serverPath }];
      const listed = this.listDirectory(hostPath, serverPath);
      if (typeof listed === 'string') return listed;
      for (const name of listed.sort(byteOrder)) {
        const error = this.readPlain(childPath(serverPath, name), optional, files, dirDepth + 1, inside);
        if (error !== undefined) return error;
      }
      return undefined;
    }
    if (kind === 'missing') {
      if (optional && versionAtLeast(this.httpd, '2.4.30')) return undefined;
      return `Could not open configuration file ${serverPath}: No such file or directory`;
    }
    if (kind === 'other' && serverPath !== '/dev/null') return `Access to file ${serverPath} denied by server: not a regular file`;
    files.push(serverPath);
    return undefined;
  }

  /** httpd 2.2: a wildcard only in the last component, and no match is silently accepted. */
  private resolve22(absolute: string, files: string[]): { files: string[]; error?: string } {
    const dir = path.posix.dirname(absolute);
    const last = path.posix.basename(absolute);
    if (hasWildcard(dir)) return { files, error: `Wildcard patterns not allowed in Include ${absolute}` };
    if (!hasWildcard(last)) {
      const error = this.readPlain(absolute, false, files, 0);
      return error === undefined ? { files } : { files, error };
    }
    const hostDir = this.fs.locate(dir);
    if (this.fs.kind(hostDir) !== 'directory') return { files, error: `Include directory '${dir}' not found` };
    const matches = compileFnmatch(last);
    const listed = this.listDirectory(hostDir, dir);
    if (typeof listed === 'string') return { files, error: listed };
    for (const name of listed.filter(matches).sort(byteOrder)) {
      const error = this.readPlain(childPath(dir, name), false, files, 0);
      if (error !== undefined) return { files, error };
    }
    return { files };
  }
}
