import { defineRule } from '../../src/engine/define-rule.js';
import type { SourceFile } from '../../src/core/source-file.js';
import type { TextEdit } from '../../src/engine/types.js';
import type { ApacheNode } from '../../src/languages/apache/cst.js';
import { mayContinue, type LogicalLine } from '../../src/languages/apache/lexer.js';

export default defineRule('apache', {
  meta: {
    id: 'AP1002',
    name: 'continuation-hazard',
    category: 'correctness',
    description: 'A backslash at the end of a comment swallows the next line, and a backslash followed by blanks continues nothing',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      commentSwallows: {
        message: 'this comment ends in a backslash, so httpd ignores {{lines}} after it; expected no backslash at the end of a comment',
        detail: 'httpd joins {{lines}} ("{{swallowed}}") to the comment and ignores {{them}}',
      },
      blankAfterBackslash: {
        message:
          '{{name}} gets "{{word}}" as an argument: the backslash is followed by {{blanks}}; expected the backslash as the last character of the line',
        detail: 'a backslash continues a line only as its very last character{{next}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const seen = new Set<string>();
        for (const { source, document } of apache.files) {
          // Both hazards need a backslash that may continue a line: most files have none, and are neither walked line by line
          // nor entered among those seen.
          if (!mayContinue(source.text) || seen.has(source.path)) continue;
          seen.add(source.path);
          for (const { line, comment } of logicalLines(document.nodes)) {
            if (comment) checkComment(source, line);
            else if (blankAfterLastBackslash(source.text, line)) checkBlankAfterBackslash(source, line);
          }
        }
      },
    };

    /** (a) `# note \` swallowing a directive: httpd joins continuation lines before it looks for comments. */
    function checkComment(file: SourceFile, line: LogicalLine): void {
      if (line.physicalLines < 2) return;
      const pieces = physicalPieces(file, line);
      const swallowed = pieces.slice(1).filter((piece) => piece.kind === 'code');
      const first = swallowed[0];
      if (first === undefined) return;
      const culprit = pieces[pieces.indexOf(first) - 1] as Piece;
      const last = swallowed[swallowed.length - 1] as Piece;
      const number = (piece: Piece): number => file.position(piece.start).line;
      const lines = swallowed.length === 1 ? `line ${number(first)}` : `lines ${number(first)}-${number(last)}`;
      const head = pieces[0] as Piece;
      // A piece indented deeper than the comment is the rest of a commented-out directive, not a directive of its own.
      const standalone = swallowed.every((piece) => piece.indent <= head.indent);
      const culpritEnd = lineEnd(culprit);
      ctx.report({
        at: { file, range: [culpritEnd - 1, culpritEnd] },
        messageId: 'commentSwallows',
        severity: 'warn',
        data: { lines, swallowed: shorten(first.text.trim()), them: swallowed.length === 1 ? 'it' : 'them' },
        ...(standalone
          ? {
              fix: (): TextEdit[] =>
                pieces.slice(0, -1).flatMap((piece) => {
                  if (piece.kind !== 'comment') return [];
                  const end = lineEnd(piece);
                  const blanks = (/[ \t]*\\$/.exec(piece.text.slice(0, end - piece.start))?.[0].length ?? 1) - 1;
                  return [{ file, range: [end - 1 - blanks, end] as const, text: '' }];
                }),
            }
          : {}),
      });
    }

    /** (b) `Foo \ ` : only a backslash as the very last byte continues a line; the blank makes it an argument. */
    function checkBlankAfterBackslash(file: SourceFile, line: LogicalLine): void {
      const last = lastPhysicalPiece(file, line);
      const match = backslashThenBlanks(last.text);
      if (match === undefined) return;
      const blanks = match[3];
      const blanksStart = last.end - blanks.length;
      const backslash = blanksStart - 1;
      const next = nextPhysicalLine(file, line);
      const nextKind = next === undefined ? 'blank' : classify(next.text);
      const nextNumber = next === undefined ? undefined : file.position(next.start).line;
      const name = line.text.split(/[ \t]/, 1)[0] ?? '';
      const word = `${match[2]}\\`;
      let fix: (() => TextEdit) | undefined;
      if (nextKind !== 'code') {
        // Nothing to continue into: the backslash and its blanks go, so the line means what it shows.
        const from = backslash - (match[2] === '' ? match[1].length : 0);
        fix = () => ({ file, range: [from, last.end], text: '' });
      } else if (next !== undefined && next.indent > firstPhysicalPiece(file, line).indent) {
        // The next line is indented as a continuation: dropping the blanks makes it one.
        fix = () => ({ file, range: [blanksStart, last.end], text: '' });
      }
      ctx.report({
        at: { file, range: [backslash, backslash + 1] },
        messageId: 'blankAfterBackslash',
        data: {
          blanks: describeBlanks(blanks),
          name,
          word,
          next:
            nextKind === 'code' && nextNumber !== undefined
              ? `, and line ${nextNumber} ("${shorten((next as Piece).text.trim())}") is read as a directive of its own`
              : '',
        },
        ...(fix === undefined ? {} : { fix }),
      });
    }
  },
});

