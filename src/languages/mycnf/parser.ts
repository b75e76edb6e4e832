import type { TextEncoding } from '../../core/source-file.js';
import type { Range } from '../../core/types.js';

/**
 * The option-file reader of MySQL and MariaDB (`search_default_file_with_ext`
 * in mysys/my_default.c) reads a file with `fgets` into a 4096-byte buffer of
 * which it passes 4095 bytes, so one read returns at most 4094 bytes. A longer
 * physical line is cut into several reads and each read is interpreted as a
 * line of its own; the server's line numbers count reads. The CST follows the
 * server: one `MycnfLine` per read, so that what a line means here is what it
 * means to the server.
 */
export const READ_LIMIT_BYTES = 4094;

export type Eol = '\n' | '\r\n' | '';

interface LineBase {
  /** The whole read, including its line ending. Ranges of all lines tile the text. */
  readonly range: Range;
  readonly eol: Eol;
  /** 1-based, counting reads as the server does (equal to the physical line unless a line was longer than READ_LIMIT_BYTES). */
  readonly number: number;
  /** The physical line went on beyond READ_LIMIT_BYTES; the rest follows as the next line(s). */
  readonly cutAtReadLimit: boolean;
  /** This line is the rest of a physical line the server cut at READ_LIMIT_BYTES. */
  readonly continuesCutLine: boolean;
  /** A NUL byte ends the line for the server: everything after it on this read is ignored. */
  readonly nulAt: number | undefined;
}

export interface MycnfGroupLine extends LineBase {
  readonly kind: 'group';
  /** As the reader sees it: text between `[` and the first `]`, blanks before `]` trimmed, blanks after `[` kept. */
  readonly name: string;
  readonly nameRange: Range;
  /** False for `[group` without `]`: the reader stops there with "Wrong group definition". */
  readonly closed: boolean;
}

export interface MycnfOptionLine extends LineBase {
  readonly kind: 'option';
  /** The name as the server receives it after `--` (text before the first `=`, trailing blanks trimmed). */
  readonly rawName: string;
  readonly nameRange: Range;
  readonly hasEquals: boolean;
  /** After quote removal and escape processing; undefined without `=`. */
  readonly value: string | undefined;
  /** The value as written (quotes included, blanks around it excluded); undefined without `=`. */
  readonly valueRange: Range | undefined;
  readonly quote: '"' | "'" | undefined;
  /** From an unquoted `#` to the end of the line (excluding the line ending). */
  readonly commentRange: Range | undefined;
  /** Name through value: what a diagnostic should underline. */
  readonly contentRange: Range;
  /** The exact bytes of the argument the reader hands the server (`--name` or `--name=value`), one char per byte, as my_print_defaults prints it. */
  readonly argument: string;
  /**
   * The reader trimmed a blank byte off the end of the name or value that was the last byte of a
   * multi-byte UTF-8 character (0xA0 counts as a blank: `à` is C3 A0), leaving a broken character.
   */
  readonly splitsCharacter: boolean;
}

export interface MycnfIncludeLine extends LineBase {
  readonly kind: 'include' | 'includedir';
  /** Empty when the reader finds no path: "Wrong '!include' directive", which stops the file. */
  readonly path: string;
  readonly pathRange: Range;
}

export interface MycnfCommentLine extends LineBase {
  readonly kind: 'comment';
  readonly marker: '#' | ';';
}

export interface MycnfBlankLine extends LineBase {
  readonly kind: 'blank';
}

/**
 * A line the reader skips without a word although it is not blank: a `!word`
 * that is not `!include`/`!includedir` (`!INCLUDE` included, the keyword is
 * case-sensitive), or a line whose only content follows a NUL byte.
 */
export interface MycnfOtherLine extends LineBase {
  readonly kind: 'other';
  readonly reason: 'unknown-directive' | 'after-nul';
}

export type MycnfLine = MycnfGroupLine | MycnfOptionLine | MycnfIncludeLine | MycnfCommentLine | MycnfBlankLine | MycnfOtherLine;

