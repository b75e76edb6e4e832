import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it, type TestContext } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { applyEdits, LspClient, type PublishedDiagnostic } from '../helpers/lsp-client.js';
import { repoPath } from '../helpers/paths.js';
import { inCI } from '../helpers/tools.js';
import { stockPhpFpmTree } from '../helpers/trees.js';

/**
 * `tune-lint lsp` spoken to as an editor does (a scripted JSON-RPC client):
 * a tree of each language opened at an included file, the findings on the
 * right lines of the right files, a quick fix whose edit is what `--fix`
 * writes, the finding gone once the edit is in the buffer, and a hover with
 * the value in effect and where it is set.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-lsp-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A copy of a tree (symlinks kept), so neither the editor's edits nor --fix touch the repository's fixtures. */
function copyTree(from: string, name: string): string {
  const to = path.join(scratch, name);
  fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  return to;
}

/** The text `tune-lint --fix` writes to one file of a fresh copy of the tree. */
function fixedByCli(from: string, name: string, file: string, args: readonly string[]): string {
  const copy = copyTree(from, name);
  const run = runCli(['--sysroot', '.', '--no-probe', '--fix', ...args], { cwd: copy });
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  return fs.readFileSync(path.join(copy, file), 'utf8');
}

function at(list: readonly PublishedDiagnostic[], code: string, line: number): PublishedDiagnostic | undefined {
  return list.find((diagnostic) => diagnostic.code === code && diagnostic.range.start.line === line);
}

async function withClient(
  root: string,
  body: (client: LspClient) => Promise<void>,
  options: { initializationOptions?: object; resolveEdits?: boolean } = {},
): Promise<void> {
  const client = new LspClient(root);
  try {
    await client.initialize(root, options);
    await body(client);
    assert.equal(await client.close(), 0);
  } finally {
    client.kill();
  }
  assert.deepEqual(client.shownMessages, []);
}

const DRUPAL = repoPath('fixtures/apache/story-drupal-500mb');

