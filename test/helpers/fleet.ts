import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from './cli.js';
import { repoPath } from './paths.js';

const STORY = repoPath('fixtures', 'apache', 'story-stock-prefork');

/**
 * A fleet directory as the Ansible role leaves it, from the CLI's own JSON:
 * the stock prefork story on a 500 MB and an 8 GB host, and a host with a live
 * server whose my.cnf is not in effect (from a profile with live facts).
 */
export function writeFleetReports(dir: string): void {
  const lint = (host: string, args: readonly string[]): void => {
    const run = runCli(['--no-probe', '--format', 'json', ...args], { cwd: dir });
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    fs.writeFileSync(path.join(dir, `${host}.json`), run.stdout);
  };
  const story = ['--per-child', '20M', '--sysroot', STORY, path.join(STORY, 'etc/apache2/apache2.conf')];
  lint('small-vps', ['--host-ram', '500M', ...story]);
  lint('big-box', ['--host-ram', '8G', ...story]);
  fs.writeFileSync(
    path.join(dir, 'db.yaml'),
    'ram: 4G\nmysqlLive:\n  server: mariadb=10.11.19\n  uptime: 864000\n  variables:\n    max_connections: "151"\n  status:\n    max_used_connections: "20"\n',
  );
  fs.writeFileSync(path.join(dir, 'db.cnf'), '[mysqld]\nmax_connections = 100\n');
  lint('db1', ['--profile', path.join(dir, 'db.yaml'), path.join(dir, 'db.cnf')]);
}
