import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/types.js';

/** Where the servers keep their main configs, in the order tune-lint looks with no path given. */
const SYSTEM_CONFIGS = ['/etc/apache2/apache2.conf', '/etc/httpd/conf/httpd.conf', '/etc/mysql/my.cnf', '/etc/my.cnf'];

/**
 * A main config given on the command line, as an absolute path. With
 * --sysroot an absolute path outside it is the path as the server sees it
 * (`/etc/apache2/apache2.conf`) and is looked up inside it.
 */
export function mainPath(file: string, sysroot: string | undefined, cwd: string): string {
  const resolved = path.resolve(cwd, file);
  if (sysroot === undefined || !path.isAbsolute(file)) return resolved;
  const root = path.resolve(cwd, sysroot);
  return isInside(root, resolved) ? resolved : path.join(root, file);
}

/** The main configs to lint, each once: the paths given, or the system's configs found (inside --sysroot). */
export function mainPaths(paths: readonly string[], sysroot: string | undefined, cwd: string): string[] {
  const root = sysroot === undefined ? undefined : path.resolve(cwd, sysroot);
  if (root !== undefined && !isDirectory(root)) throw new ConfigError(`--sysroot ${sysroot}: not a directory`);
  if (paths.length > 0) return [...new Set(paths.map((file) => mainPath(file, sysroot, cwd)))];
  const found = SYSTEM_CONFIGS.map((file) => (root === undefined ? file : path.join(root, file))).filter((file) => fs.existsSync(file));
  if (found.length === 0) {
    const where = sysroot === undefined ? '' : ` under --sysroot ${sysroot}`;
    throw new ConfigError(`no config given and none found at ${SYSTEM_CONFIGS.join(', ')}${where}; give the main config files to lint`);
  }
  return found;
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
