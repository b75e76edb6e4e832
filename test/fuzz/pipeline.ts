import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtinRules } from '../../rules/index.js';
import { selectRules } from '../../src/engine/selection.js';
import type { Targets } from '../../src/core/targets.js';
import type { Diagnostic } from '../../src/engine/types.js';
import { FORMAT_NAMES, loadFormatter } from '../../src/formatters/index.js';
import { collected } from '../../src/formatters/types.js';
import type { HostFacts } from '../../src/host/facts.js';
import { lint, MAX_FIX_PASSES, type LintResult } from '../../src/lint.js';
import { parseApache } from '../../src/languages/apache/parser.js';
import { parseMyCnf } from '../../src/languages/mycnf/parser.js';
import { FilePatches, unifiedDiff } from '../../src/fix/patch.js';

/** Byte strings (one char per byte) of a main file and the files it may include from conf.d/. */
export interface ConfigSet {
  readonly main: string;
  readonly included: readonly string[];
}

export interface Scenario {
  readonly apache?: ConfigSet;
  readonly mycnf?: ConfigSet;
  readonly host: HostFacts;
  readonly targets: Targets;
}

/** What a run exercised, so a test can check the generators reach the rules and the fixer. */
export interface RunStats {
  readonly diagnostics: number;
  readonly ruleDiagnostics: number;
  readonly fixedFiles: number;
  readonly passes: number;
}

/** Generous: the inputs are a few KB; a run this slow has gone super-linear (a regex or a walk that explodes). */
const DEFAULT_RUN_BUDGET_MS = 10_000;

const ALL_RULES = selectRules(builtinRules, 'all', new Map());
const KNOWN_RULES = new Set(builtinRules.map((rule) => rule.meta.id));

/** A scratch directory reused by every run of a property; each run starts from an empty tree. */
export class Workspace {
  readonly dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-fuzz-')));

  reset(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
    fs.mkdirSync(path.join(this.dir, 'conf.d'), { recursive: true });
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Writes the scenario, lints it with every rule, and checks what must hold
 * for any input: lint returns (no exception escapes), within the time budget,
 * without touching the disk; every file read prints back byte for byte;
 * every diagnostic points inside its file with a one-line message; every
 * formatter prints; every fix takes effect (no TL0009); every fix keeps the
 * file's encoding, and linting the fixed files finds no new parse error
 * (TL0001) and nothing left to fix.
 */
export async function checkScenario(workspace: Workspace, scenario: Scenario, budgetMs = DEFAULT_RUN_BUDGET_MS): Promise<RunStats> {
  workspace.reset();
  const mains = writeScenario(workspace.dir, scenario);
  const before = snapshot(workspace.dir);
  const started = performance.now();
  const result = await lintOnce(workspace.dir, mains, scenario);
  assert.deepEqual(snapshot(workspace.dir), before, 'lint (without --fix) wrote to disk');

  for (const file of result.files) {
    const language = result.languages.get(file);
    if (language === 'apache') assert.equal(parseApache(file.text).toString(), file.text, `${file.displayPath}: Apache round trip`);
    else checkMycnfTiling(file.text, file.encoding, file.displayPath);
  }
  for (const diagnostic of result.diagnostics) checkDiagnostic(diagnostic, result);
  await checkFormatters(result);
  const parseErrors = result.diagnostics.filter((diagnostic) => diagnostic.ruleId === 'TL0001').length;
  // The fix passes leave out a fix whose finding survives it (TL0009): each is a rule's bug for the fuzzer to find.
  const withoutEffect = result.diagnostics.filter((diagnostic) => diagnostic.ruleId === 'TL0009');
  assert.deepEqual(
    withoutEffect.map((diagnostic) => `${diagnostic.file.displayPath}:${diagnostic.start.line} ${diagnostic.message}`),
    [],
    'a fix did not take effect',
  );

  for (const fix of result.fixes) {
    assert.equal(fix.before, fix.file.text, `${fix.file.displayPath}: a fix starts from the text read`);
    assert.notEqual(fix.after, fix.before, `${fix.file.displayPath}: a fix changes something`);
    assert.equal(
      fix.file.encode(fix.after).toString(fix.file.encoding === 'latin1' ? 'latin1' : 'utf8'),
      fix.after,
      `${fix.file.displayPath}: the fixed text survives its ${fix.file.encoding} encoding`,
    );
  }
  if (result.fixes.length > 0) {
    assert.ok(result.passes < MAX_FIX_PASSES, `the fix passes did not settle within ${MAX_FIX_PASSES} passes`);
    for (const fix of result.fixes) {
      // The test writes the fixes itself: never outside its workspace, whatever a generated include points at.
      assert.ok(fix.file.realPath.startsWith(`${workspace.dir}${path.sep}`), `a fix outside the workspace: ${fix.file.realPath}`);
      fs.writeFileSync(fix.file.realPath, fix.file.encode(fix.after));
    }
    const again = await lintOnce(workspace.dir, mains, scenario);
    const parseErrorsAfter = again.diagnostics.filter((diagnostic) => diagnostic.ruleId === 'TL0001');
    assert.ok(
      parseErrorsAfter.length <= parseErrors,
      `the fixes added parse errors: ${parseErrorsAfter.map((d) => `${d.file.displayPath}:${d.start.line} ${d.message}`).join('; ')}`,
    );
    assert.deepEqual(
      again.fixes.map((fix) => ({ file: fix.file.displayPath, patch: shortDiff(fix.before, fix.after) })),
      [],
      'a second fix pass over the fixed files changes nothing',
    );
  }
  const elapsed = performance.now() - started;
  assert.ok(elapsed < budgetMs, `one run took ${Math.round(elapsed)} ms, over the budget of ${budgetMs} ms`);
  return {
    diagnostics: result.diagnostics.length,
    ruleDiagnostics: result.diagnostics.filter((diagnostic) => !diagnostic.ruleId.startsWith('TL')).length,
    fixedFiles: result.fixes.length,
    passes: result.passes,
  };
}

function writeScenario(dir: string, scenario: Scenario): string[] {
  const mains: string[] = [];
  const put = (name: string, text: string): void => fs.writeFileSync(path.join(dir, name), Buffer.from(text, 'latin1'));
  if (scenario.apache !== undefined) {
    put('apache2.conf', scenario.apache.main);
    scenario.apache.included.forEach((text, index) => put(`conf.d/${String.fromCharCode(97 + index)}.conf`, text));
    mains.push('apache2.conf');
  }
  if (scenario.mycnf !== undefined) {
    put('my.cnf', scenario.mycnf.main);
    scenario.mycnf.included.forEach((text, index) => put(`conf.d/${String.fromCharCode(97 + index)}.cnf`, text));
    mains.push('my.cnf');
  }
  return mains;
}

async function lintOnce(dir: string, paths: readonly string[], scenario: Scenario): Promise<LintResult> {
  // The workspace is the sysroot: a generated `!includedir /etc/mysql/...` or `Include /etc/apache2/...` reads (and its fix would
  // write) inside it, never this machine's configs.
  return lint({
    paths,
    cwd: dir,
    sysroot: dir,
    rules: ALL_RULES,
    host: scenario.host,
    targets: scenario.targets,
    fixType: 'all',
    readers: { mycnf: { includeBase: dir } },
  });
}

function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(full, fs.readFileSync(full).toString('latin1'));
    }
  };
  walk(dir);
  return out;
}

