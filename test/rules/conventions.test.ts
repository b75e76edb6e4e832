import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { builtinLanguages } from '../../src/languages/index.js';
import { parseRuleDoc, REQUIRED_SECTIONS } from '../helpers/rule-docs.js';
import { repoPath } from '../helpers/paths.js';
import { ruleCases } from '../helpers/rule-fixtures.js';

const CATEGORY_DIGIT: Record<string, string> = { correctness: '1', performance: '2', security: '3', deprecation: '4', style: '5' };
/** Each language's rule family as its definition names it (rules/<id>/, its prefix), and the host's and the tool's. */
const FAMILY: Record<string, string> = {
  ...Object.fromEntries(builtinLanguages.map((language) => [language.id, language.rules.prefix])),
  host: 'HO',
  tool: 'TL',
};
const ID = new RegExp(`^(${Object.values(FAMILY).join('|')})\\d{4}$`);

/*
 * The house rules of the catalogue, enforced: every rule ships as one unit
 * (module, doc page, good and bad fixtures, golden patch when it fixes), ids
 * and names follow the scheme, the registry is current.
 */
describe('rule catalogue conventions', () => {
  it('registry lists every rule module (npm run registry)', () => {
    execFileSync(process.execPath, [repoPath('scripts', 'gen-registry.mjs'), '--check'], { stdio: 'pipe' });
  });

  it('docs/rules/README.md indexes every rule (npm run docs)', () => {
    execFileSync(process.execPath, [repoPath('scripts', 'gen-docs-index.mjs'), '--check'], { stdio: 'pipe' });
  });

  it("each rule's page has the front matter, title and Options table of its metadata (npm run docs)", () => {
    execFileSync(process.execPath, [repoPath('scripts', 'gen-rule-pages.mjs'), '--check'], { stdio: 'pipe' });
  });

  it('ids and names are unique', () => {
    const ids = builtinRules.map((rule) => rule.meta.id);
    const names = builtinRules.map((rule) => rule.meta.name);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(new Set(names).size, names.length);
  });

  for (const rule of builtinRules) {
    const meta = rule.meta;
    describe(`${meta.id} ${meta.name}`, () => {
      it('id, name, file and category agree', () => {
        assert.match(meta.id, ID);
        assert.equal(meta.id.slice(0, 2), FAMILY[meta.language]);
        if (meta.language !== 'tool') assert.equal(meta.id[2], CATEGORY_DIGIT[meta.category], 'the thousands digit is the category');
        assert.match(meta.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
        const file = repoPath('rules', meta.language, `${meta.id.toLowerCase()}-${meta.name}.ts`);
        assert.ok(fs.existsSync(file), `expected ${path.relative(repoPath(), file)}`);
      });

      it('description and messages read as one sentence without a final period', () => {
        assert.doesNotMatch(meta.description, /\.$/);
        for (const [id, template] of Object.entries(meta.messages)) {
          for (const part of typeof template === 'string' ? [template] : [template.message, template.detail]) {
            assert.ok(part.length > 0, `message ${id} has an empty part`);
            assert.doesNotMatch(part, /\.$/, `message ${id} ends with a period`);
          }
        }
      });

      it('has a doc page whose front matter matches the metadata and whose sections follow the template', () => {
        const docPath = repoPath('docs', 'rules', `${meta.id}.md`);
        assert.ok(fs.existsSync(docPath), `expected docs/rules/${meta.id}.md`);
        const doc = parseRuleDoc(fs.readFileSync(docPath, 'utf8'));
        assert.deepEqual(doc.frontMatter, {
          id: meta.id,
          name: meta.name,
          language: meta.language,
          category: meta.category,
          severity: meta.defaultSeverity,
          ...(meta.fix === undefined ? {} : { fix: meta.fix }),
        });
        assert.equal(doc.title, `${meta.id}: ${meta.description}`);
        assert.deepEqual(doc.sections, REQUIRED_SECTIONS);
        assert.ok(
          doc.references.some((line) => /https?:\/\//.test(line)) || meta.language === 'tool',
          'References must cite real documentation',
        );
      });

      if (meta.language !== 'tool') {
        it('has good and bad fixtures, and a golden patch when it fixes', () => {
          const cases = ruleCases(rule);
          assert.ok(
            cases.some((c) => c.kind === 'bad'),
            `fixtures/rules/${meta.id}/bad-* missing`,
          );
          assert.ok(
            cases.some((c) => c.kind === 'good'),
            `fixtures/rules/${meta.id}/good-* missing`,
          );
          if (meta.fix !== undefined) {
            assert.ok(
              cases.some((c) => fs.existsSync(c.patchPath)),
              `a fixable rule needs at least one .patch`,
            );
          }
        });
      }
    });
  }

  it('no message and no golden says a word twice in a row ("processes processes")', () => {
    const doubled = /\b([A-Za-z]{2,}) \1\b/;
    const templates = builtinRules.flatMap(({ meta }) =>
      Object.entries(meta.messages).flatMap(([id, template]) =>
        (typeof template === 'string' ? [template] : [template.message, template.detail]).map((text) => ({
          where: `${meta.id} ${id}`,
          text,
        })),
      ),
    );
    const goldens = fs
      .readdirSync(repoPath('fixtures'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /(\.expected|^stdout\.\w+)$/.test(entry.name))
      .map((entry) => path.join(entry.parentPath, entry.name))
      .map((file) => ({ where: path.relative(repoPath(), file), text: fs.readFileSync(file, 'utf8') }));
    const found = [...templates, ...goldens].flatMap(({ where, text }) => {
      const match = doubled.exec(text);
      return match === null ? [] : [`${where}: "${match[0]}"`];
    });
    assert.deepEqual(found, []);
  });
});
