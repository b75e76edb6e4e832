import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { builtinRules } from '../../rules/index.js';
import { DEFAULT_TARGETS, parseTargetSpec } from '../../src/core/targets.js';
import { selectRules } from '../../src/engine/selection.js';
import type { Diagnostic } from '../../src/engine/types.js';
import { lint, type LintResult } from '../../src/lint.js';
import { clientPrograms } from '../../src/languages/mycnf/client-programs.js';
import { apacheConfigTest } from '../helpers/apache-oracle.js';
import { materialise } from '../helpers/mycnf-fixtures.js';
import { golden } from '../helpers/rule-fixtures.js';
import { requireTool } from '../helpers/tools.js';

/*
 * The real-world regression set: config trees from public repositories
 * (fixtures/real-world/SOURCES.tsv names each file's repository and commit),
 * byte for byte. Each is linted as a new user would, with the recommended
 * rules, its target and a 4 GiB, 2-CPU host, and
 * - its findings are the golden findings.expected (regressions show);
 * - where the server can judge it here (mariadbd for MariaDB trees, the
 *   MariaDB client programs for their groups, apache2 -t for Apache 2.4 trees
 *   whose modules this host has), tune-lint finds an error exactly when the
 *   server refuses the tree;
 * - the patched tree settles: linting it again proposes nothing.
 */

const ROOT = path.join(process.cwd(), 'fixtures', 'real-world');
const GIB = 1024 ** 3;

interface Tree {
  readonly name: string;
  readonly dir: string;
  readonly main: string;
  /** Other main configs of the same host, linted with it (a pool beside the Apache that feeds it). */
  readonly also?: readonly string[];
  readonly sysroot: boolean;
  readonly target: string;
  readonly oracle: 'apache2' | 'mariadbd' | 'php-fpm' | 'none';
}

function trees(): Tree[] {
  return fs
    .readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const dir = path.join(ROOT, entry.name);
      const settings = parseYaml(fs.readFileSync(path.join(dir, 'tree.yaml'), 'utf8')) as Omit<Tree, 'name' | 'dir'>;
      return { name: entry.name, dir, ...settings };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

function lintTree(tree: Tree, dir = tree.dir, targets = parseTargetSpec(tree.target)): Promise<LintResult> {
  return lint({
    paths: [tree.main, ...(tree.also ?? [])].map((main) => path.join(dir, main)),
    cwd: dir,
    ...(tree.sysroot ? { sysroot: dir } : { includeBase: dir }),
    targets,
    host: { ram: { value: 4 * GIB, source: 'test' }, cpus: { value: 2, source: 'test' } },
    rules: selectRules(builtinRules, 'recommended', new Map()),
  });
}

function shown(diagnostic: Diagnostic): string {
  const line = diagnostic.file.position(diagnostic.range[0]).line;
  return `${diagnostic.file.displayPath}:${line} ${diagnostic.severity} ${diagnostic.ruleId}`;
}

/** A copy of the tree with every fix applied, as `--fix` would write it. */
function patchedCopy(tree: Tree, result: LintResult): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), `tune-lint-real-${tree.name}-`));
  fs.cpSync(tree.dir, copy, { recursive: true, verbatimSymlinks: true });
  for (const fix of result.fixes) {
    const relative = path.relative(tree.dir, fix.file.path);
    fs.writeFileSync(path.join(copy, relative), fix.after, fix.file.encoding);
  }
  return copy;
}

const errorsOf = (result: LintResult): Diagnostic[] => result.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');

function mariadbd(tool: string, file: string, cwd: string): Promise<{ refused: boolean; stderr: string }> {
  return new Promise((resolve) => {
    execFile(tool, [`--defaults-file=${file}`, '--help', '--verbose'], { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      resolve({ refused: error !== null || stderr.includes('[ERROR]'), stderr });
    });
  });
}

describe('the real-world regression set (fixtures/real-world)', () => {
  const all = trees();

  it('holds at least 15 trees, every file listed with its repository and commit', () => {
    assert.ok(all.length >= 15, `${all.length} trees`);
    const listed = new Set(
      fs
        .readFileSync(path.join(ROOT, 'SOURCES.tsv'), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => {
          const [tree, file, repository, , commit] = line.split('\t');
          assert.match(commit ?? '', /^[0-9a-f]{40}$/, `${tree}/${file}: a commit`);
          assert.match(repository ?? '', /^[\w.-]+\/[\w.-]+$/, `${tree}/${file}: a repository`);
          return `${tree}/${file}`;
        }),
    );
    for (const tree of all) {
      const files = fs
        .readdirSync(tree.dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && !['tree.yaml', 'findings.expected'].includes(entry.name))
        .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
      for (const file of files) assert.ok(listed.has(file), `${file} is in SOURCES.tsv`);
    }
  });

  it('with no httpd target named, each Apache tree is judged as the httpd its files show: its golden findings', async () => {
    const apacheTrees = all.filter((tree) => tree.target.includes('httpd='));
    const inferred: string[] = [];
    for (const tree of apacheTrees) {
      const named = parseTargetSpec(tree.target);
      const result = await lintTree(tree, tree.dir, { ...named, httpd: DEFAULT_TARGETS.httpd, httpdAssumed: true });
      const findings = result.diagnostics.map(shown).join('\n');
      const expected = path.join(tree.dir, 'findings.expected');
      assert.equal(findings, fs.existsSync(expected) ? fs.readFileSync(expected, 'utf8').trimEnd() : '', tree.name);
      if (result.assumptions.some((note) => note.startsWith(`httpd ${named.httpd}, inferred from the files`))) inferred.push(tree.name);
    }
    assert.deepEqual(
      inferred,
      apacheTrees.filter((tree) => parseTargetSpec(tree.target).httpd === '2.2').map((tree) => tree.name),
      'every 2.2 tree, and only those, says httpd 2.2 was inferred',
    );
  });

  for (const tree of all) {
    it(`${tree.name}: the golden findings, the server's verdict where it can judge, and a patched tree that settles`, async (t) => {
      const result = await lintTree(tree);
      const findings = result.diagnostics.map(shown).join('\n');
      assert.equal(findings, golden(path.join(tree.dir, 'findings.expected'), findings).trimEnd());
      await judgeWithServer(t, tree, result);
      const patched = patchedCopy(tree, result);
      try {
        const again = await lintTree(tree, patched);
        assert.deepEqual(
          again.fixes.map((fix) => path.relative(patched, fix.file.path)),
          [],
          `the patched tree settles: ${again.diagnostics
            .filter((d) => d.fix !== undefined)
            .map(shown)
            .join('; ')}`,
        );
      } finally {
        fs.rmSync(patched, { recursive: true, force: true });
      }
    });
  }
});