export interface MycnfDocument {
  readonly text: string;
  /** The text starts with a UTF-8 byte order mark, which the server reads as three ordinary bytes of line 1. */
  readonly bom: boolean;
  readonly encoding: TextEncoding;
  readonly lines: readonly MycnfLine[];
  toString(): string;
}

export interface ParseMyCnfOptions {
  /** How the text was decoded; the reader works on bytes, so lengths and blanks are counted in this encoding. */
  readonly encoding?: TextEncoding;
}

/** Parses an option file the way the server's reader sees it. Never throws; `toString()` returns the input. */
export function parseMyCnf(text: string, options: ParseMyCnfOptions = {}): MycnfDocument {
  const encoding = options.encoding ?? 'utf8';
  const lines: MycnfLine[] = [];
  let number = 0;
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline + 1;
    for (const read of splitReads(text, start, end, encoding)) lines.push(interpretRead(read, ++number, encoding, text));
    start = end;
  }
  const bom = encoding === 'utf8' ? text.startsWith('\uFEFF') : text.startsWith('\xEF\xBB\xBF');
  return {
    text,
    bom,
    encoding,
    lines,
    toString() {
      return text;
    },
  };
}

interface Read {
  readonly start: number;
  readonly end: number;
  /** The bytes of the read, one char per byte (latin1), as the C code sees them. */
  readonly bytes: string;
  /** Char offset (from `start`) of each byte offset, plus one entry for the end. Undefined when bytes and chars coincide. */
  readonly charAt: Int32Array | undefined;
  readonly cutAtReadLimit: boolean;
  readonly continuesCutLine: boolean;
}

const NON_ASCII = /[^\x00-\x7f]/;

function splitReads(text: string, start: number, end: number, encoding: TextEncoding): Read[] {
  const line = text.slice(start, end);
  const simple = encoding === 'latin1' || !NON_ASCII.test(line);
  if (simple) {
    if (line.length <= READ_LIMIT_BYTES)
      return [{ start, end, bytes: line, charAt: undefined, cutAtReadLimit: false, continuesCutLine: false }];
    const reads: Read[] = [];
    for (let at = 0; at < line.length; at += READ_LIMIT_BYTES) {
      const stop = Math.min(at + READ_LIMIT_BYTES, line.length);
      reads.push({
        start: start + at,
        end: start + stop,
        bytes: line.slice(at, stop),
        charAt: undefined,
        cutAtReadLimit: stop < line.length,
        continuesCutLine: at > 0,
      });
    }
    return reads;
  }
  const encoded = Buffer.from(line, 'utf8');
  const charOfByte = new Int32Array(encoded.length + 1);
  let byte = 0;
  for (let index = 0; index < line.length; index++) {
    const code = line.codePointAt(index) as number;
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    for (let k = 0; k < width; k++) charOfByte[byte + k] = index;
    byte += width;
    if (code >= 0x10000) index++;
  }
  charOfByte[encoded.length] = line.length;
  const reads: Read[] = [];
  for (let at = 0; at < encoded.length; at += READ_LIMIT_BYTES) {
    const stop = Math.min(at + READ_LIMIT_BYTES, encoded.length);
    // A cut inside a multi-byte character belongs to the later read in the CST; the bytes stay exact.
    const charStart = charOfByte[at] as number;
    const charStop = stop === encoded.length ? line.length : (charOfByte[stop] as number);
    const local = new Int32Array(stop - at + 1);
    for (let k = 0; k <= stop - at; k++) local[k] = (charOfByte[at + k] as number) - charStart;
    local[stop - at] = charStop - charStart;
    reads.push({
      start: start + charStart,
      end: start + charStop,
      bytes: encoded.toString('latin1', at, stop),
      charAt: local,
      cutAtReadLimit: stop < encoded.length,
      continuesCutLine: at > 0,
    });
  }
  return reads;
}

