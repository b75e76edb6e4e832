import type { SourceFile } from '../../core/source-file.js';
import type { TextEdit } from '../../core/types.js';
import type { LogicalLine } from './lexer.js';
import type { ApacheDirectiveUse, ApacheSectionUse } from './model.js';

/**
 * Text edits on Apache files that keep the file's dialect. Each returns null
 * when an edit would not be safe: the line uses `${VAR}` (the written text is
 * not the value), or the part to change spans a continuation.
 */

export function replaceApacheArg(use: ApacheDirectiveUse, index: number, value: string): TextEdit | null {
  const arg = use.node.args[index];
  if (arg === undefined || use.variables.length > 0) return null;
  const written = use.file.slice(arg.range);
  if (written.includes('\n')) return null;
  const text = arg.quote === undefined ? quoteIfNeeded(value) : `${arg.quote}${value}${arg.unterminated ? '' : arg.quote}`;
  return { file: use.file, range: arg.range, text };
}

/**
 * Renames a directive, following the case style of the name as written
 * (`maxclients` -> `maxrequestworkers`). When the name is padded to align
 * values in a column, the padding is adjusted so the value stays in place.
 */
export function renameApacheDirective(use: ApacheDirectiveUse, canonical: string): TextEdit | null {
  const name = inCaseOf(use.node.name, canonical);
  const [start, end] = use.node.nameRange;
  if (use.file.slice(use.node.nameRange).includes('\n')) return null;
  const first = use.node.args[0];
  const gap = first === undefined ? '' : use.file.text.slice(end, first.range[0]);
  if (first === undefined || !/^ {2,}$/.test(gap)) return { file: use.file, range: [start, end], text: name };
  const column = first.range[0] - start;
  return { file: use.file, range: [start, first.range[0]], text: `${name}${' '.repeat(Math.max(1, column - name.length))}` };
}

/** Removes the directive's whole logical line, continuation lines included. */
export function removeApacheLine(use: ApacheDirectiveUse): TextEdit {
  return { file: use.file, range: [use.node.line.start, use.node.line.end], text: '' };
}

/** Inserts `Name args` on its own line after a directive, with its indentation and line ending. */
export function insertApacheLineAfter(use: ApacheDirectiveUse, line: string): TextEdit {
  return insertAfterLine(use.file, use.node.line, indentationOf(use.file, use.node.line), line);
}

/**
 * Inserts a line as the last thing inside a section, before its close tag,
 * indented like the section's other lines (or one step deeper than the
 * section when it is empty). Null when the section has no close tag, or a
 * section inside it has none: the reader closed both at the one tag, and a
 * line before it would land in the inner one, where it does not take effect.
 */
export function insertApacheLineInto(section: ApacheSectionUse, line: string): TextEdit | null {
  const close = section.node.close;
  if (close === undefined || section.node.children.some((child) => child.kind === 'section' && child.close === undefined)) return null;
  const lastLine = [...section.node.children].reverse().find((child) => child.kind === 'directive' || child.kind === 'section');
  const sectionIndent = indentationOf(section.file, section.node.open);
  const indent =
    lastLine === undefined
      ? `${sectionIndent}${guessIndentUnit(section.file)}`
      : indentationOf(section.file, lastLine.kind === 'section' ? lastLine.open : lastLine.line);
  const eol = lineEnding(section.file, section.node.open);
  return { file: section.file, range: [close.range[0], close.range[0]], text: `${indent}${line}${eol}` };
}

/**
 * A new line after `after`. httpd joins a line that ends with a backslash to
 * the next: when the file's last line does (a continuation into nothing), an
 * empty line ends it first, and when the file ends in a backslash without a
 * line break (a literal one), a blank after it keeps it literal; otherwise
 * the new line would be read as part of the old one.
 */
function insertAfterLine(file: SourceFile, after: LogicalLine, indent: string, line: string): TextEdit {
  const endsInBackslash = (at: number) => file.text.charCodeAt(at - 1) === BACKSLASH;
  if (after.eol === '') {
    const keepLiteral = endsInBackslash(after.end) ? ' ' : '';
    return { file, range: [after.end, after.end], text: `${keepLiteral}${file.eol}${indent}${line}` };
  }
  const endContinuation = endsInBackslash(after.end - after.eol.length) ? after.eol : '';
  return { file, range: [after.end, after.end], text: `${endContinuation}${indent}${line}${after.eol}` };
}

const BACKSLASH = 92;

function lineEnding(file: SourceFile, line: LogicalLine): string {
  return line.eol === '' ? file.eol : line.eol;
}

export function indentationOf(file: SourceFile, line: LogicalLine): string {
  const text = file.text;
  let end = line.start;
  while (end < line.end && (text[end] === ' ' || text[end] === '\t')) end++;
  return text.slice(line.start, end);
}

export function guessIndentUnit(file: SourceFile): string {
  const match = /\n([ \t]+)\S/.exec(file.text);
  if (match === null) return '    ';
  const indent = match[1] as string;
  return indent.startsWith('\t') ? '\t' : indent.length >= 4 ? '    ' : indent;
}

/** Follows the written name's case: all lower, all upper, or the canonical mixed case. */
export function inCaseOf(written: string, canonical: string): string {
  if (written === written.toLowerCase() && written !== written.toUpperCase()) return canonical.toLowerCase();
  if (written === written.toUpperCase() && written !== written.toLowerCase()) return canonical.toUpperCase();
  return canonical;
}

function quoteIfNeeded(value: string): string {
  return /[\s"']/.test(value) || value === '' ? `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : value;
}
