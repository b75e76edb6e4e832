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
