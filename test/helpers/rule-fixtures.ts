import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { builtinRules } from '../../rules/index.js';
import { selectRules } from '../../src/engine/selection.js';
import type { FixType } from '../../src/fix/apply.js';
import { unifiedDiff } from '../../src/fix/patch.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import type { Diagnostic, Rule } from '../../src/engine/types.js';
import { hostFactsFromConfig } from '../../src/host/profile.js';
import { lint, type LintResult } from '../../src/lint.js';
import { repoPath } from './paths.js';

/**
 * One case of a rule's fixtures under fixtures/rules/<ID>/: a single config
 * file (`bad-x.conf`, `good-y.cnf`) whose first line may be
 * `# fixture: { host: {...}, target: "httpd=2.4", fixType: tune, options: {...} }`,
 * or a directory with a `fixture.yaml` holding the same keys plus `paths`
 * (and `sysroot: true` for trees with absolute includes). Expectations sit
 * beside it: `<case>.expected` (one `file:line:col severity ID message` per
 * diagnostic) and `<case>.patch` when the rule fixes it.
 */
export interface RuleCase {
  readonly rule: Rule;
  readonly name: string;
  readonly kind: 'bad' | 'good';
  /** Directory the case runs in: paths in expectations and patches are relative to it. */
  readonly cwd: string;
  readonly paths: readonly string[];
  readonly sysroot: boolean;
  readonly settings: CaseSettings;
  readonly expectedPath: string;
  readonly patchPath: string;
}

interface CaseSettings {
  readonly host?: Record<string, unknown>;
  readonly target?: string;
  readonly fixType?: FixType;
  readonly options?: Record<string, unknown>;
  /**
   * Rules that run with this one, whose findings the case does not assert but
   * whose fixes are in its patch: the plan's other decisions (AP2001's cut of
   * Apache, which max_connections then follows), made only where their rule runs.
   */
  readonly alongside?: readonly string[];
}

const RULE_FIXTURES = repoPath('fixtures', 'rules');

export function ruleCases(rule: Rule): RuleCase[] {
  const dir = path.join(RULE_FIXTURES, rule.meta.id);
  if (!fs.existsSync(dir)) return [];
  const cases: RuleCase[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const match = /^(bad|good)-[a-z0-9-]+/.exec(entry.name);
    if (!match || /\.(expected|patch)$/.test(entry.name)) continue;
    const kind = match[1] as 'bad' | 'good';
    if (entry.isDirectory()) {
      const caseDir = path.join(dir, entry.name);
      const settings = parseYaml(fs.readFileSync(path.join(caseDir, 'fixture.yaml'), 'utf8')) as CaseSettings & {
        paths: string[];
        sysroot?: boolean;
      };
      cases.push({
        rule,
        name: entry.name,
        kind,
        cwd: caseDir,
        paths: settings.paths,
        sysroot: settings.sysroot === true,
        settings,
        expectedPath: path.join(dir, `${entry.name}.expected`),
        patchPath: path.join(dir, `${entry.name}.patch`),
      });
    } else {
      const text = fs.readFileSync(path.join(dir, entry.name), 'latin1');
      const header = /^[#;] fixture: (.*)$/m.exec(text.split('\n', 1)[0] ?? '');
      const settings = header === null ? {} : (parseYaml(header[1] as string) as CaseSettings);
      const base = entry.name.replace(/\.[^.]+$/, '');
      cases.push({
        rule,
        name: entry.name,
        kind,
        cwd: dir,
        paths: [entry.name],
        sysroot: false,
        settings,
        expectedPath: path.join(dir, `${base}.expected`),
        patchPath: path.join(dir, `${base}.patch`),
      });
    }
  }
  return cases;
}

export async function runCase(testCase: RuleCase, cwd = testCase.cwd): Promise<LintResult> {
  const selection = selectRules(
    builtinRules.filter((rule) => rule.meta.id === testCase.rule.meta.id || testCase.settings.alongside?.includes(rule.meta.id) === true),
    'all',
    new Map(testCase.settings.options === undefined ? [] : [[testCase.rule.meta.id, { options: testCase.settings.options as never }]]),
  );
  return lint({
    paths: testCase.paths,
    cwd,
    ...(testCase.sysroot ? { sysroot: cwd } : {}),
    targets: parseTargetSpec(testCase.settings.target ?? ''),
    host: testCase.settings.host === undefined ? {} : hostFactsFromConfig(testCase.settings.host, 'fixture'),
    rules: selection,
    fixType: testCase.settings.fixType ?? 'all',
  });
}

/** The human form the `.expected` files hold: one line per finding, its detail indented on the next. */
export function expectationLines(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map(
      (d) =>
        `${d.file.displayPath}:${d.start.line}:${d.start.column} ${d.severity} ${d.ruleId} ${d.message}${d.detail === undefined ? '' : `\n    ${d.detail}`}`,
    )
    .join('\n')
    .concat(diagnostics.length > 0 ? '\n' : '');
}

export async function patchOf(result: LintResult): Promise<string> {
  return unifiedDiff(result.fixes.map((fix) => ({ patchPath: fix.file.patchPath, before: fix.before, after: fix.after })));
}

/** A scratch copy of a case's directory (symlinks kept as links), removed by the caller. */
export function copyCase(testCase: RuleCase): string {
  const target = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-case-'));
  if (testCase.cwd === path.join(RULE_FIXTURES, testCase.rule.meta.id)) {
    for (const file of testCase.paths) fs.copyFileSync(path.join(testCase.cwd, file), path.join(target, file));
  } else {
    fs.cpSync(testCase.cwd, target, { recursive: true, verbatimSymlinks: true });
  }
  return target;
}

export const updating = process.env.UPDATE_FIXTURES === '1';

/** Reads a golden file, or writes it when UPDATE_FIXTURES=1; an empty golden is no file. */
export function golden(file: string, actual: string): string {
  if (updating) {
    if (actual === '') fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, actual);
    return actual;
  }
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

/** A finding's whole text, headline and detail, for tests that look for what it quotes. */
export function said(diagnostic: { readonly message: string; readonly detail?: string }): string {
  return diagnostic.detail === undefined ? diagnostic.message : `${diagnostic.message}; ${diagnostic.detail}`;
}