/** The reader's lines are views over the text: they must tile it exactly, in order. */
function checkMycnfTiling(text: string, encoding: 'utf8' | 'latin1', shown: string): void {
  const document = parseMyCnf(text, { encoding });
  assert.equal(document.toString(), text, `${shown}: option file round trip`);
  let at = 0;
  for (const line of document.lines) {
    assert.equal(line.range[0], at, `${shown}: line ${line.number} starts where the previous one ended`);
    assert.ok(line.range[1] > line.range[0], `${shown}: line ${line.number} is not empty`);
    at = line.range[1];
  }
  assert.equal(at, text.length, `${shown}: the lines cover the whole text`);
}

function checkDiagnostic(diagnostic: Diagnostic, result: LintResult): void {
  const where = `${diagnostic.ruleId} at ${diagnostic.file.displayPath}:${diagnostic.start.line}: ${diagnostic.message}`;
  assert.ok(KNOWN_RULES.has(diagnostic.ruleId), `unknown rule id: ${where}`);
  assert.ok(['error', 'warn', 'info'].includes(diagnostic.severity), `severity: ${where}`);
  assert.ok(result.files.includes(diagnostic.file), `a diagnostic on a file that was not read: ${where}`);
  assert.doesNotMatch(diagnostic.message, /[\x00-\x08\x0a-\x1f\x7f-\x9f]/, `a message is one printable line: ${where}`);
  for (const label of diagnostic.context)
    assert.doesNotMatch(label, /[\x00-\x08\x0a-\x1f\x7f-\x9f]/, `a context label is printable: ${where}`);
  assert.ok(diagnostic.message.length > 0, `a message says something: ${where}`);
  const [start, end] = diagnostic.range;
  assert.ok(
    Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= diagnostic.file.text.length,
    `range inside the file: ${where} [${start}, ${end}]`,
  );
  assert.ok(
    diagnostic.start.line >= 1 && diagnostic.start.column >= 1 && diagnostic.end.line >= diagnostic.start.line,
    `positions: ${where}`,
  );
  for (const edit of diagnostic.fix?.edits ?? []) {
    assert.ok(
      edit.range[0] >= 0 && edit.range[0] <= edit.range[1] && edit.range[1] <= edit.file.text.length,
      `fix edit inside its file: ${where}`,
    );
  }
}

async function checkFormatters(result: LintResult): Promise<void> {
  const patch = await unifiedDiff(result.fixes.map((fix) => ({ patchPath: fix.file.patchPath, before: fix.before, after: fix.after })));
  for (const name of FORMAT_NAMES) {
    const formatter = collected(await loadFormatter(name));
    for (const wrote of [false, true]) {
      const printed = formatter({
        units: [{ label: undefined, result }],
        rules: builtinRules.map((rule) => rule.meta),
        version: '0.0.0',
        color: name === 'stylish',
        patch,
        patches: new FilePatches(patch),
        wrote,
        fixType: 'all',
        quiet: false,
        remaining: wrote ? result.diagnostics : undefined,
      });
      assert.equal(typeof printed, 'string', `${name} prints text`);
      if (name === 'json' || name === 'sarif') JSON.parse(printed);
    }
  }
}

function shortDiff(before: string, after: string): string {
  let start = 0;
  while (start < before.length && before[start] === after[start]) start++;
  return `at ${start}: ${JSON.stringify(before.slice(start, start + 60))} -> ${JSON.stringify(after.slice(start, start + 60))}`;
}
