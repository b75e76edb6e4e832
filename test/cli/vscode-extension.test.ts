import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, it } from 'node:test';
import { repoPath } from '../helpers/paths.js';
import { inCI } from '../helpers/tools.js';

/**
 * The VS Code extension as .ci/run packages it (`npm run package` in
 * editors/vscode: esbuild bundles the client with the language client
 * library, as VS Code's guide to bundling extensions does, and @vscode/vsce
 * packs it): a .vsix that holds the bundle, which requires nothing but
 * `vscode` and Node's own modules, and the schema its yamlValidation names,
 * and whose manifest starts the server the LSP tests speak to.
 */
const VSIX = repoPath('editors/vscode/tune-lint.vsix');

/** The names in the .vsix (a zip), listed by Python's zipfile. */
function entries(): string[] {
  const listed = spawnSync('python3', ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', VSIX], {
    encoding: 'utf8',
  });
  assert.equal(listed.status, 0, listed.stderr);
  return listed.stdout.trim().split('\n');
}

function member(name: string): string {
  const read = spawnSync(
    'python3',
    ['-c', 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())', VSIX, name],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(read.status, 0, read.stderr);
  return read.stdout;
}

describe('the VS Code extension package', () => {
  it('holds the client bundled with its language client library, and the .tune-lint.yaml schema', (t) => {
    if (!fs.existsSync(VSIX)) {
      if (inCI) throw new Error('CI=true but editors/vscode/tune-lint.vsix was not built (.ci/run runs npm run package there)');
      t.skip('editors/vscode/tune-lint.vsix is not built: cd editors/vscode && npm ci && npm run package');
      return;
    }
    const names = entries();
    for (const name of [
      'extension.vsixmanifest',
      'extension/package.json',
      'extension/dist/extension.js',
      'extension/tune-lint.schema.json',
    ]) {
      assert.ok(names.includes(name), `${name} is not in the .vsix`);
    }
    assert.deepEqual(
      names.filter((name) => name.includes('/node_modules/')),
      [],
      'the bundle carries its dependencies',
    );
    const manifest = JSON.parse(member('extension/package.json')) as {
      main: string;
      contributes: { yamlValidation: { fileMatch: string; url: string }[] };
    };
    assert.equal(manifest.main, './dist/extension.js');
    assert.deepEqual(manifest.contributes.yamlValidation, [{ fileMatch: '.tune-lint.yaml', url: './tune-lint.schema.json' }]);
    assert.deepEqual(
      JSON.parse(member('extension/tune-lint.schema.json')),
      JSON.parse(fs.readFileSync(repoPath('schema/tune-lint.schema.json'), 'utf8')),
    );
    const bundle = member('extension/dist/extension.js');
    assert.match(bundle, /args: \["lsp", "--stdio"\]/);
    assert.match(bundle, /node_modules\/vscode-languageclient\/lib\/node\/main\.js/, 'vscode-languageclient is in the bundle');
    const required = new Set([...bundle.matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1] as string));
    assert.deepEqual(
      [...required].filter((name) => name !== 'vscode' && !builtinModules.includes(name)),
      [],
      'nothing outside the .vsix is required but vscode and Node',
    );
  });
});
