import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HostFacts } from '../core/host-facts.js';
import type { AnyLanguageDefinition, LanguageId } from '../core/language.js';
import type { Targets } from '../core/targets.js';
import { selectRules } from '../engine/selection.js';
import type { Diagnostic, Rule, RuleOptions } from '../engine/types.js';
import { lint } from '../lint.js';

/** One case: the files of a config tree, read from the first one (or `main`). */
export interface RuleTestCase {
  /** Each file's text by its path in the case's directory. */
  readonly files: Readonly<Record<string, string>>;
  /** The main file to lint; the first of `files` when not given. */
  readonly main?: string;
  readonly options?: RuleOptions;
  readonly host?: HostFacts;
  readonly targets?: Targets;
  /** Reads the main file as this language, whatever its name says. */
  readonly language?: LanguageId;
  /** The languages to read with, for a rule of a language that is not built in. */
  readonly languages?: readonly AnyLanguageDefinition[];
}

/** A finding a case must give: its headline (or a pattern of it), and where. */
export interface ExpectedFinding {
  readonly message?: string | RegExp;
  readonly file?: string;
  readonly line?: number;
}

export interface InvalidRuleTestCase extends RuleTestCase {
  /** The findings, in report order; a number checks only how many. */
  readonly errors: readonly ExpectedFinding[] | number;
  /** The texts the rule's fixes leave, for each file they change: the patch a user would get. */
  readonly output?: Readonly<Record<string, string>>;
}

/**
 * Runs a rule on configs given as text, as ESLint's RuleTester does: each
 * valid case must give no finding of the rule, each invalid one exactly the
 * findings listed, and, with `output`, fixes that leave exactly those texts.
 * Only the rule runs (at `warn` unless its default is stronger), the files
 * live in a temporary directory of their own, and a failure is an
 * AssertionError naming the case.
 */
export async function testRule(
  rule: Rule,
  cases: { readonly valid?: readonly RuleTestCase[]; readonly invalid?: readonly InvalidRuleTestCase[] },
): Promise<void> {
  for (const [index, valid] of (cases.valid ?? []).entries()) {
    const { findings } = await runCase(rule, valid);
    assert.deepEqual(findings.map(describe), [], `${rule.meta.id} valid case ${index}: expected no finding`);
  }
  for (const [index, invalid] of (cases.invalid ?? []).entries()) {
    const { findings, fixed } = await runCase(rule, invalid);
    const label = `${rule.meta.id} invalid case ${index}`;
    if (typeof invalid.errors === 'number') assert.equal(findings.length, invalid.errors, `${label}: ${findings.map(describe).join('; ')}`);
    else {
      assert.equal(findings.length, invalid.errors.length, `${label}: ${findings.map(describe).join('; ')}`);
      invalid.errors.forEach((expected, at) => matches(findings[at] as Diagnostic, expected, `${label}, finding ${at}`));
    }
    if (invalid.output !== undefined) assert.deepEqual(fixed, invalid.output, `${label}: the files as the fixes leave them`);
  }
}

async function runCase(rule: Rule, testCase: RuleTestCase): Promise<{ findings: Diagnostic[]; fixed: Record<string, string> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-rule-test-'));
  try {
    for (const [name, text] of Object.entries(testCase.files)) {
      const file = path.join(dir, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
    const main = testCase.main ?? Object.keys(testCase.files)[0];
    if (main === undefined) throw new Error('a rule test case needs at least one file');
    const severity = rule.meta.defaultSeverity === 'info' ? 'warn' : rule.meta.defaultSeverity;
    const settings = new Map([[rule.meta.id, { severity, ...(testCase.options === undefined ? {} : { options: testCase.options }) }]]);
    const result = await lint({
      paths: [main],
      cwd: dir,
      rules: selectRules([rule], 'all', settings),
      host: testCase.host ?? {},
      ...(testCase.targets === undefined ? {} : { targets: testCase.targets }),
      ...(testCase.language === undefined ? {} : { language: testCase.language }),
      ...(testCase.languages === undefined ? {} : { languages: testCase.languages }),
    });
    const fixed = Object.fromEntries(result.fixes.map((fix) => [path.relative(dir, fix.file.path), fix.after]));
    return { findings: result.diagnostics.filter((diagnostic) => diagnostic.ruleId === rule.meta.id), fixed };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function matches(found: Diagnostic, expected: ExpectedFinding, label: string): void {
  if (typeof expected.message === 'string') assert.equal(found.message, expected.message, label);
  else if (expected.message !== undefined) assert.match(found.message, expected.message, label);
  if (expected.line !== undefined) assert.equal(found.start.line, expected.line, `${label}: ${describe(found)}`);
  if (expected.file !== undefined) assert.equal(found.file.displayPath, expected.file, `${label}: ${describe(found)}`);
}

function describe(diagnostic: Diagnostic): string {
  return `${diagnostic.file.displayPath}:${diagnostic.start.line} ${diagnostic.message}`;
}