describe('tune-lint lsp on an Apache tree (the 500 MB Drupal VPS)', () => {
  it('publishes the findings of the included file it opens and of the main config, each for its own URI', async () => {
    const root = copyTree(DRUPAL, 'apache-diagnostics');
    await withClient(root, async (client) => {
      // mods-enabled/mpm_prefork.conf is a symlink: the editor opens the file it points at.
      const prefork = client.open(path.join(root, 'etc/apache2/mods-available/mpm_prefork.conf'));
      const mine = await client.diagnosticsFor(prefork, (list) => list.length > 0);
      const renamed = at(mine, 'AP4001', 15);
      assert.ok(renamed !== undefined, JSON.stringify(mine));
      assert.equal(renamed.severity, 2);
      assert.equal(renamed.source, 'tune-lint');
      assert.match(renamed.message, /^MaxClients is the httpd 2\.2 name of MaxRequestWorkers/);
      assert.match(renamed.codeDescription?.href ?? '', /docs\/rules\/AP4001\.md$/);
      assert.match(renamed.relatedInformation?.[0]?.message ?? '', /AH00188/);
      assert.deepEqual(renamed.range, { start: { line: 15, character: 4 }, end: { line: 15, character: renamed.range.end.character } });
      const main = await client.diagnosticsFor(pathToFileURL(path.join(root, 'etc/apache2/apache2.conf')).href, (list) => list.length > 0);
      assert.ok(at(main, 'AP2013', 91), JSON.stringify(main));
    });
  });

  it('offers the fix --fix writes; once applied in the buffer the finding is gone', async () => {
    const root = copyTree(DRUPAL, 'apache-fix');
    const file = 'etc/apache2/mods-available/mpm_prefork.conf';
    const expected = fixedByCli(DRUPAL, 'apache-fix-cli', file, ['--fix-type', 'safe']);
    await withClient(root, async (client) => {
      const uri = client.open(path.join(root, file));
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      const list = await client.diagnosticsFor(uri, (found) => at(found, 'AP4001', 15) !== undefined);
      const finding = at(list, 'AP4001', 15) as PublishedDiagnostic;
      const actions = await client.codeActions(uri, [finding]);
      const fix = actions.find((action) => action.kind === 'quickfix.tune-lint.safe');
      assert.ok(fix?.edit !== undefined, JSON.stringify(actions));
      assert.equal(fix.isPreferred, true);
      assert.deepEqual(Object.keys(fix.edit.changes), [uri]);
      const oneFixed = applyEdits(text, fix.edit.changes[uri] ?? []);
      assert.equal(oneFixed.split('\n')[15], expected.split('\n')[15]);
      assert.ok(actions.some((action) => action.title === 'Disable AP4001 for this line'));

      // Fix all safe problems in this file: exactly the file --fix --fix-type safe writes.
      const [fixAll] = await client.codeActions(uri, [], ['source.fixAll']);
      assert.ok(fixAll?.edit !== undefined, JSON.stringify(fixAll));
      assert.equal(applyEdits(text, fixAll.edit.changes[uri] ?? []), expected);

      client.change(uri, 2, oneFixed);
      const after = await client.diagnosticsFor(uri, (found) => at(found, 'AP4001', 15) === undefined);
      assert.ok(at(after, 'AP4001', 16) !== undefined, 'the other renamed directive is still reported');
    });
  });

  it("offers a fix that edits another file as that file's edit (AP2009 in a vhost, EnableSendfile in apache2.conf)", async () => {
    const root = copyTree(DRUPAL, 'apache-other-file');
    const site = path.join(root, 'etc/apache2/sites-available/drupal.conf');
    const main = path.join(root, 'etc/apache2/apache2.conf');
    const expected = fixedByCli(DRUPAL, 'apache-other-file-cli', 'etc/apache2/apache2.conf', []);
    await withClient(root, async (client) => {
      const uri = client.open(site);
      const finding = (await client.diagnosticsFor(uri, (found) => found.some((d) => d.code === 'AP2009'))).find(
        (d) => d.code === 'AP2009',
      );
      assert.ok(finding !== undefined);
      const fix = (await client.codeActions(uri, [finding])).find((action) => action.kind.startsWith('quickfix.tune-lint.'));
      const mainUri = pathToFileURL(main).href;
      assert.deepEqual(Object.keys(fix?.edit?.changes ?? {}), [mainUri]);
      const added = applyEdits(fs.readFileSync(main, 'utf8'), fix?.edit?.changes[mainUri] ?? []);
      assert.ok(added.includes('EnableSendfile On\n') && expected.includes('EnableSendfile On\n'));
      assert.equal(added.split('\n').indexOf('EnableSendfile On'), expected.split('\n').indexOf('EnableSendfile On'));
    });
  });

  it('a file opened by its symlink (mods-enabled) gets its findings and edits under the URI it was opened as', async () => {
    const root = copyTree(DRUPAL, 'apache-symlink');
    const link = path.join(root, 'etc/apache2/mods-enabled/mpm_prefork.conf');
    assert.ok(fs.lstatSync(link).isSymbolicLink());
    await withClient(root, async (client) => {
      const uri = client.open(link);
      const finding = at(await client.diagnosticsFor(uri, (found) => at(found, 'AP4001', 15) !== undefined), 'AP4001', 15);
      assert.ok(finding !== undefined);
      const fix = (await client.codeActions(uri, [finding])).find((action) => action.kind === 'quickfix.tune-lint.safe');
      assert.deepEqual(Object.keys(fix?.edit?.changes ?? {}), [uri]);
      // Not twice: the real file's URI, where the first lint put them before the link was opened, is cleared.
      assert.deepEqual(
        client.diagnostics.get(pathToFileURL(path.join(root, 'etc/apache2/mods-available/mpm_prefork.conf')).href) ?? [],
        [],
      );
    });
  });

  it('disables a rule for a line with the comment the file takes', async () => {
    const root = copyTree(DRUPAL, 'apache-disable');
    const file = path.join(root, 'etc/apache2/mods-available/mpm_prefork.conf');
    await withClient(root, async (client) => {
      const uri = client.open(file);
      const text = fs.readFileSync(file, 'utf8');
      const finding = at(await client.diagnosticsFor(uri, (found) => at(found, 'AP4001', 16) !== undefined), 'AP4001', 16);
      const disable = (await client.codeActions(uri, [finding as PublishedDiagnostic])).find((action) =>
        action.title.startsWith('Disable'),
      );
      const disabled = applyEdits(text, disable?.edit?.changes[uri] ?? []);
      assert.equal(disabled.split('\n')[16], '    # tune-lint-disable-next-line AP4001');
      client.change(uri, 2, disabled);
      const after = await client.diagnosticsFor(
        uri,
        (found) => !found.some((diagnostic) => diagnostic.code === 'AP4001' && diagnostic.range.start.line === 17),
      );
      assert.ok(at(after, 'AP4001', 15) !== undefined);
    });
  });

  it('hovers a directive with the value in effect, where it is set, the default and the host plan', async () => {
    // The stock prefork tree on the 500 MB VPS: the plan cuts its MaxClients 150.
    const root = copyTree(repoPath('fixtures/apache/story-stock-prefork'), 'apache-hover');
    const file = path.join(root, 'etc/apache2/mods-available/mpm_prefork.conf');
    const profile = repoPath('fixtures/cli/hosts/drupal-vps/host.yaml');
    await withClient(
      root,
      async (client) => {
        const uri = client.open(file);
        await client.diagnosticsFor(uri, (found) => at(found, 'AP2001', 13) !== undefined);
        const shown = (await client.hover(uri, 13, 6))?.contents.value ?? '';
        assert.match(shown, /^\*\*MaxClients\*\* \(MaxRequestWorkers\)/);
        assert.match(
          shown,
          /In effect: `150`, set at \[etc\/apache2\/mods-enabled\/mpm_prefork\.conf:14\]\(file:\/\/.*mods-available\/mpm_prefork\.conf#L14\)/,
        );
        assert.match(shown, /Default: `256`/);
        assert.match(shown, /The prefork MPM is active/);
        assert.match(shown, /Host plan: 150 → 25: /);
        assert.match(shown, /\[AP2001\]\([^)]*AP2001\.md\) apache-memory-overcommit/);
        assert.match(shown, /\[AP4001\]\([^)]*AP4001\.md\) renamed-mpm-directive/);
      },
      { initializationOptions: { profile } },
    );
    const drupal = copyTree(DRUPAL, 'apache-hover-keepalive');
    await withClient(drupal, async (client) => {
      // ports.conf: `Listen 443` inside <IfModule ssl_module>, which this tree does not load.
      const ports = client.open(path.join(drupal, 'etc/apache2/ports.conf'));
      const skipped = await client.hover(ports, 7, 2);
      assert.match(
        skipped?.contents.value ?? '',
        /^\*\*Listen\*\*\n\nNot in effect\.\n\n<IfModule ssl_module> is false here, so httpd skips the line\.$/,
      );
      const keepAlive = await client.hover(client.open(path.join(drupal, 'etc/apache2/apache2.conf')), 110, 3);
      assert.match(
        keepAlive?.contents.value ?? '',
        /\*\*KeepAliveTimeout\*\*\n\nIn effect: `2`, set at \[etc\/apache2\/apache2\.conf:111\][^\n]*\n\nDefault: `5`/,
      );
    });
  });
});

