import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { unifiedDiff } from '../../src/fix/patch.js';
import { selectRules } from '../../src/engine/selection.js';
import { hostFactsFromConfig } from '../../src/host/profile.js';
import { lint, type LintResult } from '../../src/lint.js';
import { apacheConfigTest } from '../helpers/apache-oracle.js';
import { CLI } from '../helpers/cli.js';
import { MARIADB_10_11, materialise } from '../helpers/mycnf-fixtures.js';
import { printDefaults } from '../helpers/mycnf-oracle.js';
import { repoPath } from '../helpers/paths.js';
import { requireTool } from '../helpers/tools.js';
import { snapshotTree } from '../helpers/trees.js';

/*
 * The whole fix path on real trees: the installed Debian /etc/apache2 (a
 * copy) and the tuning stories, as they are and converted to CRLF. For each:
 * the printed patch applies with git apply and patch -p1, the patched tree
 * passes apache2 -t (and my_print_defaults for the option files), a second
 * run finds nothing to fix, only the edited lines change and they keep the
 * file's line endings, and `tune-lint --fix` writes the same bytes through
 * the Debian symlinks and then, run again, writes nothing.
 */

/** A 500 MB VPS (the stories); the 16 GB host leaves MaxClients 150 alone and raises max_connections to match it. */
const SMALL = { ram: '500M', perChild: '20M', cpus: '1' };
const LARGE = { ram: '16G', perChild: '20M', cpus: '4' };
const CONFIG_FILE = /\.(conf|load|cnf)$/;

interface Tree {
  readonly name: string;
  /** Builds the tree under root (a sysroot); false when its source is not on this machine. */
  build(root: string): boolean;
  readonly paths: readonly string[];
  /** A module the tree loads that apache2 -t needs installed. */
  readonly needsModule?: string;
  /** Also run converted to CRLF line endings. */
  readonly crlf: boolean;
  readonly host: typeof SMALL;
  /** The arguments my_print_defaults gives only after the patch (the option files' fixes, as the server reads them). */
  readonly newOptionArgs?: readonly string[];
  /** The arguments it gives only before the patch; by default as many as are new (values replaced in place). */
  readonly goneOptionArgs?: readonly string[];
  /** What --verify says on stderr about a config the server already refuses before the patch (the story's set-variable lines). */
  readonly verifyNote?: RegExp;
}

const TREES: Tree[] = [
  {
    name: 'installed Debian /etc/apache2',
    build: (root) => {
      if (!fs.existsSync('/etc/apache2/apache2.conf')) return false;
      fs.cpSync('/etc/apache2', path.join(root, 'etc/apache2'), { recursive: true, verbatimSymlinks: true });
      return true;
    },
    paths: ['etc/apache2/apache2.conf'],
    crlf: false,
    host: SMALL,
  },
  {
    name: 'story-stock-prefork',
    build: (root) => copyFixture('apache/story-stock-prefork', root),
    paths: ['etc/apache2/apache2.conf'],
    crlf: true,
    host: SMALL,
  },
  {
    name: 'story-drupal-500mb with the story my.cnf',
    build: (root) => copyFixture('apache/story-drupal-500mb', root) && copyFixture('mycnf/story', root),
    paths: ['etc/apache2/apache2.conf', 'etc/mysql/my.cnf'],
    crlf: true,
    host: SMALL,
    newOptionArgs: [
      '--key_buffer_size=8M',
      '--myisam-recover-options=BACKUP',
      '--max_connections=15',
      '--max_user_connections=15',
      '--query_cache_limit=16M',
      '--query_cache_size=0',
      '--query_cache_type=0',
      '--aria_pagecache_buffer_size=16M',
      '--innodb_buffer_pool_size=96M',
    ],
    goneOptionArgs: [
      '--key_buffer=16M',
      '--myisam-recover=BACKUP',
      '--set-variable=max_connections=15',
      '--set-variable=max_user_connections=15',
      '--set-variable=query_cache_limit=16M',
      '--set-variable=query_cache_size=64M',
      '--set-variable=query_cache_type=1',
    ],
    verifyNote:
      /^tune-lint: --verify: the option files of etc\/mysql\/my\.cnf already reports a problem without the patch \(mariadbd: \[ERROR\] .*unknown variable 'set-variable=max_connections=15'\); only problems the patch adds are held against it\n$/,
  },
  {
    name: 'story-stock-prefork with the Debian my.cnf on 16 GB (max_connections fixed in mariadb.conf.d/50-server.cnf)',
    build: (root) => copyFixture('apache/story-stock-prefork', root) && copyFixture('mycnf/debian', root),
    paths: ['etc/apache2/apache2.conf', 'etc/mysql/my.cnf'],
    crlf: true,
    host: LARGE,
    newOptionArgs: ['--max_connections=165'],
  },
  {
    name: 'story-fat-apache',
    build: (root) => copyFixture('apache/story-fat-apache', root),
    paths: ['etc/apache2/apache2.conf'],
    needsModule: '/usr/lib/apache2/modules/mod_security2.so',
    crlf: false,
    host: SMALL,
  },
];

