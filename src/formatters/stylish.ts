import type { Diagnostic, Severity } from '../engine/types.js';
import { describeHostFacts } from '../host/format.js';
import { countDiagnostics, visibleDiagnostics } from './shared.js';
import type { Formatter } from './types.js';

interface Paint {
  dim(text: string): string;
  bold(text: string): string;
  severity(severity: Severity, text: string): string;
  underline(text: string): string;
}

function painter(color: boolean): Paint {
  const wrap = (open: number, close: number) => (text: string) => (color ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  const red = wrap(31, 39);
  const yellow = wrap(33, 39);
  const cyan = wrap(36, 39);
  return {
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    underline: wrap(4, 24),
    severity: (severity, text) => (severity === 'error' ? red(text) : severity === 'warn' ? yellow(text) : cyan(text)),
  };
}

/**
 * The human report: diagnostics grouped by file (`line:col severity message
 * ID name`, the section or group on a dim line below), a summary with fixable
 * counts, the host facts used with their sources, and the suggested patch.
 */
export const formatStylish: Formatter = (input) => {
  const paint = painter(input.color);
  const out: string[] = [];
  const all: Diagnostic[] = [];
  for (const unit of input.units) {
    if (input.units.length > 1) out.push(paint.bold(`host ${unit.label ?? '(default)'}`), '');
    const diagnostics = visibleDiagnostics(unit.result.diagnostics, input.quiet);
    all.push(...diagnostics);
    const byFile = new Map<string, Diagnostic[]>();
    for (const diagnostic of diagnostics) {
      const list = byFile.get(diagnostic.file.displayPath);
      if (list === undefined) byFile.set(diagnostic.file.displayPath, [diagnostic]);
      else list.push(diagnostic);
    }
    for (const [file, list] of byFile) {
      out.push(paint.underline(file));
      const width = Math.max(...list.map((d) => `${d.start.line}:${d.start.column}`.length));
      for (const diagnostic of list) {
        const where = `${diagnostic.start.line}:${diagnostic.start.column}`.padEnd(width);
        const severity = paint.severity(diagnostic.severity, diagnostic.severity.padEnd(5));
        out.push(`  ${where}  ${severity}  ${diagnostic.message}  ${paint.dim(`${diagnostic.ruleId} ${diagnostic.ruleName}`)}`);
        if (diagnostic.context.length > 0) out.push(`  ${' '.repeat(width)}  ${paint.dim(`in ${diagnostic.context.join(' > ')}`)}`);
      }
      out.push('');
    }
    const facts = describeHostFacts(unit.result.host);
    if (facts.length > 0 && !input.quiet) {
      out.push(paint.bold('Host facts used:'), ...facts.map((line) => `  ${line}`), '');
    }
  }
  const counts = countDiagnostics(all);
  const total = counts.error + counts.warn + counts.info;
  if (total === 0) {
    out.push(paint.bold('No problems found.'));
  } else {
    const parts = [`${counts.error} ${plural(counts.error, 'error')}`, `${counts.warn} ${plural(counts.warn, 'warning')}`, `${counts.info} info`];
    const mark = counts.error > 0 ? paint.severity('error', '✖') : counts.warn > 0 ? paint.severity('warn', '!') : paint.severity('info', 'i');
    out.push(`${mark} ${paint.bold(`${total} ${plural(total, 'problem')} (${parts.join(', ')})`)}`);
    const fixable = counts.fixable.safe + counts.fixable.tune;
    if (fixable > 0) {
      out.push(`  ${fixable} fixable: ${counts.fixable.safe} safe, ${counts.fixable.tune} tune (--fix applies them; --fix-type safe|tune|all chooses)`);
    }
  }
  if (input.patch !== '') {
    out.push('', paint.bold(input.wrote ? 'Patch written:' : 'Suggested patch (tune-lint --fix applies it, or pipe --format diff to git apply):'), input.patch.trimEnd());
  }
  return `${out.join('\n')}\n`;
};

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