/** `my_isspace` with the latin1 ctype table the reader uses: TAB..CR, space and NBSP (0xA0). */
function isBlank(code: number | undefined): boolean {
  return code !== undefined && ((code >= 9 && code <= 13) || code === 32 || code === 0xa0);
}

/**
 * The lines keep offsets and flags, not ranges and strings they can make when
 * asked: a file of a million option lines is a million of them, and each
 * Range tuple, Buffer or copied string was dozens of bytes more (about 1 KB a
 * line with the option it sets; issue of memory per input byte). Offsets
 * inside a line are kept relative to its start, two to a small integer: a
 * read is at most READ_LIMIT_BYTES long, so each fits in OFFSET_BITS.
 */
const OFFSET_BITS = 13;
const OFFSET_MASK = (1 << OFFSET_BITS) - 1;
/** Flags every line has (line break, cut reads) below, an option line's own above. */
const LINE_FLAGS = 0x0f;
const EOL_LF = 1;
const EOL_CRLF = 2;
const CUT_AT_READ_LIMIT = 4;
const CONTINUES_CUT_LINE = 8;
const HAS_EQUALS = 16;
const SPLITS_CHARACTER = 32;
const QUOTE_DOUBLE = 64;
const QUOTE_SINGLE = 128;

/**
 * Two offsets inside a line starting at `start` (-1 for none) as one small
 * integer: each stored relative and plus one, so 0 is none.
 */
function packPair(start: number, first: number, second: number): number {
  return packOffset(start, first) | (packOffset(start, second) << OFFSET_BITS);
}

function packOffset(start: number, offset: number): number {
  if (offset < 0) return 0;
  const relative = offset - start + 1;
  // Reads are cut at READ_LIMIT_BYTES, so this holds for every line the reader makes.
  if (relative < 1 || relative > OFFSET_MASK) throw new Error(`internal: offset ${offset} is not within the read at ${start}`);
  return relative;
}

/** The first (`shift` 0) or second (`shift` OFFSET_BITS) offset of a pair, -1 for none. */
function unpackOffset(start: number, packed: number, shift: number): number {
  const relative = (packed >>> shift) & OFFSET_MASK;
  return relative === 0 ? -1 : start + relative - 1;
}

abstract class Line implements LineBase {
  /** First char of the read. */
  readonly start: number;
  readonly number: number;
  /** The length, the NUL (as the second of a pair) and the line's flags above them. */
  private readonly packed: number;

  constructor(start: number, end: number, number: number, bits: number, nul: number) {
    this.start = start;
    this.number = number;
    if (end - start > OFFSET_MASK) throw new Error(`internal: a read of ${end - start} characters at ${start}`);
    this.packed = (end - start) | (packOffset(start, nul) << OFFSET_BITS) | ((bits & LINE_FLAGS) << (2 * OFFSET_BITS));
  }

  /** After its line ending. */
  get end(): number {
    return this.start + (this.packed & OFFSET_MASK);
  }

  protected get bits(): number {
    return this.packed >>> (2 * OFFSET_BITS);
  }

  get range(): Range {
    return [this.start, this.end];
  }

  get eol(): Eol {
    return this.bits & EOL_CRLF ? '\r\n' : this.bits & EOL_LF ? '\n' : '';
  }

  get cutAtReadLimit(): boolean {
    return (this.bits & CUT_AT_READ_LIMIT) !== 0;
  }

  get continuesCutLine(): boolean {
    return (this.bits & CONTINUES_CUT_LINE) !== 0;
  }

  get nulAt(): number | undefined {
    const nul = unpackOffset(this.start, this.packed, OFFSET_BITS);
    return nul < 0 ? undefined : nul;
  }
}

type LineArgs = ConstructorParameters<typeof BlankLine>;

class BlankLine extends Line implements MycnfBlankLine {
  get kind(): 'blank' {
    return 'blank';
  }
}