function copyFixture(relative: string, root: string): boolean {
  fs.cpSync(repoPath('fixtures', relative), root, { recursive: true, verbatimSymlinks: true });
  for (const readme of ['README.md']) fs.rmSync(path.join(root, readme), { force: true });
  return true;
}

let scratch: string;
before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-trees-'));
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let counter = 0;
function prepare(tree: Tree, variant: 'lf' | 'crlf' | 'bom-crlf'): string | undefined {
  const root = path.join(scratch, `${++counter}-${variant}`);
  fs.mkdirSync(root);
  if (!tree.build(root)) return undefined;
  if (variant !== 'lf') {
    forEachFile(root, (file) => {
      if (!CONFIG_FILE.test(file)) return;
      const lf = fs.readFileSync(file, 'latin1').replaceAll('\r\n', '\n');
      const crlf = lf.replaceAll('\n', '\r\n');
      fs.writeFileSync(file, variant === 'bom-crlf' ? `\xEF\xBB\xBF${crlf}` : crlf, 'latin1');
    });
  }
  return root;
}

function copyOf(root: string): string {
  const copy = `${root}-copy${++counter}`;
  fs.cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
  return copy;
}

function forEachFile(dir: string, visit: (file: string) => void): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) forEachFile(full, visit);
    else if (entry.isFile()) visit(full);
  }
}

async function lintTree(root: string, tree: Tree, off: readonly string[] = []): Promise<LintResult> {
  return lint({
    paths: tree.paths,
    cwd: root,
    sysroot: root,
    host: hostFactsFromConfig(tree.host, 'test'),
    rules: selectRules(builtinRules, 'recommended', new Map(off.map((id) => [id, { severity: 'off' as const }]))),
    fixType: 'all',
    targets: { httpd: '2.4', db: MARIADB_10_11 },
  });
}

async function patchOf(result: LintResult): Promise<string> {
  return unifiedDiff(result.fixes.map((fix) => ({ patchPath: fix.file.patchPath, before: fix.before, after: fix.after })));
}

async function apacheVerdict(root: string): Promise<{ ok: boolean; stderr: string }> {
  const run = await apacheConfigTest({ sysroot: root, serverRoot: '/etc/apache2', configFile: 'apache2.conf' });
  return { ok: run.exitCode === 0 && run.syntaxOk, stderr: run.stderr };
}

function serverArguments(t: TestContext, root: string): string[] | undefined {
  if (!fs.existsSync(path.join(root, 'etc/mysql/my.cnf'))) return undefined;
  const tool = requireTool(t, 'my_print_defaults');
  if (tool === undefined) return undefined;
  const copy = materialise({ name: 'fix-trees', dir: root, main: 'etc/mysql/my.cnf', sysroot: true, target: MARIADB_10_11 });
  try {
    const run = printDefaults(tool, copy.main, ['--mysqld'], copy.dir);
    assert.equal(run.status, 0, `my_print_defaults refuses the option files: ${run.stderr}`);
    return run.stdout.split('\n').filter((line) => line !== '');
  } finally {
    copy.cleanup();
  }
}

