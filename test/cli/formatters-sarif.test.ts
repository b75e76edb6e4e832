import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type * as Sarif from 'sarif';
import { assembleTree, removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';
import { assertValidSarif, isValidSarif } from '../helpers/sarif-schema.js';

/** The SARIF output against the published SARIF 2.1.0 JSON schema (test/helpers/sarif-schema.ts). */
const assertValid = assertValidSarif;

const scratches: string[] = [];
after(() => scratches.forEach(removeScratch));

function sarifOf(args: readonly string[], cwd: string): Sarif.Log {
  const run = runCli([...args, '--format', 'sarif'], { cwd });
  assert.equal(run.stderr, '');
  return JSON.parse(run.stdout) as Sarif.Log;
}

describe('SARIF output', () => {
  it('the validator rejects what is not SARIF (a wrong level, a message without text, a bad URI)', () => {
    const bad = [
      { version: '2.1.0', runs: [{ tool: { driver: { name: 't' } }, results: [{ message: { text: 'x' }, level: 'warn' }] }] },
      { version: '2.1.0', runs: [{ tool: { driver: { name: 't' } }, results: [{ message: {} }] }] },
      { version: '2.1.0', runs: [{ tool: { driver: { name: 't', informationUri: 'not a uri' } } }] },
      { version: '2.0.0', runs: [] },
    ];
    for (const log of bad) assert.equal(isValidSarif(log), false, JSON.stringify(log));
  });

  it('every golden SARIF of the CLI scenarios validates', () => {
    const scenarios = repoPath('fixtures', 'cli', 'scenarios');
    const goldens = fs
      .readdirSync(scenarios)
      .map((name) => path.join(scenarios, name, 'stdout.sarif'))
      .filter((file) => fs.existsSync(file));
    assert.ok(goldens.length >= 4);
    for (const file of goldens) assertValid(JSON.parse(fs.readFileSync(file, 'utf8')), path.relative(repoPath(), file));
  });

  it('rules come from the catalogue with help URIs to pages that exist, results point at them by index', () => {
    const root = assembleTree(['fixtures/apache/story-stock-prefork'], 'sarif-rules');
    scratches.push(root);
    const log = sarifOf(['--no-probe', '--host-ram', '500M', '--per-child', '20M', '--sysroot', '.', 'etc/apache2/apache2.conf'], root);
    assertValid(log, 'stock prefork');
    const run = log.runs[0] as Sarif.Run;
    const rules = run.tool.driver.rules ?? [];
    const catalogue = JSON.parse(runCli(['rules', '--json'], { cwd: root }).stdout) as { rules: { id: string; defaultSeverity: string }[] };
    assert.deepEqual(
      rules.map((rule) => rule.id),
      catalogue.rules.map((rule) => rule.id).sort(),
    );
    for (const rule of rules) {
      assert.match(rule.helpUri ?? '', new RegExp(`/docs/rules/${rule.id}\\.md$`));
      assert.ok(fs.existsSync(repoPath('docs', 'rules', `${rule.id}.md`)), `${rule.id} has no docs/rules page`);
    }
    assert.ok((run.results ?? []).length > 0);
    for (const result of run.results ?? []) assert.equal(rules[result.ruleIndex as number]?.id, result.ruleId);
    const levels = new Map(catalogue.rules.map((rule) => [rule.id, rule.defaultSeverity]));
    for (const rule of rules)
      assert.equal(rule.defaultConfiguration?.level, { error: 'error', warn: 'warning', info: 'note' }[levels.get(rule.id) as string]);
  });

  it('fixes: the replacements, applied to the files, give what --fix writes', () => {
    const root = assembleTree(['fixtures/apache/story-stock-prefork'], 'sarif-fixes');
    scratches.push(root);
    const args = ['--no-probe', '--host-ram', '500M', '--per-child', '20M', '--sysroot', '.', 'etc/apache2/apache2.conf'];
    const log = sarifOf(args, root);
    const byFile = new Map<string, Sarif.Replacement[]>();
    for (const result of log.runs[0]?.results ?? []) {
      for (const change of result.fixes?.[0]?.artifactChanges ?? []) {
        const uri = change.artifactLocation.uri as string;
        byFile.set(uri, [...(byFile.get(uri) ?? []), ...change.replacements]);
      }
    }
    assert.ok(byFile.size > 0, 'the stock prefork story has fixes');
    const expected = new Map(
      [...byFile].map(([uri, replacements]) => [
        uri,
        applyReplacements(fs.readFileSync(path.join(root, decodeURIComponent(uri)), 'utf8'), replacements),
      ]),
    );
    const fix = runCli([...args, '--fix', '--format', 'json'], { cwd: root });
    assert.equal(fix.stderr, '');
    for (const [uri, text] of expected) {
      const real = fs.realpathSync(path.join(root, decodeURIComponent(uri)));
      assert.equal(fs.readFileSync(real, 'utf8'), text, uri);
    }
  });

  it('URIs: percent-encoded relative paths under the working directory, file: URIs outside it', () => {
    const dir = scratchDir('sarif-uris');
    scratches.push(dir);
    writeFiles(dir, {
      'repo/conf dir/100%.conf': 'LoadModule mpm_prefork_module m.so\nMaxClients 150\n',
      'outside/httpd.conf': 'LoadModule mpm_prefork_module m.so\nMaxClients 150\n',
    });
    const log = sarifOf(['--no-probe', 'conf dir/100%.conf', path.join(dir, 'outside', 'httpd.conf')], path.join(dir, 'repo'));
    assertValid(log, 'odd paths');
    const uris = new Set((log.runs[0]?.results ?? []).map((result) => result.locations?.[0]?.physicalLocation?.artifactLocation?.uri));
    assert.deepEqual([...uris].sort(), [`file://${path.join(dir, 'outside', 'httpd.conf')}`, 'conf%20dir/100%25.conf'].sort());
  });

  it('--quiet keeps the errors only; the rules stay', () => {
    const root = assembleTree(['fixtures/apache/story-stock-prefork'], 'sarif-quiet');
    scratches.push(root);
    const log = sarifOf(
      ['--no-probe', '--host-ram', '500M', '--per-child', '20M', '--sysroot', '.', '--quiet', 'etc/apache2/apache2.conf'],
      root,
    );
    assertValid(log, 'quiet');
    const levels = (log.runs[0]?.results ?? []).map((result) => result.level);
    assert.ok(levels.length > 0 && levels.every((level) => level === 'error'), levels.join());
  });
});

/** Applies SARIF replacements (1-based line/column regions, end exclusive) to a text, last first. */
function applyReplacements(text: string, replacements: readonly Sarif.Replacement[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = (line: number, column: number): number => (lineStarts[line - 1] as number) + column - 1;
  const edits = replacements.map((replacement) => {
    const region = replacement.deletedRegion;
    return {
      start: offset(region.startLine as number, region.startColumn as number),
      end: offset(region.endLine as number, region.endColumn as number),
      text: replacement.insertedContent?.text ?? '',
    };
  });
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}
