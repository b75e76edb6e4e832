import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { runCli } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';

describe('tune-lint rules', () => {
  it('--json: every built-in rule with its metadata and docs URL, in id order', () => {
    const run = runCli(['rules', '--json'], { cwd: repoPath() });
    assert.equal(run.status, 0);
    const catalogue = JSON.parse(run.stdout) as { version: number; rules: Record<string, unknown>[] };
    assert.equal(catalogue.version, 1);
    assert.deepEqual(
      catalogue.rules.map((rule) => rule.id),
      builtinRules.map((rule) => rule.meta.id),
    );
    for (const [index, rule] of catalogue.rules.entries()) {
      const meta = builtinRules[index]?.meta;
      assert.deepEqual(Object.keys(rule), [
        'id',
        'name',
        'language',
        'category',
        'description',
        'defaultSeverity',
        'recommended',
        'fix',
        'needsHost',
        'docs',
      ]);
      assert.equal(rule.name, meta?.name);
      assert.equal(rule.defaultSeverity, meta?.defaultSeverity);
      assert.equal(rule.fix, meta?.fix ?? null);
      assert.match(rule.docs as string, new RegExp(`/blob/v\\d+\\.\\d+\\.\\d+[^/]*/docs/rules/${meta?.id}\\.md$`));
    }
  });

  it('as a table: a header, one line per rule with id, name, severity, fix, preset and description', () => {
    const run = runCli(['rules'], { cwd: repoPath() });
    assert.equal(run.status, 0);
    const lines = run.stdout.trimEnd().split('\n');
    assert.match(lines[0] as string, /^ID +NAME +SEVERITY +FIX +PRESET +DESCRIPTION$/);
    for (const rule of builtinRules) {
      const line = lines.find((candidate) => candidate.startsWith(`${rule.meta.id} `));
      assert.ok(line !== undefined, rule.meta.id);
      const preset = rule.meta.recommended ? 'recommended' : 'strict';
      assert.match(
        line,
        new RegExp(`^${rule.meta.id} +${rule.meta.name} +${rule.meta.defaultSeverity} +${rule.meta.fix ?? '-'} +${preset} +`),
      );
      assert.ok(line.endsWith(rule.meta.description));
    }
    assert.match(lines.at(-1) as string, /docs\/rules\/<ID>\.md/);
  });
});