class CommentLine extends Line implements MycnfCommentLine {
  constructor(
    base: LineArgs,
    readonly marker: '#' | ';',
  ) {
    super(...base);
  }

  get kind(): 'comment' {
    return 'comment';
  }
}

class OtherLine extends Line implements MycnfOtherLine {
  constructor(
    base: LineArgs,
    readonly reason: 'unknown-directive' | 'after-nul',
  ) {
    super(...base);
  }

  get kind(): 'other' {
    return 'other';
  }
}

class GroupLine extends Line implements MycnfGroupLine {
  constructor(
    base: LineArgs,
    readonly name: string,
    private readonly nameStart: number,
    private readonly nameEnd: number,
    readonly closed: boolean,
  ) {
    super(...base);
  }

  get kind(): 'group' {
    return 'group';
  }

  get nameRange(): Range {
    return [this.nameStart, this.nameEnd];
  }
}

class IncludeLine extends Line implements MycnfIncludeLine {
  constructor(
    base: LineArgs,
    readonly kind: 'include' | 'includedir',
    readonly path: string,
    private readonly pathStart: number,
    private readonly pathEnd: number,
  ) {
    super(...base);
  }

  get pathRange(): Range {
    return [this.pathStart, this.pathEnd];
  }
}

/** Offsets of an option line's parts; -1 for a part it does not have. */
interface OptionParts {
  readonly nameStart: number;
  readonly nameEnd: number;
  readonly valueStart: number;
  readonly valueEnd: number;
  readonly commentStart: number;
  readonly commentEnd: number;
  /** Name through value: it starts where the name does. */
  readonly contentEnd: number;
}

/**
 * The name, value and argument as read, for a line whose text is not simply
 * its bytes (UTF-8 beyond ASCII, escapes, a name the reader takes oddly).
 * A plain line keeps none: they are slices of the file's text.
 */
interface OptionStrings {
  readonly rawName: string;
  readonly value: string | undefined;
  readonly argument: string;
}

class OptionLine extends Line implements MycnfOptionLine {
  /** The name's start and end, and the option's own flags (HAS_EQUALS and up) above them. */
  private readonly names: number;
  /** The value's raw start and end (quotes included); none without `=`. */
  private readonly values: number;
  private readonly comment: number;
  /** Where name through value ends, as a pair with nothing second. */
  private readonly content: number;

  constructor(
    base: LineArgs,
    /** The file's text, for a plain line; else what the reader made of it. */
    private readonly strings: string | OptionStrings,
    parts: OptionParts,
  ) {
    super(...base);
    const start = base[0];
    this.names = packPair(start, parts.nameStart, parts.nameEnd) | ((base[3] & ~LINE_FLAGS) << (2 * OFFSET_BITS - 4));
    this.values = packPair(start, parts.valueStart, parts.valueEnd);
    this.comment = packPair(start, parts.commentStart, parts.commentEnd);
    this.content = packPair(start, parts.contentEnd, -1);
  }

  get kind(): 'option' {
    return 'option';
  }

  private get nameStart(): number {
    return unpackOffset(this.start, this.names, 0);
  }

  private get nameEnd(): number {
    return unpackOffset(this.start, this.names, OFFSET_BITS);
  }

  private get valueStart(): number {
    return unpackOffset(this.start, this.values, 0);
  }

  private get valueEnd(): number {
    return unpackOffset(this.start, this.values, OFFSET_BITS);
  }

  /** The option's own flags, where Line keeps its flags. */
  private get optionBits(): number {
    return (this.names >>> (2 * OFFSET_BITS)) << 4;
  }

  get rawName(): string {
    return typeof this.strings === 'string' ? this.strings.slice(this.nameStart, this.nameEnd) : this.strings.rawName;
  }

  get value(): string | undefined {
    if (typeof this.strings !== 'string') return this.strings.value;
    const valueStart = this.valueStart;
    if (valueStart < 0) return undefined;
    const quoted = this.optionBits & (QUOTE_DOUBLE | QUOTE_SINGLE) ? 1 : 0;
    return this.strings.slice(valueStart + quoted, this.valueEnd - quoted);
  }

