import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/types.js';
import { builtinLanguages } from '../languages/index.js';

/** `--sysroot DIR` and `--sysroot-at PATH`: DIR holds the server's PATH (`/` when not given). */
export interface Sysroot {
  readonly sysroot?: string | undefined;
  readonly sysrootAt?: string | undefined;
}

/**
 * A main config given on the command line, as an absolute path. With
 * --sysroot an absolute path outside it is the path as the server sees it
 * (`/etc/apache2/apache2.conf`) and is looked up inside it.
 */
export function mainPath(file: string, where: Sysroot, cwd: string): string {
  if (file === '') throw new ConfigError('an empty path was given as a config to read; give the file (apache2.conf, my.cnf, a pool)');
  const resolved = path.resolve(cwd, file);
  if (where.sysroot === undefined || !path.isAbsolute(file)) return resolved;
  const root = path.resolve(cwd, where.sysroot);
  if (isInside(root, resolved)) return resolved;
  const onDisk = underSysroot(root, where.sysrootAt, resolved);
  if (onDisk === undefined)
    throw new ConfigError(`${file} is outside --sysroot-at ${where.sysrootAt}, the part of the server --sysroot ${where.sysroot} holds`);
  return onDisk;
}

/** The main configs to lint, each once: the paths given, or the system's configs found (inside --sysroot). */
export function mainPaths(paths: readonly string[], where: Sysroot, cwd: string): string[] {
  const root = where.sysroot === undefined ? undefined : path.resolve(cwd, where.sysroot);
  if (root !== undefined && !isDirectory(root)) throw new ConfigError(`--sysroot ${where.sysroot}: not a directory`);
  if (paths.length > 0) return [...new Set(paths.map((file) => mainPath(file, where, cwd)))];
  const found = systemConfigs(root, where.sysrootAt);
  if (found.length === 0) {
    const at = where.sysrootAt === undefined || where.sysrootAt === '/' ? '' : ` (as ${where.sysrootAt})`;
    const under = where.sysroot === undefined ? '' : ` under --sysroot ${where.sysroot}${at}`;
    // The fixed paths: a directory listed for more of them (/etc/php/*) says nothing when it is not there.
    const named = builtinLanguages.flatMap((language) => language.systemConfigs(() => undefined));
    throw new ConfigError(`no config given and none found at ${named.join(', ')}${under}; give the main config files to lint`);
  }
  return found;
}

/**
 * The main configs every language keeps on a system, that exist on this one
 * (under the sysroot, as the server paths it holds), in the registry's order.
 */
export function systemConfigs(root: string | undefined, sysrootAt: string | undefined): string[] {
  const onDisk = (serverPath: string): string | undefined => (root === undefined ? serverPath : underSysroot(root, sysrootAt, serverPath));
  const listed = (serverDir: string): readonly string[] | undefined => {
    const dir = onDisk(serverDir);
    try {
      return dir === undefined ? undefined : fs.readdirSync(dir);
    } catch {
      return undefined;
    }
  };
  return builtinLanguages
    .flatMap((language) => language.systemConfigs(listed))
    .flatMap((file) => onDisk(file) ?? [])
    .filter((file) => fs.existsSync(file));
}

/**
 * The flags that say how the servers would read the files, checked before
 * anything is read: an empty value or a directory that is not there is a
 * mistake on the command line, not something a server would do.
 */
export function checkReadingFlags(
  options: { readonly includeBase?: string | undefined; readonly serverRoot?: string | undefined; readonly define?: readonly string[] },
  cwd: string,
): void {
  if (options.serverRoot === '') throw new ConfigError('--server-root: empty; give the directory httpd takes as its ServerRoot (httpd -d)');
  if (options.define?.includes('') === true) throw new ConfigError('--define: an empty name; give the name httpd would get with -D');
  if (options.includeBase !== undefined && !isDirectory(path.resolve(cwd, options.includeBase))) {
    throw new ConfigError(`--include-base ${options.includeBase}: not a directory`);
  }
}

/** Where a server path is under the sysroot root; undefined outside the directory --sysroot-at names. */
function underSysroot(root: string, sysrootAt: string | undefined, serverPath: string): string | undefined {
  const mount = sysrootAt === undefined || sysrootAt === '/' ? '' : sysrootAt;
  if (mount === '') return path.join(root, serverPath);
  if (serverPath === mount) return root;
  return serverPath.startsWith(`${mount}/`) ? path.join(root, serverPath.slice(mount.length)) : undefined;
}

function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
