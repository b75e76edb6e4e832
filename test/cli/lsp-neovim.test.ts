import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { CLI, CLI_NODE, runCli } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';
import { inCI, requireTool } from '../helpers/tools.js';
import { stockPhpFpmTree } from '../helpers/trees.js';

/**
 * `tune-lint lsp` under a real editor: Neovim's built-in LSP client, headless
 * (Debian's neovim; 0.7.2 on Debian 12), opens an included file of a tree of
 * each language, reads the diagnostics it shows, applies a quick fix through
 * its own workspace-edit code, waits for the finding to go, and asks for a
 * hover. What it saw is written as JSON and checked here.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-nvim-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

interface SeenByNeovim {
  readonly attached: boolean;
  readonly diagnostics: readonly { lnum: number; code: string; message: string; source: string }[];
  readonly actions: readonly string[];
  readonly applied: string | undefined;
  readonly gone: boolean;
  readonly text: string;
  readonly hover: string;
}

/** The Lua Neovim runs: every value it needs is written into it as a Lua string literal. */
function script(root: string, file: string, code: string, line: number, kind: string, hoverLine: number, out: string): string {
  const lua = (text: string | number): string => (typeof text === 'number' ? String(text) : JSON.stringify(text));
  return `
local out = { attached = false, diagnostics = {}, actions = {}, gone = false }
vim.cmd('edit ' .. vim.fn.fnameescape(${lua(file)}))
local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = 'tune-lint',
  cmd = { ${lua(CLI_NODE)}, ${lua(CLI)}, 'lsp', '--stdio' },
  root_dir = ${lua(root)},
  init_options = { debounceMs = 20 },
})
out.attached = vim.lsp.buf_attach_client(bufnr, client_id)
local function has(code, lnum)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local c = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    if c == code and d.lnum == lnum then return d end
  end
end
vim.wait(30000, function() return has(${lua(code)}, ${line}) ~= nil end, 50)
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  local c = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  table.insert(out.diagnostics, { lnum = d.lnum, code = c, message = d.message, source = d.source })
end
vim.api.nvim_win_set_cursor(0, { ${line + 1}, 0 })
local params = vim.lsp.util.make_range_params()
params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(bufnr, ${line}) }
local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, 30000) or {}
for _, response in pairs(responses) do
  for _, action in ipairs(response.result or {}) do
    table.insert(out.actions, action.title)
    if action.kind == ${lua(kind)} and out.applied == nil then
      vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
      out.applied = action.title
    end
  end
end
out.gone = vim.wait(30000, function() return has(${lua(code)}, ${line}) == nil end, 50)
out.text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\\n') .. '\\n'
vim.api.nvim_win_set_cursor(0, { ${hoverLine + 1}, 2 })
local hovers = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', vim.lsp.util.make_position_params(), 30000) or {}
out.hover = ''
for _, response in pairs(hovers) do
  if response.result then out.hover = response.result.contents.value end
end
vim.fn.writefile({ vim.fn.json_encode(out) }, ${lua(out)})
vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
vim.cmd('qa!')
`;
}

function neovim(
  t: TestContext,
  root: string,
  file: string,
  code: string,
  line: number,
  kind: string,
  hoverLine: number,
): SeenByNeovim | undefined {
  const nvim = requireTool(t, 'nvim');
  if (nvim === undefined) return undefined;
  const out = path.join(scratch, `${path.basename(root)}.json`);
  const lua = path.join(scratch, `${path.basename(root)}.lua`);
  fs.writeFileSync(lua, script(root, file, code, line, kind, hoverLine, out));
  const run = spawnSync(nvim, ['--headless', '--clean', '-n', '-c', `luafile ${lua}`], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, XDG_STATE_HOME: scratch, XDG_DATA_HOME: scratch, XDG_CACHE_HOME: scratch },
  });
  assert.ok(fs.existsSync(out), `neovim wrote nothing: status ${run.status}, ${run.stderr}${run.stdout}`);
  return JSON.parse(fs.readFileSync(out, 'utf8')) as SeenByNeovim;
}

function copyTree(from: string, name: string): string {
  const to = path.join(scratch, name);
  fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  return to;
}

