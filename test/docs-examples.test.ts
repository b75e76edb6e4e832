import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../rules/index.js';
import { selectRules } from '../src/engine/selection.js';
import { parseTargetSpec } from '../src/engine/targets.js';
import { hostFactsFromConfig } from '../src/host/profile.js';
import { lint } from '../src/lint.js';
import { parseRuleDoc } from './helpers/rule-docs.js';
import { repoPath } from './helpers/paths.js';

const EXTENSION: Record<string, string> = { apache: '.conf', ini: '.cnf' };

/*
 * The examples on every rule page are real: the first block of "Problematic
 * configuration" triggers the rule and the first block of "Corrected
 * configuration" does not, so the docs cannot drift from the code.
 */
describe('rule docs examples', () => {
  for (const rule of builtinRules) {
    const docPath = repoPath('docs', 'rules', `${rule.meta.id}.md`);
    if (!fs.existsSync(docPath)) continue;
    const doc = parseRuleDoc(fs.readFileSync(docPath, 'utf8'));
    for (const [section, shouldTrigger] of [
      ['Problematic configuration', true],
      ['Corrected configuration', false],
    ] as const) {
      const example = doc.examples.find((candidate) => candidate.section === section);
      it(`${rule.meta.id} ${section.toLowerCase()}`, async (t) => {
        assert.ok(example !== undefined, `${section} needs a code block`);
        if (typeof example.settings['skip'] === 'string') {
          t.skip(example.settings['skip']);
          return;
        }
        const extension = EXTENSION[example.language];
        assert.ok(extension !== undefined, `code blocks are apache or ini, not ${example.language}`);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-doc-'));
        try {
          const file = path.join(dir, `example${extension}`);
          fs.writeFileSync(file, example.code);
          const extra = (example.settings['rules'] as string[] | undefined) ?? [];
          const host = example.settings['host'] as Record<string, unknown> | undefined;
          const result = await lint({
            paths: [file],
            cwd: dir,
            targets: parseTargetSpec((example.settings['target'] as string | undefined) ?? ''),
            host: host === undefined ? {} : hostFactsFromConfig(host, 'doc example'),
            rules: selectRules(
              builtinRules.filter((candidate) => candidate === rule || extra.includes(candidate.meta.id)),
              'all',
              new Map(),
            ),
            fixType: 'none',
          });
          const hits = result.diagnostics.filter((diagnostic) => diagnostic.ruleId === rule.meta.id);
          if (shouldTrigger) assert.ok(hits.length > 0, `the problematic example must trigger ${rule.meta.id}`);
          else assert.deepEqual(hits.map((hit) => hit.message), [], `the corrected example must not trigger ${rule.meta.id}`);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  }
});