describe('tune-lint lsp on a file outside the workspace', () => {
  it('lints it where it is, as its own main config', async () => {
    const root = copyTree(DRUPAL, 'apache-outside');
    const outside = path.join(scratch, 'elsewhere', 'my.cnf');
    fs.mkdirSync(path.dirname(outside), { recursive: true });
    fs.writeFileSync(outside, '[mysqld]\nmax_connectionz = 10\n');
    await withClient(root, async (client) => {
      const uri = client.open(outside);
      const found = await client.diagnosticsFor(uri, (list) => list.some((diagnostic) => diagnostic.code === 'MY1006'));
      assert.match(at(found, 'MY1006', 1)?.message ?? '', /max_connectionz = 10: MariaDB 10\.11 has no such option/);
    });
  });
});

describe('tune-lint lsp and .tune-lint.yaml', () => {
  it('shows a wrong .tune-lint.yaml once and lints without it; read again when it changes, its rules apply', async () => {
    const root = copyTree(DRUPAL, 'apache-config');
    const config = path.join(root, '.tune-lint.yaml');
    fs.writeFileSync(config, 'rules:\n  AP4001: loud\n');
    const client = new LspClient(root);
    try {
      await client.initialize(root);
      const uri = client.open(path.join(root, 'etc/apache2/mods-available/mpm_prefork.conf'));
      await client.diagnosticsFor(uri, (found) => at(found, 'AP4001', 15) !== undefined);
      assert.equal(client.shownMessages.length, 1, client.shownMessages.join('\n'));
      assert.match(client.shownMessages[0] ?? '', /^tune-lint: \.tune-lint\.yaml:2:\d+: /);
      client.change(uri, 2, fs.readFileSync(path.join(root, 'etc/apache2/mods-available/mpm_prefork.conf'), 'utf8'));
      await client.diagnosticsFor(uri, (found) => at(found, 'AP4001', 15) !== undefined);
      assert.equal(client.shownMessages.length, 1, 'the same problem is not shown again at each change');

      fs.writeFileSync(config, 'rules:\n  AP4001: off\n');
      client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(config).href, type: 2 }] });
      const after = await client.diagnosticsFor(uri, (found) => !found.some((diagnostic) => diagnostic.code === 'AP4001'));
      assert.deepEqual(after, []);
      assert.equal(await client.close(), 0);
    } finally {
      client.kill();
    }
  });
});

