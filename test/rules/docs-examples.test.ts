import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { selectRules } from '../../src/engine/selection.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import { hostFactsFromConfig } from '../../src/host/profile.js';
import { lint } from '../../src/lint.js';
import { parseRuleDoc } from '../helpers/rule-docs.js';
import { repoPath } from '../helpers/paths.js';

const EXTENSION: Record<string, string> = { apache: '.conf', ini: '.cnf' };

/*
 * The examples on every rule page are real: the blocks of "Problematic
 * configuration" trigger the rule and those of "Corrected configuration" do
 * not (notes aside), so the docs cannot drift from the code. Several blocks in
 * one section are the files of one example: `<!-- fixture: { file: my.cnf } -->`
 * names a block's file, `path: false` keeps it out of the paths linted (an
 * included file).
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
      const examples = doc.examples.filter((candidate) => candidate.section === section);
      it(`${rule.meta.id} ${section.toLowerCase()}`, async (t) => {
        assert.ok(examples.length > 0, `${section} needs a code block`);
        const skip = examples.find((example) => typeof example.settings.skip === 'string');
        if (skip !== undefined) {
          t.skip(skip.settings.skip as string);
          return;
        }
        const settings = Object.assign({}, ...examples.map((example) => example.settings)) as Record<string, unknown>;
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-doc-'));
        try {
          const paths: string[] = [];
          for (const [index, example] of examples.entries()) {
            const extension = EXTENSION[example.language];
            assert.ok(extension !== undefined, `code blocks are apache or ini, not ${example.language}`);
            const name = (example.settings.file as string | undefined) ?? `example${index === 0 ? '' : `-${index}`}${extension}`;
            fs.writeFileSync(path.join(dir, name), example.code);
            if (example.settings.path !== false) paths.push(name);
          }
          const extra = (settings.rules as string[] | undefined) ?? [];
          const host = settings.host as Record<string, unknown> | undefined;
          const result = await lint({
            paths,
            cwd: dir,
            targets: parseTargetSpec((settings.target as string | undefined) ?? ''),
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
          else {
            const notNotes = hits.filter((hit) => hit.severity !== 'info' || rule.meta.defaultSeverity === 'info');
            assert.deepEqual(
              notNotes.map((hit) => hit.message),
              [],
              `the corrected example must not trigger ${rule.meta.id} (notes aside)`,
            );
          }
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  }
});
