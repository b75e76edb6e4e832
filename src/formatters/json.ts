import type { SourceFile } from '../core/source-file.js';
import type { Diagnostic, TextEdit } from '../engine/types.js';
import { plannedChanges } from '../analysis/plan.js';
import { factsJson, liveJson } from './facts-json.js';
import { visibleDiagnostics } from './shared.js';
import { LazyList, writeJson } from '../util/streamed-output.js';
import { collected, type FormatInput, type StreamingFormatter, type UnitOutcome } from './types.js';

/**
 * The JSON interface: `{ version, host, budget?, plan?, live?, results: [{ file, language, diagnostics, patch? }] }`,
 * keys in a fixed order, no timestamps, so two runs on the same input print
 * the same bytes. Every file read is a result, in include order, diagnostics
 * or not. When `.tune-lint.yaml` maps the paths to several hosts, `hosts`
 * replaces `host` (`[{ name, facts, live? }]`, the top-level host named null) and
 * each result names its host.
 */
export const writeJsonReport: StreamingFormatter = (input, write) => {
  const several = input.units.length > 1;
  const results = new LazyList(() => input.units.flatMap((unit) => unitResults(unit, input, several)));
  const liveOf = (unit: UnitOutcome | undefined): object => {
    if (unit === undefined) return {};
    const live = liveJson(unit.result.host);
    const budget = budgetJson(unit);
    const plan = planJson(unit);
    return {
      ...(budget === undefined ? {} : { budget }),
      ...(plan === undefined ? {} : { plan }),
      ...(live === undefined ? {} : { live }),
    };
  };
  const head = several
    ? {
        version: 1,
        hosts: input.units.map((unit) => ({ name: unit.label ?? null, facts: factsJson(unit.result.host), ...liveOf(unit) })),
      }
    : { version: 1, host: factsJson(input.units[0]?.result.host ?? {}), ...liveOf(input.units[0]) };
  writeJson({ ...head, results }, write);
  write('\n');
};

export const formatJson = collected(writeJsonReport);

/**
 * `budget`: the memory picture the stylish report draws, as numbers: RAM, the
 * peak of every consumer (Apache, each php-fpm pool, MySQL, the OS reserve)
 * before the patch and after it. What `tune-lint fleet` sorts hosts by.
 */
function budgetJson(unit: UnitOutcome): object | undefined {
  const budget = unit.result.budget;
  if (budget === undefined) return undefined;
  const consumers = (rows: typeof budget.before) => rows.map(({ label, kind, bytes }) => ({ label, kind, bytes }));
  const total = (rows: typeof budget.before) => rows.reduce((sum, row) => sum + row.bytes, 0);
  return {
    ram: budget.ram,
    peak: total(budget.before),
    peakAfterPatch: total(budget.after),
    consumers: consumers(budget.before),
    consumersAfterPatch: consumers(budget.after),
  };
}

/**
 * `plan`: the host plan (src/analysis/plan.ts) behind the sizing findings,
 * present with RAM: whether the limits as set overcommit the host, the web
 * tier's budget, every knob the plan moves with its reason and arithmetic,
 * and why a limit was not raised. The patch carries the changes whose rules run.
 */
function planJson(unit: UnitOutcome): object | undefined {
  const plan = unit.result.sizing.plan;
  const memory = plan.memory;
  if (memory === undefined) return undefined;
  return {
    overcommitted: memory.overcommitted,
    webBudget: { bytes: Math.floor(memory.webBudget.bytes), reason: memory.webBudget.reason },
    changes: plannedChanges(plan),
    notes: plan.notes,
  };
}

/** A result as it is built, its keys set in the interface's order. */
interface ResultJson {
  file: string;
  language: string | null;
  host?: string | null;
  diagnostics?: object[];
  patch?: string;
}

function unitResults(unit: UnitOutcome, input: FormatInput, several: boolean): ResultJson[] {
  const files = new Map<string, { file: SourceFile; diagnostics: Diagnostic[] }>();
  for (const file of unit.result.files) if (!files.has(file.path)) files.set(file.path, { file, diagnostics: [] });
  for (const diagnostic of visibleDiagnostics(unit.result.diagnostics, input.quiet)) {
    const entry = files.get(diagnostic.file.path);
    if (entry === undefined) files.set(diagnostic.file.path, { file: diagnostic.file, diagnostics: [diagnostic] });
    else entry.diagnostics.push(diagnostic);
  }
  const languages = new Map<string, string>();
  for (const [file, language] of unit.result.languages) languages.set(file.path, language);
  // Keys set in the interface's order, not spread from empty objects: this runs for every file read.
  const results: ResultJson[] = [];
  for (const { file, diagnostics } of files.values()) {
    const result: ResultJson = { file: file.displayPath, language: languages.get(file.path) ?? null };
    if (several) result.host = unit.label ?? null;
    result.diagnostics = diagnostics.map(diagnosticJson);
    const patch = input.patches.of(file.patchPath);
    if (patch !== '') result.patch = patch;
    results.push(result);
  }
  return results;
}

/**
 * The interface's keys in its order, then `detail` (the arithmetic, sources
 * and server's words below the headline `message`) and `context` (enclosing
 * sections or the option group, outermost first).
 */
function diagnosticJson(diagnostic: Diagnostic): object {
  return {
    ruleId: diagnostic.ruleId,
    ruleName: diagnostic.ruleName,
    severity: diagnostic.severity,
    message: diagnostic.message,
    file: diagnostic.file.displayPath,
    line: diagnostic.start.line,
    column: diagnostic.start.column,
    endLine: diagnostic.end.line,
    endColumn: diagnostic.end.column,
    ...(diagnostic.fix === undefined ? {} : { fix: { kind: diagnostic.fix.kind, edits: diagnostic.fix.edits.map(editJson) } }),
    ...(diagnostic.detail === undefined ? {} : { detail: diagnostic.detail }),
    context: [...diagnostic.context],
  };
}

/** A replacement as offsets into the file's text (UTF-16 code units, like `range` in ESLint) and as 1-based line/column, end exclusive. */
function editJson(edit: TextEdit): object {
  const start = edit.file.position(edit.range[0]);
  const end = edit.file.position(edit.range[1]);
  return {
    file: edit.file.displayPath,
    range: [edit.range[0], edit.range[1]],
    line: start.line,
    column: start.column,
    endLine: end.line,
    endColumn: end.column,
    text: edit.text,
  };
}
