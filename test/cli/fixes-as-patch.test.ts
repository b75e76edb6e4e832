import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';

/*
 * JSON and SARIF carry fixes that are exactly the patch: a
 * consumer applying every fix a report carries writes what --format diff
 * writes, although later fix passes rewrote lines the first pass's fixes
 * had proposed (set-variable then a rename, query_cache_size 64M then 0) and
 * HO2001's deferred tune fix sized against the patched configs.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-fixes-as-patch-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

interface JsonEdit {
  readonly file: string;
  readonly range: readonly [number, number];
  readonly text: string;
}

interface JsonReport {
  readonly results: { readonly diagnostics: { readonly fix?: { readonly edits: readonly JsonEdit[] } }[] }[];
}

/** Each file's text with every edit of every fix in the report applied, as a SARIF or JSON consumer would. */
function applyEvery(root: string, report: JsonReport): Map<string, string> {
  const byFile = new Map<string, JsonEdit[]>();
  for (const result of report.results)
    for (const diagnostic of result.diagnostics)
      for (const edit of diagnostic.fix?.edits ?? []) byFile.set(edit.file, [...(byFile.get(edit.file) ?? []), edit]);
  const out = new Map<string, string>();
  for (const [file, edits] of byFile) {
    let text = fs.readFileSync(path.join(root, file), 'latin1');
    for (const edit of [...edits].sort((a, b) => b.range[0] - a.range[0] || b.range[1] - a.range[1]))
      text = text.slice(0, edit.range[0]) + edit.text + text.slice(edit.range[1]);
    out.set(file, text);
  }
  return out;
}

describe('the fixes in JSON are the patch', () => {
  for (const name of ['story-drupal-500mb', 'repo-fleet', 'story-fat-apache', 'story-stock-prefork']) {
    it(`${name}: every fix applied gives the files --fix writes`, () => {
      const scenario = JSON.parse(fs.readFileSync(repoPath('fixtures', 'cli', 'scenarios', name, 'scenario.json'), 'utf8')) as {
        trees: string[];
        args: string[];
      };
      const root = fs.mkdtempSync(path.join(scratch, `${name}-`));
      for (const tree of scenario.trees) fs.cpSync(repoPath(tree), root, { recursive: true, verbatimSymlinks: true });
      const report = JSON.parse(runCli([...scenario.args, '--format', 'json'], { cwd: root }).stdout) as JsonReport;
      const applied = applyEvery(root, report);
      assert.ok(applied.size > 0, 'the report carries fixes');
      const fixed = fs.mkdtempSync(path.join(scratch, `${name}-fixed-`));
      for (const tree of scenario.trees) fs.cpSync(repoPath(tree), fixed, { recursive: true, verbatimSymlinks: true });
      runCli([...scenario.args, '--fix', '--format', 'json'], { cwd: fixed });
      for (const [file, text] of applied) assert.equal(text, fs.readFileSync(path.join(fixed, file), 'latin1'), file);
    });
  }
});
