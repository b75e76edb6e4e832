import type { Range } from '../../core/types.js';

/**
 * One logical line as httpd's `ap_cfg_getline` sees it: physical lines joined
 * where a line's last byte before `\n` (after dropping one `\r`) is a
 * backslash — the backslash and the line break vanish, nothing is inserted —
 * then leading and trailing whitespace trimmed. Comment lines continue too.
 */
export interface LogicalLine {
  /** First byte of the first physical line. */
  readonly start: number;
  /** After the line break of the last physical line (or the end of the text). */
  readonly end: number;
  /** The logical text after joining and trimming: what httpd tokenises. */
  readonly text: string;
  /** Source range of `text` (empty at `start` for a blank line). */
  readonly content: Range;
  /** Number of physical lines joined (1 when there is no continuation). */
  readonly physicalLines: number;
  /** The line break that ends the last physical line. */
  readonly eol: '\n' | '\r\n' | '';
  /** Maps an offset in `text` to an offset in the source. */
  sourceOffset(textOffset: number): number;
}

/** C `isspace` in the C locale, as httpd uses it. */
export function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

const BACKSLASH = 92;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;

export type LineParts = readonly [start: number, end: number, source: string | LogicalLine, contentStart: number, contentEnd: number];

/**
 * A line as offsets into the file's text, the common case (no continuation):
 * a quarter of a million of them in a tree of 10,000 vhosts. Its text and
 * ranges are made when asked: a string and a tuple kept per line were 60 of
 * the 400 bytes a line cost. A line with continuations is kept as its
 * JoinedLine, which this view answers for. The parser's nodes extend it, so a
 * directive or a comment is its own line, one object per line rather than
 * two (a tenth of what a lint of a big tree keeps).
 */
export class LineView implements LogicalLine {
  constructor(
    readonly start: number,
    readonly end: number,
    /** The whole file's text, which the line's text is a part of; or the line joined from its pieces. */
    private readonly source: string | LogicalLine,
    /** Where the line's text starts and ends in the source. */
    private readonly contentStart: number,
    private readonly contentEnd: number,
  ) {}

  /** What a view of `line` is made of, for a node that is to be its own line. */
  static partsOf(line: LogicalLine): LineParts {
    if (line instanceof LineView) return [line.start, line.end, line.source, line.contentStart, line.contentEnd];
    const [contentStart, contentEnd] = line.content;
    return [line.start, line.end, line, contentStart, contentEnd];
  }

  get text(): string {
    return typeof this.source === 'string' ? this.source.slice(this.contentStart, this.contentEnd) : this.source.text;
  }

  get physicalLines(): number {
    return typeof this.source === 'string' ? 1 : this.source.physicalLines;
  }

  get content(): Range {
    return [this.contentStart, this.contentEnd];
  }

  /** The line break, from the last one or two characters before the end. */
  get eol(): '\n' | '\r\n' | '' {
    const source = this.source;
    if (typeof source !== 'string') return source.eol;
    if (source.charCodeAt(this.end - 1) !== 10 || this.end === this.start) return '';
    return this.end - 2 >= this.start && source.charCodeAt(this.end - 2) === 13 ? '\r\n' : '\n';
  }

  sourceOffset(textOffset: number): number {
    return typeof this.source === 'string' ? this.contentStart + textOffset : this.source.sourceOffset(textOffset);
  }
}

/** A line continued with backslashes: its text is the pieces joined. */
class JoinedLine implements LogicalLine {
  constructor(
    readonly start: number,
    readonly end: number,
    readonly text: string,
    readonly content: Range,
    readonly physicalLines: number,
    readonly eol: '\n' | '\r\n' | '',
    /** Each piece as [offset in the joined text, source start, source end]. */
    private readonly pieces: Int32Array,
    /** Characters trimmed off the front of the joined text. */
    private readonly trimmedFront: number,
  ) {}

  sourceOffset(textOffset: number): number {
    const pieces = this.pieces;
    const joinedOffset = textOffset + this.trimmedFront;
    let low = 0;
    let high = pieces.length / 3 - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((pieces[mid * 3] as number) <= joinedOffset) low = mid;
      else high = mid - 1;
    }
    return (pieces[low * 3 + 1] as number) + (joinedOffset - (pieces[low * 3] as number));
  }
}

/** Splits text into logical lines; the lines tile the text exactly. */
export function splitLogicalLines(text: string): LogicalLine[] {
  const lines: LogicalLine[] = [];
  const reader = new LogicalLines(text);
  for (let line = reader.next(); line !== undefined; line = reader.next()) lines.push(line);
  return lines;
}

/**
 * The logical lines of a text one at a time, as {@link splitLogicalLines}
 * splits them: the parser turns each into its node and lets it go, so the
 * lines of a big file are never all kept beside the nodes made of them.
 * `advance` gives a line without continuation as offsets in its fields, with
 * no object made: the parser builds its node from them (a view per line that
 * the node copied and dropped was a fifth of what parsing allocated).
 */