describe('tune-lint lsp on MariaDB option files (Debian 12 /etc/mysql)', () => {
  const tree = repoPath('fixtures/mycnf/debian');
  const file = 'etc/mysql/mariadb.conf.d/50-client.cnf';

  it('publishes an included file’s finding, fixes it as --fix does and hovers an option', async () => {
    const root = copyTree(tree, 'mycnf');
    const expected = fixedByCli(tree, 'mycnf-cli', file, []);
    await withClient(root, async (client) => {
      const uri = client.open(path.join(root, file));
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      const finding = at(await client.diagnosticsFor(uri, (found) => found.length > 0), 'MY1009', 2);
      assert.ok(finding !== undefined);
      const fix = (await client.codeActions(uri, [finding])).find((action) => action.kind === 'quickfix.tune-lint.safe');
      const fixed = applyEdits(text, fix?.edit?.changes[uri] ?? []);
      assert.equal(fixed, expected);
      client.change(uri, 2, fixed);
      await client.diagnosticsFor(uri, (found) => at(found, 'MY1009', 2) === undefined);

      const server = client.open(path.join(root, 'etc/mysql/mariadb.conf.d/50-server.cnf'));
      const lines = fs.readFileSync(path.join(root, 'etc/mysql/mariadb.conf.d/50-server.cnf'), 'utf8').split('\n');
      const bind = lines.findIndex((line) => line.startsWith('bind-address'));
      const hover = await client.hover(server, bind, 2);
      assert.match(
        hover?.contents.value ?? '',
        /^\*\*\[mysqld\] bind-address\*\*\n\nIn effect: `127\.0\.0\.1`, set at \[etc\/mysql\/mariadb\.conf\.d\/50-server\.cnf:\d+\]/,
      );
      const clientGroup = await client.hover(uri, 2, 2);
      assert.match(clientGroup?.contents.value ?? '', /Not in effect\.[\s\S]*the server does not read \[client\]/i);
    });
  });
});

describe('tune-lint lsp on php-fpm pools (this machine’s Debian php-fpm)', () => {
  it('publishes the pool file’s finding, offers the tuning fix --fix writes and hovers an entry', async (t: TestContext) => {
    const stock = stockPhpFpmTree(path.join(scratch, 'fpm-source'));
    if (stock === undefined) {
      if (inCI) throw new Error('CI=true but php-fpm is not installed (.ci/run installs php-fpm)');
      t.skip('php-fpm is not installed: its stock pool is the tree read');
      return;
    }
    const tree = stock.root;
    const root = copyTree(tree, 'fpm');
    const file = stock.pool;
    const expected = fixedByCli(tree, 'fpm-cli', file, []);
    await withClient(root, async (client) => {
      const uri = client.open(path.join(root, file));
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      const finding = (await client.diagnosticsFor(uri, (found) => found.length > 0)).find((diagnostic) => diagnostic.code === 'PF2002');
      assert.ok(finding !== undefined);
      const fix = (await client.codeActions(uri, [finding])).find((action) => action.kind === 'quickfix.tune-lint.tune');
      assert.ok(fix !== undefined);
      assert.equal(fix.isPreferred, false);
      const fixed = applyEdits(text, fix.edit?.changes[uri] ?? []);
      assert.equal(fixed, expected);
      client.change(uri, 2, fixed);
      await client.diagnosticsFor(uri, (found) => !found.some((diagnostic) => diagnostic.code === 'PF2002'));

      const line = text.split('\n').findIndex((entry) => entry.startsWith('pm.max_children'));
      const hover = await client.hover(uri, line, 3);
      assert.match(hover?.contents.value ?? '', /^\*\*\[www\] pm\.max_children\*\*\n\nIn effect: `5`, set at \[.*pool\.d\/www\.conf:\d+\]/);
    });
  });
});