describe('tune-lint lsp in headless Neovim', () => {
  it('Apache: the included file’s finding, the quick fix --fix writes, the finding gone, a hover', (t) => {
    const tree = repoPath('fixtures/apache/story-drupal-500mb');
    const file = 'etc/apache2/mods-available/mpm_prefork.conf';
    const root = copyTree(tree, 'apache');
    const seen = neovim(t, root, path.join(root, file), 'AP4001', 15, 'quickfix.tune-lint.safe', 15);
    if (seen === undefined) return;
    const cli = copyTree(tree, 'apache-cli');
    runCli(['--sysroot', '.', '--no-probe', '--fix', '--fix-type', 'safe'], { cwd: cli });
    assert.equal(seen.attached, true);
    assert.ok(
      seen.diagnostics.some((diagnostic) => diagnostic.code === 'AP4001' && diagnostic.lnum === 16 && diagnostic.source === 'tune-lint'),
      JSON.stringify(seen.diagnostics),
    );
    assert.match(seen.applied ?? '', /^Fix \(AP4001, safe\): MaxClients is the httpd 2\.2 name/);
    assert.ok(seen.actions.includes('Disable AP4001 for this line'));
    assert.equal(seen.gone, true);
    assert.equal(seen.text.split('\n')[15], fs.readFileSync(path.join(cli, file), 'utf8').split('\n')[15]);
    assert.match(seen.hover, /^\*\*MaxRequestWorkers\*\*\n\nIn effect: `15`, set at \[etc\/apache2\/mods-enabled\/mpm_prefork\.conf:16\]/);
  });

  it('MariaDB: an included option file’s finding fixed as --fix does, and a hover', (t) => {
    const tree = repoPath('fixtures/mycnf/debian');
    const file = 'etc/mysql/mariadb.conf.d/50-client.cnf';
    const root = copyTree(tree, 'mycnf');
    const seen = neovim(t, root, path.join(root, file), 'MY1009', 2, 'quickfix.tune-lint.safe', 2);
    if (seen === undefined) return;
    const cli = copyTree(tree, 'mycnf-cli');
    runCli(['--sysroot', '.', '--no-probe', '--fix'], { cwd: cli });
    assert.equal(seen.gone, true, JSON.stringify(seen));
    assert.equal(seen.text, fs.readFileSync(path.join(cli, file), 'utf8'));
    assert.match(seen.hover, /^\*\*\[client\] loose-default-character-set\*\*\n\nNot in effect\./);
  });

  it('php-fpm: the pool file’s finding, the tuning fix --fix writes, and a hover', (t) => {
    const stock = stockPhpFpmTree(path.join(scratch, 'fpm-source'));
    if (stock === undefined) {
      if (inCI) throw new Error('CI=true but php-fpm is not installed (.ci/run installs php-fpm)');
      t.skip('php-fpm is not installed: its stock pool is the tree read');
      return;
    }
    const root = copyTree(stock.root, 'fpm');
    const text = fs.readFileSync(path.join(root, stock.pool), 'utf8');
    const line = text.split('\n').findIndex((entry) => entry.startsWith('[www]'));
    const children = text.split('\n').findIndex((entry) => entry.startsWith('pm.max_children'));
    const seen = neovim(t, root, path.join(root, stock.pool), 'PF2002', line, 'quickfix.tune-lint.tune', children);
    if (seen === undefined) return;
    const cli = copyTree(stock.root, 'fpm-cli');
    runCli(['--sysroot', '.', '--no-probe', '--fix'], { cwd: cli });
    assert.equal(seen.gone, true, JSON.stringify(seen));
    assert.equal(seen.text, fs.readFileSync(path.join(cli, stock.pool), 'utf8'));
    assert.match(seen.hover, /^\*\*\[www\] pm\.max_children\*\*\n\nIn effect: `5`/);
  });

  it('the set-up docs/editors.md shows: a pool and a vhost opened after it share one server, each with its findings', (t) => {
    const nvim = requireTool(t, 'nvim');
    const stock = stockPhpFpmTree(path.join(scratch, 'docs-fpm-source'));
    if (nvim === undefined || stock === undefined) {
      if (stock === undefined && inCI) throw new Error('CI=true but php-fpm is not installed (.ci/run installs php-fpm)');
      if (stock === undefined) t.skip('php-fpm is not installed: its stock pool is the tree read');
      return;
    }
    const root = copyTree(stock.root, 'docs-setup');
    fs.cpSync(repoPath('fixtures/apache/story-drupal-500mb/etc'), path.join(root, 'etc'), { recursive: true, verbatimSymlinks: true });
    fs.writeFileSync(path.join(root, '.tune-lint.yaml'), 'preset: recommended\n');
    const block = /## Neovim[\s\S]*?```lua\n([\s\S]*?)```/.exec(fs.readFileSync(repoPath('docs/editors.md'), 'utf8'))?.[1];
    assert.ok(block !== undefined, 'docs/editors.md has a Lua block under Neovim');
    const bin = path.join(scratch, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'tune-lint'), `#!/bin/sh\nexec ${JSON.stringify(CLI_NODE)} ${JSON.stringify(CLI)} "$@"\n`, {
      mode: 0o755,
    });
    const init = path.join(scratch, 'init.lua');
    const out = path.join(scratch, 'docs-setup.json');
    fs.writeFileSync(init, block);
    const pool = path.join(root, stock.pool);
    const prefork = path.join(root, 'etc/apache2/mods-available/mpm_prefork.conf');
    const check = path.join(scratch, 'docs-check.lua');
    fs.writeFileSync(
      check,
      `
local function codes(file)
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.wait(30000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(found, d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code))
  end
  return found
end
local out = { pool = codes(${JSON.stringify(pool)}), vhost = codes(${JSON.stringify(prefork)}) }
out.clients = #vim.lsp.get_active_clients()
vim.fn.writefile({ vim.fn.json_encode(out) }, ${JSON.stringify(out)})
for _, client in ipairs(vim.lsp.get_active_clients()) do client.stop() end
vim.wait(5000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
vim.cmd('qa!')
`,
    );
    const run = spawnSync(nvim, ['--headless', '--clean', '-n', '-c', `luafile ${init}`, '-c', `luafile ${check}`], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        XDG_STATE_HOME: scratch,
        XDG_DATA_HOME: scratch,
        XDG_CACHE_HOME: scratch,
      },
    });
    assert.ok(fs.existsSync(out), `neovim wrote nothing: status ${run.status}, ${run.stderr}${run.stdout}`);
    const seen = JSON.parse(fs.readFileSync(out, 'utf8')) as { pool: string[]; vhost: string[]; clients: number };
    assert.ok(seen.pool.includes('PF2002'), JSON.stringify(seen));
    assert.ok(seen.vhost.includes('AP4001'), JSON.stringify(seen));
    assert.equal(seen.clients, 1, 'one server for both files');
  });
});
