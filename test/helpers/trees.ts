import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Every entry under a directory, by path relative to it: a file's bytes (as
 * latin1, so any byte compares), preceded by its mode bits with `modes`; a
 * symlink's target as `symlink -> TARGET`. Two snapshots are equal when
 * nothing in the tree was written, renamed, relinked or (with `modes`) chmodded.
 */
export function snapshotTree(root: string, options: { readonly modes?: boolean } = {}): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const key = path.relative(root, full);
      if (entry.isDirectory()) walk(full);
      else if (entry.isSymbolicLink()) out.set(key, `symlink -> ${fs.readlinkSync(full)}`);
      else {
        const bytes = fs.readFileSync(full, 'latin1');
        out.set(key, options.modes === true ? `${(fs.statSync(full).mode & 0o7777).toString(8)} ${bytes}` : bytes);
      }
    }
  };
  walk(root);
  return out;
}

/**
 * This machine's stock php-fpm (Debian's `/etc/php/VERSION/fpm`: php-fpm.conf
 * and pool.d, php.ini and conf.d left out) copied under `into`, as a tree a
 * sysroot holds; undefined when php-fpm is not installed. Returns the tree
 * and the pool file's path in it.
 */
export function stockPhpFpmTree(into: string): { readonly root: string; readonly pool: string } | undefined {
  const versions = fs.existsSync('/etc/php') ? fs.readdirSync('/etc/php').sort() : [];
  const fpm = versions.map((version) => `/etc/php/${version}/fpm`).find((dir) => fs.existsSync(`${dir}/pool.d/www.conf`));
  if (fpm === undefined) return undefined;
  fs.mkdirSync(path.join(into, path.dirname(fpm)), { recursive: true });
  fs.cpSync(fpm, path.join(into, fpm), { recursive: true, filter: (source) => !source.includes('/conf.d') && !source.endsWith('php.ini') });
  return { root: into, pool: `${fpm.slice(1)}/pool.d/www.conf` };
}
