import type { Range } from '../../core/types.js';

/**
 * php-fpm reads its configuration with PHP's INI scanner (zend_ini_scanner,
 * normal mode) and hands each `key = value` to fpm_conf.c: `[name]` opens a
 * section (`[global]`, or a pool), `;` starts a comment anywhere outside
 * quotes, a value is bare (trimmed), "double-quoted" (with `${VAR}` from the
 * environment) or 'single-quoted' (raw). A line without `=` is an error that
 * stops php-fpm ("value is NULL for a ZEND_INI_PARSER_ENTRY"), `#` lines
 * included since PHP 7. The CST keeps every byte: lines tile the text.
 */
export type PhpFpmLine = SectionLine | EntryLine | BlankLine | CommentLine | BrokenLine;

interface LineBase {
  /** The whole line with its ending. */
  readonly range: Range;
  /** 1-based, as php-fpm's messages count lines. */
  readonly number: number;
}

interface SectionLine extends LineBase {
  readonly kind: 'section';
  readonly name: string;
  readonly nameRange: Range;
}

export interface EntryLine extends LineBase {
  readonly kind: 'entry';
  /**
   * As PHP's INI scanner hands it to php-fpm: `pm.max_children`,
   * `php_admin_value[memory_limit]` (blanks before the `[` and at the start
   * of the offset dropped, as the scanner drops them).
   */
  readonly key: string;
  readonly keyRange: Range;
  /** After quote removal; `${VAR}` left as written (the model expands it). */
  readonly value: string;
  /** The value as written, quotes included; empty at the `=` when there is none. */
  readonly valueRange: Range;
  readonly quote: '"' | "'" | undefined;
}

interface BlankLine extends LineBase {
  readonly kind: 'blank';
}

interface CommentLine extends LineBase {
  readonly kind: 'comment';
}

/** A line php-fpm refuses, which stops it: no `=`, or a `#` comment. */
interface BrokenLine extends LineBase {
  readonly kind: 'broken';
  readonly reason: string;
}

const SECTION = /^[ \t]*\[([^\]\r\n]*)\][ \t]*(?:;.*)?$/;
/**
 * A key as zend_ini_scanner reads one: a label of any characters but
 * `= ; & | ^ $ ~ ( ) { } ! " [`, a tab or a line break (so `pm.max children`,
 * `#pm.max_children` and `listen.bac\u212Alog` are keys, each an entry php-fpm
 * refuses by name), its trailing blanks dropped, then an optional `[offset]`
 * whose leading blanks are dropped, then `=`.
 */
const KEY = /^[ \t]*([^=\n\r\t;&|^$~(){}!"[\0]+?) *(?:\[[ \t]*([^\]\r\n]*)\])?[ \t]*=/d;

export function parsePhpFpm(text: string): PhpFpmLine[] {
  const lines: PhpFpmLine[] = [];
  let start = 0;
  let number = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline + 1;
    const body = text.slice(start, end).replace(/\r?\n$/, '');
    number++;
    lines.push(parseLine(body, start, [start, end], number));
    start = end;
  }
  return lines;
}

function parseLine(body: string, offset: number, range: Range, number: number): PhpFpmLine {
  const trimmed = body.trim();
  if (trimmed === '') return { kind: 'blank', range, number };
  if (trimmed.startsWith(';')) return { kind: 'comment', range, number };
  const section = SECTION.exec(body);
  if (section !== null) {
    const nameStart = offset + body.indexOf('[') + 1;
    const name = section[1] as string;
    return { kind: 'section', range, number, name, nameRange: [nameStart, nameStart + name.length] };
  }
  const key = KEY.exec(body);
  if (key === null) {
    const reason = !body.includes('=')
      ? trimmed.startsWith('#')
        ? 'a # comment, which PHP reads as an entry without a value since PHP 7 (";" starts a comment)'
        : 'no "=" on the line'
      : 'its key holds a character PHP\'s INI syntax gives a meaning to (one of & | ^ $ ~ ( ) { } ! " or a tab)';
    return { kind: 'broken', range, number, reason };
  }
  const label = key[1] as string;
  const arrayKey = key[2];
  const indices = key.indices as RegExpIndicesArray;
  const [labelStart, labelEnd] = indices[1] as [number, number];
  const keyEnd = arrayKey === undefined ? labelEnd : (indices[2] as [number, number])[1] + 1;
  const afterEquals = key[0].length;
  const value = readValue(body, afterEquals);
  return {
    kind: 'entry',
    range,
    number,
    key: arrayKey === undefined ? label : `${label}[${arrayKey}]`,
    keyRange: [offset + labelStart, offset + keyEnd],
    value: value.text,
    valueRange: [offset + value.start, offset + value.end],
    quote: value.quote,
  };
}

/** The value after `=`: a quoted string up to its closing quote, else the text before a `;` comment, trimmed. */
function readValue(body: string, from: number): { text: string; start: number; end: number; quote: '"' | "'" | undefined } {
  let start = from;
  while (start < body.length && (body[start] === ' ' || body[start] === '\t')) start++;
  const quote = body[start];
  if (quote === '"' || quote === "'") {
    const close = body.indexOf(quote, start + 1);
    if (close > start) return { text: body.slice(start + 1, close), start, end: close + 1, quote };
  }
  const comment = body.indexOf(';', start);
  let end = comment < 0 ? body.length : comment;
  while (end > start && (body[end - 1] === ' ' || body[end - 1] === '\t')) end--;
  return { text: body.slice(start, end), start, end, quote: undefined };
}
