import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { selectRules } from '../../src/engine/selection.js';
import { builtinLanguages } from '../../src/languages/index.js';
import { lint } from '../../src/lint.js';
import { testRule } from '../../src/testing/rule-tester.js';
import { toyLanguage } from '../toy-language/language.js';
import toyRule from '../toy-language/ty2001-memory-over-ram.js';

/*
 * A fourth language from test/toy-language/, which nothing outside that
 * folder names: given to lint() beside the built-in ones, its files are told
 * by their name, read, linted with its rule and the tool's, sized in the
 * host's memory picture and fixed, as the built-in languages are.
 */

const GIB = 1024 ** 3;
const languages = [...builtinLanguages, toyLanguage];

describe('a fourth language, registered from outside src/', () => {
  it('is read, linted, sized on the host and fixed with no edit outside its folder', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-toy-'));
    try {
      fs.writeFileSync(path.join(dir, 'cache.toy'), '; the toy cache\n[cache]\nmemory = 1536M\nport = 7000\nthis line is broken\n');
      fs.writeFileSync(path.join(dir, 'my.cnf'), '[mysqld]\nmax_connections = 20\n');
      const tools = builtinRules.filter((rule) => rule.meta.language === 'tool');
      const result = await lint({
        paths: ['cache.toy', 'my.cnf'],
        cwd: dir,
        languages,
        rules: selectRules([toyRule, ...tools], 'recommended', new Map()),
        host: { ram: { value: 2 * GIB, source: 'test' } },
      });
      const found = result.diagnostics.map((d) => `${d.file.displayPath}:${d.start.line} ${d.ruleId} ${d.message}`);
      assert.deepEqual(found, [
        'cache.toy:3 TY2001 memory 1536M is above half of 2 GiB RAM; expected at most 1024M',
        'cache.toy:5 TL0001 not a [section], a key = value or a ; comment',
      ]);
      assert.equal(result.languages.get(result.files[0] as (typeof result.files)[number]), 'toy');
      assert.deepEqual(
        result.budget?.before.map((row) => `${row.label} ${row.kind} ${row.bytes}`),
        [`MySQL mysql ${result.budget?.before[0]?.bytes ?? 0}`, `toy cache mysql ${1536 * 1024 ** 2}`, `OS reserve os ${0.1 * 2 * GIB}`],
      );
      assert.equal(result.fixes[0]?.after, '; the toy cache\n[cache]\nmemory = 1024M\nport = 7000\nthis line is broken\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('its rule is held to its cases by the rule tester, as a user of the library would', async () => {
    const host = { ram: { value: 2 * GIB, source: 'test' } };
    await testRule(toyRule, {
      valid: [{ files: { 'cache.toy': '[cache]\nmemory = 512M\n' }, host, languages }],
      invalid: [
        {
          files: { 'cache.toy': '[cache]\nmemory = 2G\n' },
          host,
          languages,
          errors: [{ message: /^memory 2G is above half of 2 GiB RAM/, line: 2 }],
          output: { 'cache.toy': '[cache]\nmemory = 1024M\n' },
        },
      ],
    });
  });
});
