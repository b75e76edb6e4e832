import type { Diagnostic, Severity } from '../engine/types.js';
import { describeHostFacts, describeLive } from '../host/format.js';
import { reachedSoFarLine } from '../analysis/mysql-live.js';
import { printable } from '../util/printable.js';
import { budgetLines, type BarKind } from './budget.js';
import { countDiagnostics, visibleDiagnostics, type Counts } from './shared.js';
import { collected, type FormatInput, type StreamingFormatter, type UnitOutcome } from './types.js';
import { writeLines } from '../util/streamed-output.js';
import { appendAll } from '../util/arrays.js';
import { withoutColour, wrapLine } from '../util/wrap.js';
import { docsUrl } from '../docs-url.js';

interface Paint {
  dim(text: string): string;
  bold(text: string): string;
  underline(text: string): string;
  severity(severity: Severity, text: string): string;
  bar: (kind: BarKind, text: string) => string;
  /** A line of the patch: added green, removed red, hunks cyan, as git diff colours them. */
  patchLine(line: string): string;
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
    patchLine: (line) =>
      line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')
        ? wrap(1, 22)(line)
        : line.startsWith('+')
          ? green(line)
          : line.startsWith('-')
            ? red(line)
            : line.startsWith('@@')
              ? cyan(line)
              : line,
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
  const fit = (line: string, indent: number, keep?: number): string[] => wrapLine(line, input.width, indent, keep);
  const out: string[] = [];
  const shown: Diagnostic[] = [];
  for (const unit of input.units) {
    const diagnostics = visibleDiagnostics(unit.result.diagnostics, input.quiet);
    for (const diagnostic of diagnostics) shown.push(diagnostic);
    if (input.units.length > 1) out.push(paint.bold(`Host: ${unit.label ?? 'top level of .tune-lint.yaml'}`), '');
    appendAll(out, diagnosticLines(diagnostics, paint, fit));
    if (!input.quiet) appendAll(out, hostLines(unit, paint, input, fit));
  }
  appendAll(out, rulePageLines(shown, input, paint, fit));
  appendAll(
    out,
    summaryLines(countDiagnostics(shown), input, paint).flatMap((line) => fit(line, leadingSpaces(line) + 2)),
  );
  const withPatch = input.patch !== '' && input.noPatch !== true;
  const followUps = withPatch ? input.units.flatMap((unit) => unit.result.followUps) : [];
  if (followUps.length > 0) {
    out.push('', paint.bold('The patch also applies what its own changes call for:'));
    for (const diagnostic of followUps) {
      appendAll(
        out,
        fit(
          `  ${printable(diagnostic.file.displayPath)}: ${printable(diagnostic.message)}  ${paint.dim(`${diagnostic.ruleId} ${diagnostic.ruleName}`)}`,
          4,
        ),
      );
    }
  }
  if (withPatch) {
    const title = input.wrote
      ? 'Patch written:'
      : 'Suggested patch (tune-lint --fix writes it; --format diff prints it alone, for git apply):';
    const verifiedBy = input.units.flatMap((unit) => unit.result.verifiedBy ?? []);
    const checked =
      verifiedBy.length === 0 ? [] : [`Checked with the servers (--verify): ${verifiedBy.map(printable).join('; ')}: no new problem.`];
    appendAll(out, ['', paint.bold(title), ...checked.flatMap((line) => fit(line, 2))]);
    appendAll(
      out,
      patchLines(input.patch).map((line) => paint.patchLine(line)),
    );
  }
  writeLines(out, write);
};

export const formatStylish = collected(writeStylishReport);

type Fit = (line: string, indent: number, keep?: number) => string[];

function leadingSpaces(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * `Rule pages:` and each rule reported once, with where its page is (the
 * installed file, else the docs of this version), as ShellCheck's "For more
 * information" lists its wiki pages.
 */
function rulePageLines(shown: readonly Diagnostic[], input: FormatInput, paint: Paint, fit: Fit): string[] {
  const ids = [...new Set(shown.map((diagnostic) => diagnostic.ruleId))].sort();
  if (ids.length === 0) return [];
  const page = input.rulePage ?? ((ruleId: string) => docsUrl(input.version, ruleId));
  return [paint.bold('Rule pages:'), ...ids.flatMap((id) => fit(`  ${page(id)}`, 4)), ''];
}

function diagnosticLines(diagnostics: readonly Diagnostic[], paint: Paint, fit: Fit): string[] {
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
      // The message, its detail and the section line up, and go on under themselves.
      const indent = `  ${' '.repeat(width)}  ${' '.repeat(5)}  `;
      appendAll(
        out,
        fit(`  ${where}  ${severity}  ${diagnostic.message}  ${paint.dim(`${diagnostic.ruleId} ${diagnostic.ruleName}`)}`, indent.length),
      );
      if (diagnostic.detail !== undefined) appendAll(out, fit(`${indent}${diagnostic.detail}`, indent.length));
      if (diagnostic.context.length > 0)
        appendAll(out, fit(`${indent}${paint.dim(`in ${diagnostic.context.join(' > ')}`)}`, indent.length));
    }
    out.push('');
  }
  return out;
}

/** The sections after the findings; a long line goes on under its own start (a bar's under its figure). */
function hostLines(unit: UnitOutcome, paint: Paint, input: FormatInput, fit: Fit): string[] {
  const out: string[] = [];
  const listed = (line: string) => fit(`  ${printable(line)}`, leadingSpaces(line) + 4);
  const guesses = unit.result.guessedLanguages.map(({ file, how }) => `${file.displayPath}: ${how}`);

  if (guesses.length > 0) out.push(paint.bold('Read as:'), ...guesses.flatMap(listed), '');
  const facts = [...describeHostFacts(unit.result.host), ...(unit.result.budget?.estimates ?? []), ...unit.result.assumptions];
  if (facts.length > 0) out.push(paint.bold('Host facts used:'), ...facts.flatMap(listed), '');
  const mysql = unit.result.sizing.plan.mysql;
  const live = describeLive(unit.result.host, input.minUptime, mysql === undefined ? '' : reachedSoFarLine(mysql.usage, unit.result.host));
  if (live.length > 0) out.push(paint.bold('Live servers:'), ...live.flatMap(listed), '');
  const picture = budgetLines(unit.result.budget, paint.bar, input.width);
  if (picture.length > 0)
    out.push(...fit(paint.bold(picture[0] as string), 2), ...picture.slice(1).flatMap((line) => fitBar(line, fit)), '');
  return out;
}

/** A bar line goes on under the words after its figure (`   5 GiB  `), never inside the bar. */
function fitBar(line: string, fit: Fit): string[] {
  const plain = withoutColour(line);
  const figure = /\d(\.\d+)? (B|KiB|MiB|GiB|TiB) {2}/.exec(plain);
  if (figure === null) return fit(line, leadingSpaces(plain) + 2);
  const words = figure.index + figure[0].length;
  return fit(line, words, words);
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
  const where = input.noPatch === true ? 'the patch (--format diff prints it)' : 'the patch below';
  return input.wrote ? `; ${flags} wrote ${where}${kind}` : `; tune-lint ${flags} writes ${where}${kind}`;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