  get argument(): string {
    if (typeof this.strings !== 'string') return this.strings.argument;
    const value = this.value;
    return value === undefined ? `--${this.rawName}` : `--${this.rawName}=${value}`;
  }

  get nameRange(): Range {
    return [this.nameStart, this.nameEnd];
  }

  get hasEquals(): boolean {
    return (this.optionBits & HAS_EQUALS) !== 0;
  }

  get valueRange(): Range | undefined {
    const valueStart = this.valueStart;
    return valueStart < 0 ? undefined : [valueStart, this.valueEnd];
  }

  get quote(): '"' | "'" | undefined {
    const bits = this.optionBits;
    return bits & QUOTE_DOUBLE ? '"' : bits & QUOTE_SINGLE ? "'" : undefined;
  }

  get commentRange(): Range | undefined {
    const commentStart = unpackOffset(this.start, this.comment, 0);
    return commentStart < 0 ? undefined : [commentStart, unpackOffset(this.start, this.comment, OFFSET_BITS)];
  }

  get contentRange(): Range {
    return [this.nameStart, unpackOffset(this.start, this.content, 0)];
  }

  get splitsCharacter(): boolean {
    return (this.optionBits & SPLITS_CHARACTER) !== 0;
  }
}

/** One read as the C code sees it, with the mapping of its byte offsets back to the text. */
class ReadView {
  readonly s: string;
  /** Where the C string ends: the first NUL, else the end of the read. */
  readonly end: number;
  readonly eolLength: number;
  /** What every line of this read is made with: start, end, number, flags, NUL. */
  readonly base: LineArgs;

  constructor(
    private readonly read: Read,
    number: number,
    private readonly encoding: TextEncoding,
    /** The file's text. */
    readonly source: string,
  ) {
    const s = read.bytes;
    const eolBits = s.endsWith('\r\n') ? EOL_CRLF : s.endsWith('\n') ? EOL_LF : 0;
    const nul = s.indexOf('\0');
    this.s = s;
    this.end = nul === -1 ? s.length : nul;
    this.eolLength = eolBits === EOL_CRLF ? 2 : eolBits === EOL_LF ? 1 : 0;
    const bits = eolBits | (read.cutAtReadLimit ? CUT_AT_READ_LIMIT : 0) | (read.continuesCutLine ? CONTINUES_CUT_LINE : 0);
    this.base = [read.start, read.end, number, bits, nul === -1 ? -1 : this.at(nul)];
  }

  /** True when the read's bytes are its chars, one for one (ASCII, or a latin1 file): slices of the source are its strings. */
  get plain(): boolean {
    return this.read.charAt === undefined;
  }

  /** The line's flags with more set. */
  withBits(bits: number): LineArgs {
    const [start, end, number, base, nul] = this.base;
    return [start, end, number, base | bits, nul];
  }

  at(byteOffset: number): number {
    return this.read.start + (this.read.charAt === undefined ? byteOffset : (this.read.charAt[byteOffset] as number));
  }

  /** The text offset of a byte offset where a range ends: inside a multi-byte character, the end of that character. */
  endAt(to: number): number {
    let end = to;
    if (this.read.charAt !== undefined) while (end < this.s.length && (this.s.charCodeAt(end) & 0xc0) === 0x80) end++;
    return this.at(end);
  }

  decode(from: number, to: number): string {
    return decodeBytes(this.s.slice(from, to), this.encoding);
  }

  decodeText(bytes: string): string {
    return decodeBytes(bytes, this.encoding);
  }

  /** True when a UTF-8 character continues past this byte offset, so cutting there breaks it. */
  cutsCharacter(offset: number): boolean {
    return this.read.charAt !== undefined && offset < this.s.length && (this.s.charCodeAt(offset) & 0xc0) === 0x80;
  }
}