/** Two snapshots are equal; a failure names the first file that differs instead of printing both trees. */
function sameTree(actual: ReadonlyMap<string, string>, expected: ReadonlyMap<string, string>, message: string): void {
  assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort(), `${message}: the same files`);
  const differing = [...expected.keys()].filter((file) => actual.get(file) !== expected.get(file));
  assert.deepEqual(differing, [], `${message}: these files differ`);
}

/** Lines with their own line endings. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * Only directive lines change, each keeps its indentation and line ending, and
 * new lines end like the file's other lines; the BOM stays.
 */
async function onlyEditedLinesChange(before: string, after: string, label: string): Promise<void> {
  const { diffArrays } = await import('diff');
  const eol = before.includes('\r\n') ? '\r\n' : '\n';
  assert.equal(after.startsWith('\uFEFF'), before.startsWith('\uFEFF'), `${label}: BOM kept`);
  const parts = diffArrays(linesOf(before), linesOf(after));
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as (typeof parts)[number];
    if (!part.added && !part.removed) continue;
    for (const line of part.value) {
      const body = line.replace(/^\uFEFF/, '').trim();
      assert.ok(body !== '' && !body.startsWith('#'), `${label}: a comment or blank line changed: ${JSON.stringify(line)}`);
      if (part.added)
        assert.ok(
          line.endsWith(eol) || (!after.endsWith('\n') && after.endsWith(line)),
          `${label}: ${JSON.stringify(line)} does not end with the file's ${JSON.stringify(eol)}`,
        );
    }
    const next = parts[index + 1];
    if (part.removed && next?.added === true && next.value.length === part.value.length) {
      for (const [k, removed] of part.value.entries()) {
        const added = next.value[k] as string;
        assert.equal(
          /^[\uFEFF]?[ \t]*/.exec(added)?.[0],
          /^[\uFEFF]?[ \t]*/.exec(removed)?.[0],
          `${label}: indentation kept in ${JSON.stringify(added)}`,
        );
        assert.equal(/\r?\n$/.exec(added)?.[0], /\r?\n$/.exec(removed)?.[0], `${label}: line ending kept in ${JSON.stringify(added)}`);
      }
    }
  }
}