interface Piece {
  /** Offset of the first byte of the physical line. */
  readonly start: number;
  /** Offset after its last byte, before `\r\n` or `\n`. */
  readonly end: number;
  readonly text: string;
  readonly kind: 'blank' | 'comment' | 'code';
  /** Leading blanks, counted in characters. */
  readonly indent: number;
}

/**
 * What `/([ \t]*)(\S*)\\([ \t]+)$/` matches (blanks, the word ending in the
 * backslash, the blanks after it), found from the end of the line: the regex
 * tries every start position and backtracks over the word from each, which
 * takes hours on a 10 MB line.
 */
function backslashThenBlanks(text: string): [string, string, string, string] | undefined {
  const isBlank = (at: number): boolean => text[at] === ' ' || text[at] === '\t';
  let blanksStart = text.length;
  while (blanksStart > 0 && isBlank(blanksStart - 1)) blanksStart--;
  const backslash = blanksStart - 1;
  if (blanksStart === text.length || backslash < 0 || text[backslash] !== '\\') return undefined;
  let wordStart = backslash;
  while (wordStart > 0 && !/\s/.test(text[wordStart - 1] as string)) wordStart--;
  let leadStart = wordStart;
  while (leadStart > 0 && isBlank(leadStart - 1)) leadStart--;
  return [text.slice(leadStart), text.slice(leadStart, wordStart), text.slice(wordStart, backslash), text.slice(blanksStart)];
}

/**
 * Whether the last physical line of a logical line ends in a backslash and
 * blanks, read in place: the test every line takes, so it slices nothing.
 */
function blankAfterLastBackslash(text: string, line: LogicalLine): boolean {
  let end = line.end - line.eol.length;
  if (end > line.start && text.charCodeAt(end - 1) === 13) end--;
  let at = end;
  while (at > line.start && (text.charCodeAt(at - 1) === 32 || text.charCodeAt(at - 1) === 9)) at--;
  return at < end && at > line.start && text.charCodeAt(at - 1) === 92;
}

/** Where httpd's line ends: at the first NUL, since it reads C strings, else at the end of the physical line. */
function lineEnd(piece: Piece): number {
  const nul = piece.text.indexOf('\0');
  return nul === -1 ? piece.end : piece.start + nul;
}

function classify(text: string): Piece['kind'] {
  const trimmed = text.trim();
  return trimmed === '' ? 'blank' : trimmed.startsWith('#') ? 'comment' : 'code';
}

function piece(file: SourceFile, start: number, end: number): Piece {
  const stop = end > start && file.text.charCodeAt(end - 1) === 13 ? end - 1 : end;
  const text = file.text.slice(start, stop);
  return { start, end: stop, text, kind: classify(text), indent: (/^[ \t]*/.exec(text)?.[0] ?? '').length };
}

function physicalPieces(file: SourceFile, line: LogicalLine): Piece[] {
  const pieces: Piece[] = [];
  let start = line.start;
  const stop = line.end - line.eol.length;
  for (;;) {
    const newline = file.text.indexOf('\n', start);
    if (newline === -1 || newline >= stop) {
      pieces.push(piece(file, start, stop));
      return pieces;
    }
    pieces.push(piece(file, start, newline));
    start = newline + 1;
  }
}

/** The first physical line of a logical line, without splitting the rest (a line may continue over millions). */
function firstPhysicalPiece(file: SourceFile, line: LogicalLine): Piece {
  const stop = line.end - line.eol.length;
  const newline = file.text.indexOf('\n', line.start);
  return piece(file, line.start, newline === -1 || newline >= stop ? stop : newline);
}

function lastPhysicalPiece(file: SourceFile, line: LogicalLine): Piece {
  const stop = line.end - line.eol.length;
  const newline = stop === line.start ? -1 : file.text.lastIndexOf('\n', stop - 1);
  return piece(file, newline < line.start ? line.start : newline + 1, stop);
}

function nextPhysicalLine(file: SourceFile, line: LogicalLine): Piece | undefined {
  if (line.end >= file.text.length) return undefined;
  const newline = file.text.indexOf('\n', line.end);
  return piece(file, line.end, newline === -1 ? file.text.length : newline);
}

/**
 * Every logical line of a document with whether httpd treats it as a comment,
 * sections opened and closed included. Collected into a list: nested
 * generators would resume once per level for every line, which is quadratic
 * under a thousand nested sections.
 */
function logicalLines(nodes: readonly ApacheNode[]): { line: LogicalLine; comment: boolean }[] {
  const out: { line: LogicalLine; comment: boolean }[] = [];
  const visit = (list: readonly ApacheNode[]): void => {
    for (const node of list) {
      if (node.kind === 'section') {
        out.push({ line: node.open, comment: false });
        visit(node.children);
        if (node.close !== undefined) out.push({ line: node.close.line, comment: false });
      } else if (node.kind !== 'blank') {
        out.push({ line: node.line, comment: node.kind === 'comment' });
      }
    }
  };
  visit(nodes);
  return out;
}

function describeBlanks(blanks: string): string {
  const tabs = blanks.split('\t').length - 1;
  const spaces = blanks.length - tabs;
  const parts = [
    spaces === 0 ? '' : spaces === 1 ? 'a space' : `${spaces} spaces`,
    tabs === 0 ? '' : tabs === 1 ? 'a tab' : `${tabs} tabs`,
  ];
  return parts.filter(Boolean).join(' and ');
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