export class LogicalLines {
  private position = 0;
  /**
   * Every NUL's offset, found once. Looking for the next one with indexOf inside the loop made
   * Node 20's optimising compiler scan the rest of the text on every line: half a minute for 9 MB.
   */
  private readonly nuls: number[] = [];
  private nulIndex = 0;
  /** The line `advance` moved to: first byte, and after its line break. */
  start = 0;
  end = 0;
  /** Where its trimmed text starts and ends in the text, when it has no continuation. */
  contentStart = 0;
  contentEnd = 0;
  /** The line, when it is joined from continued lines; undefined for a line of one physical line. */
  joined: LogicalLine | undefined = undefined;

  constructor(readonly text: string) {
    for (let at = text.indexOf('\0'); at !== -1; at = text.indexOf('\0', at + 1)) this.nuls.push(at);
  }

  /** The next line, undefined after the last. */
  next(): LogicalLine | undefined {
    if (!this.advance()) return undefined;
    return this.joined ?? new LineView(this.start, this.end, this.text, this.contentStart, this.contentEnd);
  }

  /** Moves to the next line and describes it in the fields; false after the last. */
  // eslint-disable-next-line complexity -- ap_cfg_getline's loop (server/util.c), byte for byte: continuations, CR, NUL and the last line
  advance(): boolean {
    const { text, nuls } = this;
    const length = text.length;
    let position = this.position;
    if (position >= length) return false;
    const start = position;
    let physical = 0;
    let joinedLength = 0;
    // Pieces of a continued line as triples [offset in the joined text, source start, source end],
    // in one typed array: a line of a million continuations costs twelve bytes per piece.
    let pieces = NO_PIECES;
    let filled = 0;
    for (;;) {
      physical++;
      const newline = text.indexOf('\n', position);
      const lineEnd = newline === -1 ? length : newline;
      const hasCr = newline !== -1 && lineEnd > position && text.charCodeAt(lineEnd - 1) === 13;
      const crEnd = hasCr ? lineEnd - 1 : lineEnd;
      // httpd reads lines as C strings: a NUL ends the line's text (the bytes after it are dropped).
      while (this.nulIndex < nuls.length && (nuls[this.nulIndex] as number) < position) this.nulIndex++;
      const nextNul = this.nulIndex < nuls.length ? (nuls[this.nulIndex] as number) : -1;
      const contentEnd = nextNul !== -1 && nextNul < crEnd ? nextNul : crEnd;
      const eol = newline === -1 ? '' : hasCr ? '\r\n' : '\n';
      const continues = newline !== -1 && contentEnd > position && text.charCodeAt(contentEnd - 1) === BACKSLASH;
      const pieceEnd = continues ? contentEnd - 1 : contentEnd;
      if (physical === 1 && !continues) {
        this.position = newline === -1 ? length : newline + 1;
        this.physicalLine(start, this.position, pieceEnd);
        return true;
      }
      if (filled + 3 > pieces.length) pieces = grown(pieces);
      pieces[filled++] = joinedLength;
      pieces[filled++] = position;
      pieces[filled++] = pieceEnd;
      joinedLength += pieceEnd - position;
      position = newline === -1 ? length : newline + 1;
      if (!continues || position >= length) {
        this.position = position;
        const table = pieces.slice(0, filled);
        this.start = start;
        this.end = position;
        this.joined = joinedLine(start, position, table, joinPieces(text, table, joinedLength), physical, eol);
        return true;
      }
    }
  }

  /** A line from `start` to `end` (its line break included) whose text ends at `contentEnd`, trimmed in place. */
  private physicalLine(start: number, end: number, contentEnd: number): void {
    const text = this.text;
    let from = start;
    let to = contentEnd;
    while (from < to && isSpace(text.charCodeAt(from))) from++;
    while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
    this.start = start;
    this.end = end;
    this.contentStart = from;
    this.contentEnd = to;
    this.joined = undefined;
  }
}

const NO_PIECES = new Int32Array(0);

function grown(pieces: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(Math.max(48, pieces.length * 2));
  bigger.set(pieces);
  return bigger;
}

/**
 * The text of the pieces of a continued line, copied unit by unit: slicing a
 * string per piece, or a regex replacement, takes seconds and hundreds of MB
 * for a line of a million continuations.
 */
function joinPieces(text: string, pieces: Int32Array, length: number): string {
  const codes = new Uint16Array(length);
  let at = 0;
  for (let index = 0; index < pieces.length; index += 3) {
    const end = pieces[index + 2] as number;
    for (let source = pieces[index + 1] as number; source < end; source++) codes[at++] = text.charCodeAt(source);
  }
  // UTF-16 code units back to a string as they are, lone surrogates included.
  return Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength).toString('utf16le');
}