async function judgeWithServer(t: Parameters<typeof requireTool>[0], tree: Tree, result: LintResult): Promise<void> {
  const errors = errorsOf(result).map(shown);
  if (tree.oracle === 'mariadbd') {
    const tool = requireTool(t, 'mariadbd');
    if (tool === undefined) return;
    const copy = materialise({
      name: tree.name,
      dir: tree.dir,
      main: tree.main,
      sysroot: tree.sysroot,
      target: parseTargetSpec(tree.target).db,
    });
    try {
      const server = await mariadbd(tool, copy.main, copy.dir);
      const clients = clientPrograms().flatMap(({ program }) => {
        const run = spawnSync(program, [`--defaults-file=${copy.main}`, '--version'], { encoding: 'utf8' });
        return run.stderr.split('\n').filter((line) => /^\S+: (?:unknown|ambiguous) (?:variable|option)/.test(line));
      });
      t.diagnostic(`mariadbd ${server.refused ? 'refuses' : 'takes'} the tree; clients stopping: ${clients.length}`);
      assert.equal(
        errors.length > 0,
        server.refused || clients.length > 0,
        `tune-lint errors: ${errors.join('; ') || 'none'}\n${server.stderr}`,
      );
    } finally {
      copy.cleanup();
    }
  } else if (tree.oracle === 'php-fpm') {
    await judgePatchWithPhpFpm(t, tree, result, errors);
  } else if (tree.oracle === 'apache2') {
    if (requireTool(t, 'apache2') === undefined) return;
    // ServerRoot is the directory above conf/ (RHEL, a source install) or the main file's own (Debian).
    const mainDir = path.posix.dirname(`/${tree.main}`);
    const serverRoot = path.posix.basename(mainDir) === 'conf' ? path.posix.dirname(mainDir) : mainDir;
    const verdict = await apacheConfigTest({ sysroot: tree.dir, serverRoot, configFile: `/${tree.main}` });
    const missingModule = /Cannot load .* into server: .*No such file or directory/.exec(verdict.stderr);
    if (missingModule !== null) {
      // A module this host lacks (RHEL's mod_systemd, mod_php 7.2) stops apache2 -t before it reads the rest: no verdict here.
      t.diagnostic(`apache2 -t cannot judge here: ${missingModule[0]}`);
      return;
    }
    t.diagnostic(`apache2 -t: ${verdict.syntaxOk ? 'Syntax OK' : (verdict.stderr.trim().split('\n').at(-1) ?? '')}`);
    assert.equal(errors.length > 0, !verdict.syntaxOk, `tune-lint errors: ${errors.join('; ') || 'none'}\n${verdict.stderr}`);
  }
}

/**
 * A pool set's tree names users, directories and logs of its host (chdir
 * /home/lemper), which php-fpm -t checks: the tree itself is judged by what
 * tune-lint finds (no error: the pools are ones php-fpm takes), and its patch
 * by php-fpm as --verify runs it (`php-fpm -n -t` in the sandbox, those paths
 * stood in): the patch must add no problem.
 */
async function judgePatchWithPhpFpm(
  t: Parameters<typeof requireTool>[0],
  tree: Tree,
  result: LintResult,
  errors: readonly string[],
): Promise<void> {
  assert.deepEqual(errors, [], 'php-fpm takes these pools: no error');
  if (requireTool(t, 'bwrap') === undefined || requireTool(t, 'php-fpm8.2') === undefined) return;
  if (result.fixes.length === 0) return;
  const { FixVerifier } = await import('../../src/verify/verify.js');
  const notes: string[] = [];
  const verifier = new FixVerifier({ cwd: tree.dir, sysroot: tree.dir, defines: [], env: [], onNote: (note) => notes.push(note) });
  const verified = await verifier.verify(result);
  t.diagnostic(`${verified.verifiedBy?.join('; ') ?? 'not verified'}; ${notes.join('; ')}`);
  assert.deepEqual(
    verified.diagnostics.filter((diagnostic) => diagnostic.ruleId === 'TL0008').map((diagnostic) => diagnostic.message),
    [],
    'php-fpm -t rejects no fix',
  );
  assert.ok(
    verified.verifiedBy?.some((label) => label.startsWith('php-fpm -t on ')),
    notes.join('; '),
  );
}