function interpretRead(read: Read, number: number, encoding: TextEncoding, source: string): MycnfLine {
  const view = new ReadView(read, number, encoding, source);
  const { s, end, base } = view;
  let i = 0;
  while (i < end && isBlank(s.charCodeAt(i))) i++;
  if (i === end) {
    const contentEnd = s.length - view.eolLength;
    let j = 0;
    while (j < contentEnd && isBlank(s.charCodeAt(j))) j++;
    return j === contentEnd ? new BlankLine(...base) : new OtherLine(base, 'after-nul');
  }
  const first = s[i];
  if (first === '#' || first === ';') return new CommentLine(base, first);
  if (first === '!') return interpretDirective(view, i);
  if (first === '[') return interpretGroup(view, i);
  return interpretOption(view, i);
}

function interpretGroup(view: ReadView, bracket: number): MycnfGroupLine {
  const { s, end, base } = view;
  const close = s.indexOf(']', bracket + 1);
  const closed = close !== -1 && close < end;
  let stop = closed ? close : end;
  while (stop > bracket + 1 && isBlank(s.charCodeAt(stop - 1))) stop--;
  return new GroupLine(base, view.decode(bracket + 1, stop), view.at(bracket + 1), view.endAt(stop), closed);
}

function interpretDirective(view: ReadView, bang: number): MycnfLine {
  const { s, end, base } = view;
  let word = bang + 1;
  while (word < end && isBlank(s.charCodeAt(word))) word++;
  const keyword = (['includedir', 'include'] as const).find(
    (candidate) => s.startsWith(candidate, word) && word + candidate.length < end && isBlank(s.charCodeAt(word + candidate.length)),
  );
  if (keyword === undefined) return new OtherLine(base, 'unknown-directive');
  let from = word + keyword.length;
  while (from < end && isBlank(s.charCodeAt(from))) from++;
  // get_argument() assumes the last byte is the newline fgets kept and cuts it unconditionally,
  // then trims blanks before it: a path on a last line without newline loses its last character.
  let to = end - 1;
  while (to > 0 && isBlank(s.charCodeAt(to - 1))) to--;
  if (to <= from) return new IncludeLine(base, keyword, '', view.at(from), view.endAt(from));
  return new IncludeLine(base, keyword, view.decode(from, to), view.at(from), view.endAt(to));
}

