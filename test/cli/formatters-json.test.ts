import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { assembleTree, removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';

/*
 * The JSON report of docs/usage.md (the interface other tools read): `{ version, host, results: [{ file, language,
 * diagnostics: [{ ruleId, ruleName, severity, message, file, line, column,
 * endLine, endColumn, fix? }], patch? }] }`, plus `context` after those keys.
 */
interface Edit {
  file: string;
  range: [number, number];
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  text: string;
}
interface JsonDiagnostic {
  [key: string]: unknown;
  fix?: { kind: string; edits: Edit[] };
}
interface JsonReport {
  [key: string]: unknown;
  results: { [key: string]: unknown; file: string; diagnostics: JsonDiagnostic[]; patch?: string }[];
}

const root = assembleTree(['fixtures/apache/story-drupal-500mb', 'fixtures/mycnf/story'], 'json');
after(() => removeScratch(root));
const ARGS = [
  '--no-probe',
  '--host-ram',
  '500M',
  '--per-child',
  '20M',
  '--sysroot',
  '.',
  '--format',
  'json',
  'etc/apache2/apache2.conf',
  'etc/mysql/my.cnf',
];

describe('JSON output', () => {
  const first = runCli(ARGS, { cwd: root });
  const report = JSON.parse(first.stdout) as JsonReport;

  it('is the same bytes on every run, with no timestamps', () => {
    assert.equal(runCli(ARGS, { cwd: root }).stdout, first.stdout);
    assert.doesNotMatch(first.stdout, /\d{4}-\d\d-\d\dT\d\d:\d\d/);
  });

  it('keys in the documented order', () => {
    assert.deepEqual(Object.keys(report), ['version', 'host', 'budget', 'plan', 'results']);
    assert.deepEqual(Object.keys(report.budget as object), ['ram', 'peak', 'peakAfterPatch', 'consumers', 'consumersAfterPatch']);
    const plan = report.plan as { changes: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(plan), ['overcommitted', 'webBudget', 'changes', 'notes']);
    for (const change of plan.changes) assert.deepEqual(Object.keys(change), ['file', 'setting', 'current', 'planned', 'reason', 'why']);
    assert.equal(report.version, 1);
    assert.deepEqual(Object.keys(report.host as object), ['ram', 'perChild']);
    const withPatch = report.results.find((result) => result.patch !== undefined);
    assert.deepEqual(Object.keys(withPatch ?? {}), ['file', 'language', 'diagnostics', 'patch']);
    const diagnostics = report.results.flatMap((result) => result.diagnostics);
    assert.ok(diagnostics.length > 0);
    for (const diagnostic of diagnostics) {
      const keys = [
        'ruleId',
        'ruleName',
        'severity',
        'message',
        'file',
        'line',
        'column',
        'endLine',
        'endColumn',
        ...(diagnostic.fix === undefined ? [] : ['fix']),
        ...(diagnostic.detail === undefined ? [] : ['detail']),
        'context',
      ];
      assert.deepEqual(Object.keys(diagnostic), keys);
    }
  });

  it('every file read is a result, in include order, with its language', () => {
    const files = report.results.map((result) => result.file);
    assert.equal(files[0], 'etc/apache2/apache2.conf');
    assert.ok(files.includes('etc/apache2/mods-enabled/mpm_prefork.conf'));
    assert.equal(new Set(files).size, files.length);
    assert.deepEqual(
      report.results.filter((result) => result.language === 'mycnf').map((result) => result.file),
      files.filter((file) => file.startsWith('etc/mysql/')),
    );
  });

  it('a fix edit names the same text by offsets and by line/column', () => {
    const edits = report.results.flatMap((result) => result.diagnostics).flatMap((diagnostic) => diagnostic.fix?.edits ?? []);
    assert.ok(edits.length > 0);
    for (const edit of edits) {
      const text = fs.readFileSync(path.join(root, edit.file), 'utf8');
      const lines = text.split('\n');
      const offset = (line: number, column: number): number =>
        lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0) + column - 1;
      assert.deepEqual([offset(edit.line, edit.column), offset(edit.endLine, edit.endColumn)], edit.range, JSON.stringify(edit));
    }
  });

  it("each file's patch is its part of --format diff", () => {
    const diff = runCli(
      ARGS.map((arg) => (arg === 'json' ? 'diff' : arg)),
      { cwd: root },
    ).stdout;
    const patches = report.results.flatMap((result) => (result.patch === undefined ? [] : [result.patch]));
    assert.ok(patches.length > 0);
    assert.equal(patches.join(''), diff);
  });
});

describe('JSON output of files whose names the patch quotes', () => {
  // git quotes a name with a space, a quote, a backslash or a byte outside ASCII; the file keeps its part of the patch.
  const names = ['my site.conf', 'caf\u00e9.conf', 'say "hi".conf', 'plain.conf'];
  const dir = scratchDir('json-quoted');
  after(() => removeScratch(dir));
  writeFiles(dir, Object.fromEntries(names.map((name) => [name, 'Timeout 300\n'])));
  const args = ['--no-probe', '--lang', 'apache', ...names];
  const report = JSON.parse(runCli(['--format', 'json', ...args], { cwd: dir }).stdout) as JsonReport;

  it('gives each changed file its part of --format diff', () => {
    const diff = runCli(['--format', 'diff', ...args], { cwd: dir }).stdout;
    assert.deepEqual(
      report.results.map((result) => [result.file, result.patch?.split('\n')[0]]),
      [
        ['my site.conf', 'diff --git "a/my site.conf" "b/my site.conf"'],
        ['caf\u00e9.conf', 'diff --git "a/caf\\303\\251.conf" "b/caf\\303\\251.conf"'],
        ['say "hi".conf', 'diff --git "a/say \\"hi\\".conf" "b/say \\"hi\\".conf"'],
        ['plain.conf', 'diff --git a/plain.conf b/plain.conf'],
      ],
    );
    // The patch lists files in its own order: each part is in it once, and together they are all of it.
    const parts = report.results.map((result) => result.patch ?? '');
    for (const part of parts) assert.ok(diff.includes(part), part);
    assert.equal(parts.join('').length, diff.length);
  });
});