function joinedLine(
  start: number,
  end: number,
  pieces: Int32Array,
  joined: string,
  physical: number,
  eol: '\n' | '\r\n' | '',
): LogicalLine {
  let from = 0;
  let to = joined.length;
  while (from < to && isSpace(joined.charCodeAt(from))) from++;
  while (to > from && isSpace(joined.charCodeAt(to - 1))) to--;
  const logical = joined.slice(from, to);
  const line = new JoinedLine(start, end, logical, [start, start], physical, eol, pieces, from);
  if (logical.length === 0) return line;
  const contentStart = line.sourceOffset(0);
  const contentEnd = line.sourceOffset(logical.length - 1) + 1;
  return new JoinedLine(start, end, logical, [contentStart, contentEnd], physical, eol, pieces, from);
}

/**
 * Whether the text has a backslash at the end of a physical line (blanks and
 * carriage returns after it allowed) or right before a NUL, which ends a line
 * for httpd: what `/\\(?:[ \t]*\r*(?:\n|$)|\0)/` finds, by looking at each
 * backslash rather than at every character.
 */
export function mayContinue(text: string): boolean {
  for (let at = text.indexOf('\\'); at !== -1; at = text.indexOf('\\', at + 1)) {
    let next = at + 1;
    if (text.charCodeAt(next) === 0) return true;
    while (text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9) next++;
    while (text.charCodeAt(next) === 13) next++;
    if (next >= text.length || text.charCodeAt(next) === 10) return true;
  }
  return false;
}

/** One word of a directive line, split as `ap_getword_conf` splits it. */
export interface Word {
  /** The word's value: quotes removed, `\\` and `\<quote>` unescaped. */
  readonly value: string;
  /** Offsets into the logical line's text, quotes included. */
  readonly start: number;
  readonly end: number;
  readonly quote: '"' | "'" | undefined;
  /** An opening quote without its closing one: httpd takes the rest of the line. */
  readonly unterminated: boolean;
}

/**
 * Splits a logical line into words exactly as httpd does: a word that starts
 * with a quote runs to the matching quote (inside it `\\` and `\<quote>` are
 * escapes); any other word runs to whitespace, where only `\\` is an escape.
 * A quote in the middle of a word is literal; text right after a closing
 * quote starts a new word.
 */
export function splitWords(text: string, from = 0): Word[] {
  const words: Word[] = [];
  for (let word = nextWord(text, from); word !== undefined; word = nextWord(text, word.end)) words.push(word);
  return words;
}

/**
 * The values of the words {@link splitWords} finds, without a Word object
 * for each: the model asks for the arguments of every DocumentRoot and
 * `<Directory>` of 10,000 vhosts, and few of them are quoted.
 */
export function wordValues(text: string, from = 0): string[] {
  const values: string[] = [];
  const length = text.length;
  let at = from;
  for (;;) {
    while (at < length && isSpace(text.charCodeAt(at))) at++;
    if (at >= length) return values;
    const first = text.charCodeAt(at);
    if (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) {
      const word = nextWord(text, at) as Word;
      values.push(word.value);
      at = word.end;
      continue;
    }
    let end = at;
    while (end < length && !isSpace(text.charCodeAt(end))) end++;
    values.push(unescape(text.slice(at, end), undefined));
    at = end;
  }
}

/** The first word at or after `from` (leading whitespace skipped), as {@link splitWords} splits it. */
export function nextWord(text: string, from: number): Word | undefined {
  let at = from;
  const length = text.length;
  while (at < length && isSpace(text.charCodeAt(at))) at++;
  if (at >= length) return undefined;
  const first = text[at];
  if (first === '"' || first === "'") {
    let end = at + 1;
    while (end < length && text[end] !== first) {
      if (text.charCodeAt(end) === BACKSLASH && end + 1 < length && (text[end + 1] === first || text.charCodeAt(end + 1) === BACKSLASH)) {
        end += 2;
      } else {
        end++;
      }
    }
    const unterminated = end >= length;
    return { value: unescape(text.slice(at + 1, end), first), start: at, end: unterminated ? length : end + 1, quote: first, unterminated };
  }
  let end = at;
  while (end < length && !isSpace(text.charCodeAt(end))) end++;
  return { value: unescape(text.slice(at, end), undefined), start: at, end, quote: undefined, unterminated: false };
}

function unescape(raw: string, quote: string | undefined): string {
  if (!raw.includes('\\')) return raw;
  // Pieces between escapes, joined once: appending a character at a time leaves a chain of string halves per value.
  const pieces: string[] = [];
  let from = 0;
  for (let i = 0; i < raw.length; i++) {
    const next = raw[i + 1];
    if (raw.charCodeAt(i) === BACKSLASH && (next === '\\' || (quote !== undefined && next === quote))) {
      pieces.push(raw.slice(from, i));
      from = i + 1;
      i++;
    }
  }
  pieces.push(raw.slice(from));
  return pieces.join('');
}