// eslint-disable-next-line complexity -- the option branch of search_default_file_with_ext: name, '=', quotes, escapes and comment as the C code takes them
function interpretOption(view: ReadView, start: number): MycnfOptionLine {
  const { s, end } = view;
  const commentAt = unquotedHash(s, start, end);
  const equals = s.indexOf('=', start);
  const hasEquals = equals !== -1 && equals < commentAt;
  const contentEnd = s.length - view.eolLength;
  const comment =
    commentAt < end ? { commentStart: view.at(commentAt), commentEnd: view.endAt(Math.max(commentAt, contentEnd)) } : NO_COMMENT;
  if (!hasEquals) {
    let nameEnd = commentAt;
    while (nameEnd > start && isBlank(s.charCodeAt(nameEnd - 1))) nameEnd--;
    const nameStart = view.at(start);
    const nameStop = view.endAt(nameEnd);
    const strings = view.plain
      ? view.source
      : { rawName: view.decode(start, nameEnd), value: undefined, argument: `--${s.slice(start, nameEnd)}` };
    return new OptionLine(view.withBits(view.cutsCharacter(nameEnd) ? SPLITS_CHARACTER : 0), strings, {
      nameStart,
      nameEnd: nameStop,
      valueStart: -1,
      valueEnd: -1,
      ...comment,
      contentEnd: nameStop,
    });
  }
  let nameEnd = equals;
  while (nameEnd > 0 && isBlank(s.charCodeAt(nameEnd - 1))) nameEnd--;
  // An empty name after leading blanks makes the reader trim into the indentation and copy
  // with a negative length, which strnmov turns into "the rest of the line" (`   =x` -> `--=x\n=x`).
  const sane = nameEnd >= start;
  let valueStart = equals + 1;
  while (valueStart < commentAt && isBlank(s.charCodeAt(valueStart))) valueStart++;
  let valueEnd = commentAt;
  while (valueEnd > equals + 1 && isBlank(s.charCodeAt(valueEnd - 1))) valueEnd--;
  if (valueEnd < valueStart) valueEnd = valueStart;
  const rawStart = valueStart;
  const rawEnd = valueEnd;
  let quoteBits = 0;
  const opening = s[valueStart];
  if ((opening === '"' || opening === "'") && valueStart + 1 < valueEnd && s[valueEnd - 1] === opening) {
    quoteBits = opening === '"' ? QUOTE_DOUBLE : QUOTE_SINGLE;
    valueStart++;
    valueEnd--;
  }
  const splits = (sane && view.cutsCharacter(nameEnd)) || view.cutsCharacter(rawEnd);
  const backslash = s.indexOf('\\', valueStart);
  const escaped = backslash !== -1 && backslash < valueEnd;
  let strings: string | OptionStrings = view.source;
  if (!view.plain || !sane || escaped) {
    const valueBytes = unescape(s, valueStart, valueEnd);
    const nameBytes = sane ? s.slice(start, nameEnd) : s.slice(start, commentAt);
    strings = { rawName: view.decodeText(nameBytes), value: view.decodeText(valueBytes), argument: `--${nameBytes}=${valueBytes}` };
  }
  return new OptionLine(view.withBits(HAS_EQUALS | quoteBits | (splits ? SPLITS_CHARACTER : 0)), strings, {
    nameStart: view.at(start),
    nameEnd: sane ? view.endAt(nameEnd) : view.endAt(start),
    valueStart: view.at(rawStart),
    valueEnd: view.endAt(rawEnd),
    ...comment,
    contentEnd: view.endAt(Math.max(rawEnd, equals + 1)),
  });
}

const NO_COMMENT = { commentStart: -1, commentEnd: -1 } as const;

/** `remove_end_comment`: the first `#` outside quotes; quotes open with ' or " and a backslash escapes inside them. */
function unquotedHash(s: string, start: number, end: number): number {
  let quote = '';
  let escaped = false;
  for (let i = start; i < end; i++) {
    const c = s[i] as string;
    if ((c === "'" || c === '"') && !escaped) {
      if (quote === '') quote = c;
      else if (quote === c) quote = '';
    }
    if (quote === '' && c === '#') return i;
    escaped = quote !== '' && c === '\\' && !escaped;
  }
  return end;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', s: ' ', '"': '"', "'": "'", '\\': '\\' };

/** Escapes are processed whether the value was quoted or not; an unknown `\x` keeps both characters, a final `\` stays. */
function unescape(s: string, from: number, to: number): string {
  const first = s.indexOf('\\', from);
  if (first === -1 || first >= to) return s.slice(from, to);
  let out = '';
  for (let i = from; i < to; i++) {
    const c = s[i] as string;
    if (c === '\\' && i !== to - 1) {
      const next = s[++i] as string;
      out += ESCAPES[next] ?? `\\${next}`;
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * What the server prints of an argument it refuses, without the `--`: its
 * bytes as the file's text shows them (the server writes them as they are,
 * and a terminal shows a UTF-8 file's as UTF-8).
 */
export function printedArgument(line: { readonly argument: string }, encoding: TextEncoding): string {
  return decodeBytes(line.argument.slice(2), encoding);
}

/**
 * Turns reader bytes back into text: bytes of a UTF-8 file are decoded as UTF-8 (a character the
 * reader cut shows as U+FFFD; `argument` keeps the bytes), latin1 files map byte to char.
 */
function decodeBytes(bytes: string, encoding: TextEncoding): string {
  if (encoding === 'latin1' || !NON_ASCII.test(bytes)) return bytes;
  return Buffer.from(bytes, 'latin1').toString('utf8');
}
