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

describe('files left for an include and taken up again', () => {
  function load(files: Readonly<Record<string, string>>): ReturnType<typeof loadApache> {
    const root = fs.mkdtempSync(path.join(scratch, 'tree-'));
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
    return loadApache(path.join(root, 'httpd.conf'), { fs: new ConfigFileSystem({ cwd: root }), httpd: '2.4.71' });
  }

  it('expands references in an included file, and in it again after it includes one without any', () => {
    const config = load({
      'httpd.conf': 'Define SITE a.example\nInclude refs.conf\n',
      'refs.conf': 'ServerName ${SITE}\nInclude plain.conf\nServerAlias ${SITE}\n',
      'plain.conf': 'ServerAdmin root@localhost\n',
    });
    assert.deepEqual(
      config.uses.map((use) => [use.name, use.args, use.variables]),
      [
        ['define', ['SITE', 'a.example'], []],
        ['include', ['refs.conf'], []],
        ['servername', ['a.example'], ['SITE']],
        ['include', ['plain.conf'], []],
        ['serveradmin', ['root@localhost'], []],
        ['serveralias', ['a.example'], ['SITE']],
      ],
    );
  });
});
