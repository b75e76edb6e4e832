import type { Diagnostic, Severity } from '../engine/types.js';
import { describeHostFacts, describeLive } from '../host/format.js';
import { reachedSoFarLine } from '../analysis/mysql-live.js';
import { printable } from '../util/printable.js';
import { budgetLines, type BarKind } from './budget.js';
import { countDiagnostics, visibleDiagnostics, type Counts } from './shared.js';
import { collected, type FormatInput, type StreamingFormatter, type UnitOutcome } from './types.js';
import { writeLines } from '../util/streamed-output.js';
import { appendAll } from '../util/arrays.js';

interface Paint {
  dim(text: string): string;
  bold(text: string): string;
  underline(text: string): string;
  severity(severity: Severity, text: string): string;
  bar: (kind: BarKind, text: string) => string;
}

/** Every colour goes through here; with colour off each function returns its text unchanged. */
function painter(color: boolean): Paint {
  const wrap = (open: number, close: number) => (text: string) => (color ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  const red = wrap(31, 39);
  const green = wrap(32, 39);
  const yellow = wrap(33, 39);
  const blue = wrap(34, 39);
  const magenta = wrap(35, 39);
  const cyan = wrap(36, 39);
  const dim = wrap(2, 22);
  const bars: Record<BarKind, (text: string) => string> = { apache: blue, mysql: magenta, os: dim, free: green, over: red };
  return {
    dim,
    bold: wrap(1, 22),
    underline: wrap(4, 24),
    severity: (severity, text) => (severity === 'error' ? red(text) : severity === 'warn' ? yellow(text) : cyan(text)),
    bar: (kind, text) => bars[kind](text),
  };
}

/**
 * The human report: per host, the diagnostics grouped by file (`line:col
 * severity message ID name`, the detail and the section or group on lines below), the
 * host facts used with their sources and the memory budget as bars; then a
 * summary with fixable counts, and the suggested patch at the end.
 */
export const writeStylishReport: StreamingFormatter = (input, write) => {
  const paint = painter(input.color);
  const out: string[] = [];
  const shown: Diagnostic[] = [];
  for (const unit of input.units) {
    const diagnostics = visibleDiagnostics(unit.result.diagnostics, input.quiet);
    for (const diagnostic of diagnostics) shown.push(diagnostic);
    if (input.units.length > 1) out.push(paint.bold(`Host: ${unit.label ?? 'top level of .tune-lint.yaml'}`), '');
    for (const line of diagnosticLines(diagnostics, paint)) out.push(line);
    if (!input.quiet) appendAll(out, hostLines(unit, paint, input.minUptime));
  }
  appendAll(out, summaryLines(countDiagnostics(shown), input, paint));
  const followUps = input.patch === '' ? [] : input.units.flatMap((unit) => unit.result.followUps);
  if (followUps.length > 0) {
    out.push('', paint.bold('The patch also applies what its own changes call for:'));
    for (const diagnostic of followUps) {
      out.push(
        `  ${printable(diagnostic.file.displayPath)}: ${printable(diagnostic.message)}  ${paint.dim(`${diagnostic.ruleId} ${diagnostic.ruleName}`)}`,
      );
    }
  }
  if (input.patch !== '') {
    const title = input.wrote
      ? 'Patch written:'
      : 'Suggested patch (tune-lint --fix writes it; --format diff prints it alone, for git apply):';
    const verifiedBy = input.units.flatMap((unit) => unit.result.verifiedBy ?? []);
    const checked =
      verifiedBy.length === 0 ? [] : [`Checked with the servers (--verify): ${verifiedBy.map(printable).join('; ')}: no new problem.`];
    appendAll(out, ['', paint.bold(title), ...checked]);
    appendAll(out, patchLines(input.patch));
  }
  writeLines(out, write);
};

export const formatStylish = collected(writeStylishReport);

function diagnosticLines(diagnostics: readonly Diagnostic[], paint: Paint): string[] {
  const byFile = new Map<string, Diagnostic[]>();
  for (const diagnostic of diagnostics) {
    const list = byFile.get(diagnostic.file.displayPath);
    if (list === undefined) byFile.set(diagnostic.file.displayPath, [diagnostic]);
    else list.push(diagnostic);
  }
  const out: string[] = [];
  for (const [file, list] of byFile) {
    out.push(paint.underline(printable(file)));
    const width = list.reduce((widest, d) => Math.max(widest, `${d.start.line}:${d.start.column}`.length), 0);
    for (const diagnostic of list) {
      const where = `${diagnostic.start.line}:${diagnostic.start.column}`.padEnd(width);
      const severity = paint.severity(diagnostic.severity, diagnostic.severity.padEnd(5));
      out.push(`  ${where}  ${severity}  ${diagnostic.message}  ${paint.dim(`${diagnostic.ruleId} ${diagnostic.ruleName}`)}`);
      // The detail and the section line up under the message.
      const indent = `  ${' '.repeat(width)}  ${' '.repeat(5)}  `;
      if (diagnostic.detail !== undefined) out.push(`${indent}${diagnostic.detail}`);
      if (diagnostic.context.length > 0) out.push(`${indent}${paint.dim(`in ${diagnostic.context.join(' > ')}`)}`);
    }
    out.push('');
  }
  return out;
}

function hostLines(unit: UnitOutcome, paint: Paint, minUptime: number | undefined): string[] {
  const out: string[] = [];
  const guesses = unit.result.guessedLanguages.map(({ file, how }) => `${file.displayPath}: ${how}`);

  if (guesses.length > 0) out.push(paint.bold('Read as:'), ...guesses.map((line) => `  ${printable(line)}`), '');
  const facts = [...describeHostFacts(unit.result.host), ...(unit.result.budget?.estimates ?? []), ...unit.result.assumptions];
  if (facts.length > 0) out.push(paint.bold('Host facts used:'), ...facts.map((line) => `  ${printable(line)}`), '');
  const mysql = unit.result.sizing.plan.mysql;
  const live = describeLive(unit.result.host, minUptime, mysql === undefined ? '' : reachedSoFarLine(mysql.usage, unit.result.host));
  if (live.length > 0) out.push(paint.bold('Live servers:'), ...live.map((line) => `  ${printable(line)}`), '');
  const picture = budgetLines(unit.result.budget, paint.bar);
  if (picture.length > 0) out.push(paint.bold(picture[0] as string), ...picture.slice(1), '');
  return out;
}

function summaryLines(counts: Counts, input: FormatInput, paint: Paint): string[] {
  const total = counts.error + counts.warn + counts.info;
  if (total === 0) return [paint.bold('No problems found.')];
  const parts = [
    `${counts.error} ${plural(counts.error, 'error')}`,
    `${counts.warn} ${plural(counts.warn, 'warning')}`,
    `${counts.info} info`,
  ];
  const mark =
    counts.error > 0 ? paint.severity('error', '✖') : counts.warn > 0 ? paint.severity('warn', '!') : paint.severity('info', 'i');
  const lines = [`${mark} ${paint.bold(`${total} ${plural(total, 'problem')} (${parts.join(', ')})`)}`];
  const { safe, tune } = counts.fixable;
  if (safe + tune === 0) return lines;
  lines.push(`  ${safe + tune} fixable: ${safe} safe, ${tune} tune${fixAction(input)}`);
  if (input.remaining !== undefined) {
    const left = countDiagnostics(visibleDiagnostics(input.remaining, input.quiet));
    const count = left.error + left.warn + left.info;
    lines.push(
      count === 0
        ? '  after the fixes: no problems left'
        : `  after the fixes: ${count} ${plural(count, 'problem')} left (${left.error} ${plural(left.error, 'error')}, ${left.warn} ${plural(left.warn, 'warning')}, ${left.info} info)`,
    );
  }
  return lines;
}

/**
 * The patch as read on a terminal: a config's control characters escaped, so
 * an untrusted file cannot drive the terminal; CRLF shown as line ends.
 * `--format diff` keeps every byte for git apply.
 */
function patchLines(patch: string): string[] {
  return patch
    .trimEnd()
    .split('\n')
    .map((line) => printable(line.replace(/\r$/, '')));
}

/** What happens to the fixes: the patch below, written or to write, and which kind it holds. */
function fixAction(input: FormatInput): string {
  if (input.patch === '') return '';
  const flags = input.fixType === 'all' ? '--fix' : `--fix --fix-type ${input.fixType}`;
  const kind = input.fixType === 'all' ? '' : ` (${input.fixType} fixes only)`;
  return input.wrote ? `; ${flags} wrote the patch below${kind}` : `; tune-lint ${flags} writes the patch below${kind}`;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