describe('fixes on real trees', { concurrency: 4 }, () => {
  for (const tree of TREES) {
    for (const variant of tree.crlf ? (['lf', 'crlf'] as const) : (['lf'] as const)) {
      it(`${tree.name} (${variant}): patch applies, the servers accept it, a second run is a no-op, --fix writes the same bytes`, async (t) => {
        const git = requireTool(t, 'git');
        const patchTool = requireTool(t, 'patch');
        if (requireTool(t, 'apache2') === undefined || git === undefined || patchTool === undefined) return;
        if (tree.needsModule !== undefined && !fs.existsSync(tree.needsModule)) {
          t.skip(`${tree.needsModule} is not installed (.ci/run installs libapache2-mod-security2)`);
          return;
        }
        const root = prepare(tree, variant);
        if (root === undefined) {
          t.skip(`${tree.name} is not on this machine`);
          return;
        }
        assert.ok((await apacheVerdict(root)).ok, 'the unpatched tree passes apache2 -t');
        const argsBefore = serverArguments(t, root);
        const original = snapshotTree(root);
        const result = await lintTree(root, tree);
        const patch = await patchOf(result);
        assert.notEqual(patch, '', 'the tree has something to fix');

        const applied = copyOf(root);
        const patchFile = path.join(scratch, `${counter}.patch`);
        fs.writeFileSync(patchFile, patch);
        await succeed(git, ['apply', '--check', patchFile], applied);
        await succeed(patchTool, ['-p1', '--dry-run', '--batch', '-i', patchFile], applied);
        await succeed(git, ['apply', patchFile], applied);

        const patched = snapshotTree(applied);
        const fixedFiles = new Set(result.fixes.map((fix) => path.relative(root, fix.file.realPath)));
        for (const [file, content] of original) {
          if (fixedFiles.has(file)) continue;
          assert.equal(patched.get(file), content, `${file} is not in the patch and must not change`);
        }
        for (const fix of result.fixes) {
          const file = path.relative(root, fix.file.realPath);
          assert.equal(patched.get(file), fix.file.encode(fix.after).toString('latin1'), `${file}: git apply gives the fixed text`);
          await onlyEditedLinesChange(fix.before, fix.after, file);
          if (variant === 'crlf') assert.ok(!/[^\r]\n/.test(fix.after), `${file}: every line still ends in CRLF`);
        }

        const verdict = await apacheVerdict(applied);
        assert.ok(verdict.ok, `apache2 -t rejects the patched tree:\n${verdict.stderr}`);
        const argsAfter = serverArguments(t, applied);
        const optionsFixed = result.fixes.filter((fix) => fix.file.path.endsWith('.cnf'));
        assert.equal(optionsFixed.length > 0, tree.newOptionArgs !== undefined, 'option files are fixed exactly where expected');
        if (argsBefore !== undefined && argsAfter !== undefined) {
          const changed = argsAfter.filter((arg) => !argsBefore.includes(arg));
          const gone = argsBefore.filter((arg) => !argsAfter.includes(arg));
          assert.deepEqual(changed, tree.newOptionArgs ?? [], 'the reader sees the new values and nothing else new');
          if (tree.goneOptionArgs === undefined)
            assert.equal(argsAfter.length, argsBefore.length, 'values replaced in place: as many arguments as before');
          else assert.deepEqual(gone, tree.goneOptionArgs, 'the reader no longer sees exactly the replaced lines');
        }

        const again = await lintTree(applied, tree);
        assert.deepEqual(again.fixes, [], 'a second run on the patched tree fixes nothing');
        assert.equal(
          again.diagnostics.filter((d) => d.ruleId === 'TL0001').length,
          result.diagnostics.filter((d) => d.ruleId === 'TL0001').length,
          'the patched tree parses as well as the original',
        );

        const written = copyOf(root);
        const links = [...snapshotTree(written)].filter(([, value]) => value.startsWith('symlink -> '));
        const first = await cli(written, tree, ['--fix', '--verify']);
        if (tree.verifyNote === undefined) assert.equal(first.stderr, '', 'no note: every tool is installed and the patch is verified');
        else assert.match(first.stderr, tree.verifyNote, 'only the note about what the server refused before the patch');
        assert.match(
          first.stdout,
          /^Patch written:\nChecked with the servers \(--verify\): .+: no new problem\.$/m,
          'says which servers read the patched files',
        );
        sameTree(snapshotTree(written), patched, '--fix writes what git apply gives, through the symlinks');
        assert.deepEqual(
          [...snapshotTree(written)].filter(([, value]) => value.startsWith('symlink -> ')),
          links,
          'symlinks stay symlinks',
        );
        const times = new Map([...snapshotTree(written).keys()].map((file) => [file, fs.lstatSync(path.join(written, file)).mtimeMs]));
        const second = await cli(written, tree, ['--fix', '--format', 'diff']);
        assert.equal(second.stdout, '', 'the second --fix has no patch');
        for (const [file, mtime] of times)
          assert.equal(fs.lstatSync(path.join(written, file)).mtimeMs, mtime, `${file} untouched by the second --fix`);
      });
    }
  }

  it('a BOM and CRLF tree: AP1013 removes the BOMs apache2 cannot read, and the patched tree passes apache2 -t', async (t) => {
    const git = requireTool(t, 'git');
    if (requireTool(t, 'apache2') === undefined || git === undefined) return;
    const tree = TREES[1] as Tree;
    const root = prepare(tree, 'bom-crlf') as string;
    assert.equal((await apacheVerdict(root)).ok, false, 'apache2 reads a BOM as part of the first directive');
    const result = await lintTree(root, tree);
    const applied = copyOf(root);
    const patchFile = path.join(scratch, `${counter}.patch`);
    fs.writeFileSync(patchFile, await patchOf(result));
    await succeed(git, ['apply', patchFile], applied);
    const verdict = await apacheVerdict(applied);
    assert.ok(verdict.ok, `apache2 -t rejects the patched tree:\n${verdict.stderr}`);
    for (const fix of result.fixes) {
      assert.ok(!fix.after.startsWith('\uFEFF'), `${fix.file.patchPath}: BOM removed`);
      assert.ok(!/[^\r]\n/.test(fix.after), `${fix.file.patchPath}: CRLF kept`);
    }
  });

  it('a BOM and CRLF tree with AP1013 off: every other fix keeps the BOM and CRLF, in the patch and with --fix', async (t) => {
    const git = requireTool(t, 'git');
    if (git === undefined) return;
    const tree = TREES[1] as Tree;
    const root = prepare(tree, 'bom-crlf') as string;
    const result = await lintTree(root, tree, ['AP1013']);
    assert.notEqual(result.fixes.length, 0);
    const applied = copyOf(root);
    const patchFile = path.join(scratch, `${counter}.patch`);
    fs.writeFileSync(patchFile, await patchOf(result));
    await succeed(git, ['apply', patchFile], applied);
    for (const fix of result.fixes) {
      const bytes = fs.readFileSync(fix.file.realPath.replace(root, applied));
      assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], `${fix.file.patchPath}: BOM kept`);
      assert.ok(!/[^\r]\n/.test(bytes.toString('latin1')), `${fix.file.patchPath}: CRLF kept`);
      await onlyEditedLinesChange(fix.before, fix.after, fix.file.patchPath);
    }
    const written = copyOf(root);
    await cli(written, tree, ['--fix', '--rule', 'AP1013=off']);
    sameTree(snapshotTree(written), snapshotTree(applied), '--fix writes what git apply gives');
  });

  it('--fix-type selects the same fixes for the printed patch and for the writes', async (t) => {
    const tree = TREES[1] as Tree;
    for (const fixType of ['safe', 'tune'] as const) {
      const root = prepare(tree, 'lf') as string;
      const printed = await cli(root, tree, ['--format', 'diff', '--fix-type', fixType]);
      assert.notEqual(printed.stdout, '', `${fixType}: something to fix`);
      const git = requireTool(t, 'git');
      if (git === undefined) return;
      const applied = copyOf(root);
      const patchFile = path.join(scratch, `${counter}.patch`);
      fs.writeFileSync(patchFile, printed.stdout);
      await succeed(git, ['apply', patchFile], applied);
      await cli(root, tree, ['--fix', '--fix-type', fixType]);
      sameTree(snapshotTree(root), snapshotTree(applied), `${fixType}: --fix writes exactly the printed patch`);
    }
    const safeRoot = prepare(tree, 'lf') as string;
    const safe = await cli(safeRoot, tree, ['--format', 'json', '--fix-type', 'safe']);
    const kinds = new Set(
      (JSON.parse(safe.stdout) as { results: { diagnostics: { fix?: { kind: string } }[] }[] }).results.flatMap((r) =>
        r.diagnostics.flatMap((d) => (d.fix === undefined ? [] : [d.fix.kind])),
      ),
    );
    assert.ok(kinds.has('tune'), 'the tree has tune fixes the safe run leaves out');
  });
});

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function exec(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status, stdout, stderr });
    });
  });
}

async function succeed(command: string, args: readonly string[], cwd: string): Promise<void> {
  const run = await exec(command, args, cwd);
  assert.equal(run.status, 0, `${path.basename(command)} ${args.join(' ')}: ${run.stderr}`);
}

async function cli(cwd: string, tree: Tree, args: readonly string[]): Promise<Run> {
  const host = ['--no-probe', '--host-ram', tree.host.ram, '--per-child', tree.host.perChild, '--host-cpus', tree.host.cpus];
  // The servers lintTree names: an assumed one would write a MariaDB-only option with loose-.
  const target = ['--target', 'httpd=2.4,mariadb=10.11'];
  const run = await exec(process.execPath, [CLI, ...host, ...target, '--sysroot', '.', ...tree.paths, ...args], cwd, {
    ...process.env,
    NO_COLOR: '1',
  });
  assert.ok(
    (run.status === 0 || run.status === 1) && !/internal error|Error:|\n\s+at /.test(run.stderr),
    `tune-lint ${args.join(' ')} exited ${run.status}: ${run.stderr}`,
  );
  return run;
}
