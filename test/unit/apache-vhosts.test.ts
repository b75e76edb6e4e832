import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { loadApache, type ApacheConfig, type ApacheDirectiveUse } from '../../src/languages/apache/model.js';
import { scopedSetting } from '../../src/languages/apache/scopes.js';
import { keepAliveLines, keepsAlive, virtualHosts } from '../../src/languages/apache/vhosts.js';

/*
 * keepAliveLines reads the lines by container rather than a setting per
 * vhost; it must give what asking every server for both settings gives:
 * each line that decides KeepAliveTimeout for a server that keeps
 * connections alive, once, in read order.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-vhosts-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let written = 0;

function load(lines: readonly string[], httpd: string): ApacheConfig {
  const file = path.join(scratch, `httpd-${written++}.conf`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return loadApache(file, { fs: new ConfigFileSystem({ cwd: scratch }), httpd });
}

/** The definition: every server asked for both of its settings. */
function expected(config: ApacheConfig): ApacheDirectiveUse[] {
  const lines = new Set<ApacheDirectiveUse>();
  for (const vhost of [undefined, ...virtualHosts(config)]) {
    if (!keepsAlive(config, scopedSetting(config, 'keepalive', vhost).args)) continue;
    const use = scopedSetting(config, 'keepalivetimeout', vhost).use;
    if (use !== undefined) lines.add(use);
  }
  return [...lines].sort((a, b) => a.order - b.order);
}

const LINE = fc.constantFrom('KeepAlive On', 'KeepAlive Off', 'KeepAlive 0', 'KeepAliveTimeout 5', 'KeepAliveTimeout 30', 'ServerName x');

describe('keepAliveLines', () => {
  it('gives the lines that asking every server for its settings gives (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(LINE, { maxLength: 3 }),
        fc.array(fc.array(LINE, { maxLength: 3 }), { maxLength: 4 }),
        fc.array(LINE, { maxLength: 2 }),
        fc.constantFrom('2.2.34', '2.4.71'),
        (before, vhosts, afterwards, httpd) => {
          const config = load(
            [...before, ...vhosts.flatMap((lines) => ['<VirtualHost *:80>', ...lines, '</VirtualHost>']), ...afterwards],
            httpd,
          );
          assert.deepEqual(keepAliveLines(config, 'keepalivetimeout'), expected(config));
        },
      ),
      { numRuns: 300, seed: 20261203 },
    );
  });
});
