import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { loadApache } from '../../src/languages/apache/model.js';

/*
 * The walk searches a line for `${...}` only when its file has `${` somewhere
 * or the line is continued: joining `$\` with `{NAME}` on the next line makes
 * a reference that the file's text does not hold.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-model-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function serverNames(text: string): { args: readonly string[]; variables: readonly string[] }[] {
  const file = path.join(scratch, 'httpd.conf');
  fs.writeFileSync(file, text);
  const config = loadApache(file, { fs: new ConfigFileSystem({ cwd: scratch }), httpd: '2.4.71' });
  return config.named('servername').map((use) => ({ args: use.args, variables: use.variables }));
}

describe('references in directive lines', () => {
  it('expands a reference written on one line', () => {
    assert.deepEqual(serverNames('Define SITE a.example\nServerName ${SITE}\n'), [{ args: ['a.example'], variables: ['SITE'] }]);
  });

  it('expands a reference that a continued line makes, in a file with no ${ in it', () => {
    assert.deepEqual(serverNames('Define SITE a.example\nServerName $\\\n{SITE}\n'), [{ args: ['a.example'], variables: ['SITE'] }]);
  });

  it('leaves a file without references as written', () => {
    assert.deepEqual(serverNames('ServerName $SITE\nServerName {SITE}\n'), [
      { args: ['$SITE'], variables: [] },
      { args: ['{SITE}'], variables: [] },
    ]);
  });
});
