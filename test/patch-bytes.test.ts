import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CLI } from './helpers/cli.js';
import { requireTool } from './helpers/tools.js';


/*
 * --format diff writes each file's lines in that file's own bytes: a config
 * that is not valid UTF-8 (read as latin1) still gets a patch git applies,
 * and the result is byte for byte what --fix writes.
 */
describe('--format diff in the files\' own bytes', () => {
  it('a latin1 config: git apply takes the patch and gives what --fix writes', (t) => {
    const git = requireTool(t, 'git');
    if (git === undefined) return;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-bytes-'));
    try {
      const original = Buffer.from('LoadModule mpm_prefork_module m.so\n# Serveur de la caf\xe9t\xe9ria\nMaxClients 10\n', 'latin1');
      for (const dir of ['patched', 'fixed']) {
        fs.mkdirSync(path.join(root, dir));
        fs.writeFileSync(path.join(root, dir, 'httpd.conf'), original);
      }
      const diff = spawnSync(process.execPath, [CLI, '--no-probe', '--format', 'diff', 'httpd.conf'], { cwd: path.join(root, 'patched') });
      assert.ok(diff.stdout.includes(Buffer.from('caf\xe9t\xe9ria', 'latin1')), 'the context line is in latin1');
      fs.writeFileSync(path.join(root, 'fix.patch'), diff.stdout);
      execFileSync(git, ['apply', path.join(root, 'fix.patch')], { cwd: path.join(root, 'patched') });
      spawnSync(process.execPath, [CLI, '--no-probe', '--fix', 'httpd.conf'], { cwd: path.join(root, 'fixed') });
      const fixed = fs.readFileSync(path.join(root, 'fixed', 'httpd.conf'));
      assert.notDeepEqual(fixed, original, '--fix changed the file');
      assert.deepEqual(fs.readFileSync(path.join(root, 'patched', 'httpd.conf')), fixed);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
