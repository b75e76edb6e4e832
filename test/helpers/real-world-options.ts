import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoPath } from './paths.js';

/**
 * `name = value` of the server groups of every option file under the given
 * trees of fixtures/real-world (all of them when none is named), each name
 * once, as the first file sets it: what the oracles of the MySQL and MariaDB
 * series are asked about. loose- names are left out: no server refuses them.
 */
export function realWorldServerOptions(groups: ReadonlySet<string>, trees?: readonly string[]): Map<string, string> {
  const options = new Map<string, string>();
  const roots = (trees ?? ['']).map((tree) => repoPath('fixtures', 'real-world', tree));
  for (const root of roots) {
    for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.cnf$|^my\.cnf$/.test(entry.name)) continue;
      let group = '';
      for (const raw of fs.readFileSync(path.join(entry.parentPath, entry.name), 'latin1').split('\n')) {
        const line = raw.replace(/\s+#.*$/, '').trim();
        const header = /^\[([^\]]+)\]$/.exec(line);
        if (header !== null) group = (header[1] ?? '').trim().toLowerCase();
        else if (groups.has(group) && /^[a-z]/i.test(line)) {
          const [name = '', value] = line.split(/\s*=\s*/, 2);
          const key = name.trim().toLowerCase().replaceAll('-', '_');
          if (!key.startsWith('loose_') && !options.has(key)) options.set(key, value ?? '');
        }
      }
    }
  }
  return options;
}
