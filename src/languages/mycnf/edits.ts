import type { SourceFile } from '../../core/source-file.js';
import type { DatabaseTarget } from '../../core/targets.js';
import type { TextEdit } from '../../core/types.js';
import { acceptsLargeSuffixes, formatServerSize } from './sizes.js';
import { groupKey } from './groups.js';
import type { MycnfConfig, MycnfFileEntry, MycnfOptionUse } from './model.js';
import { isMariadbOnlyOption, mysqlOnlySeries } from './mysql-names.js';
import { normaliseKey } from './names.js';
import { parseMyCnf, type MycnfGroupLine, type MycnfLine, type MycnfOptionLine } from './parser.js';

/**
 * Text edits on option files that keep the file's dialect: quoting, unit
 * style, dash or underscore names, the spacing around `=`, the line ending.
 * Each returns null when the edit would not be safe: the line is one the
 * server reads differently from how it looks (cut at the read limit, a NUL
 * byte, a broken character), the value is ambiguous (`512MB`, `1.5G`, empty,
 * escapes), or a comment would be lost.
 */

export interface PlannedEdit {
  readonly edit: TextEdit;
  /** Where the change goes, for the message: `mariadb.conf.d/50-server.cnf:42`. */
  readonly where: string;
}

const UNIT_SHIFTS = [
  ['E', 60],
  ['P', 50],
  ['T', 40],
  ['G', 30],
  ['M', 20],
  ['K', 10],
] as const;

/**
 * A size in the unit style of the value as written: `256M` stays in M when
 * the new size is an exact number of M, else takes the largest unit that
 * divides it exactly (K, M, G, and T, P, E where the target knows them),
 * else plain bytes; a value written in bytes stays in bytes; the suffix keeps
 * its case. Null for a value whose style is not a plain integer with at most
 * one suffix letter.
 */
export function sizeInStyleOf(written: string, bytes: number, target: DatabaseTarget): string | null {
  const match = /^(\d+)([kmgtpe])?$/i.exec(written);
  if (match === null || !Number.isSafeInteger(bytes) || bytes < 0) return null;
  const suffix = match[2];
  if (suffix === undefined) return String(bytes);
  const lower = suffix === suffix.toLowerCase();
  const allowed = UNIT_SHIFTS.filter(([unit]) => acceptsLargeSuffixes(target) || 'GMK'.includes(unit));
  const own = allowed.find(([unit]) => unit === suffix.toUpperCase());
  const candidates = own === undefined ? allowed : [own, ...allowed];
  for (const [unit, shift] of candidates) {
    const size = 2 ** shift;
    if (bytes % size === 0 && bytes > 0) return `${bytes / size}${lower ? unit.toLowerCase() : unit}`;
  }
  return String(bytes);
}

/** Replaces a size value (`innodb_buffer_pool_size = 256M`) keeping its quotes, unit style and inline comment. */
export function replaceMycnfSize(use: MycnfOptionUse, bytes: number, target: DatabaseTarget): TextEdit | null {
  const parts = valueParts(use);
  if (parts === null) return null;
  const text = sizeInStyleOf(parts.inner, bytes, target);
  if (text === null) return null;
  return { file: use.file, range: parts.innerRange, text };
}

/**
 * Replaces a value with a string the reader will read back exactly: written
 * bare when it can be, else in the value's own quotes (or double quotes) with
 * `\` and the quote escaped. The inline comment stays.
 */
export function replaceMycnfValue(use: MycnfOptionUse, value: string): TextEdit | null {
  const parts = valueParts(use);
  if (parts === null || /[\x00-\x1f\x7f]/.test(value)) return null;
  if (use.line.quote !== undefined) {
    return { file: use.file, range: parts.innerRange, text: escapeFor(value, use.line.quote) };
  }
  const written = readsBackBare(value) ? value : `"${escapeFor(value, '"')}"`;
  return { file: use.file, range: parts.innerRange, text: written };
}

/**
 * Renames an option, keeping its prefixes (`loose-`), its dash or underscore
 * style and its case. When the name is padded to align `=` in a column, the
 * padding is adjusted so `=` stays in place.
 */
export function renameMycnfOption(use: MycnfOptionUse, canonical: string): TextEdit | null {
  const line = use.line;
  if (!editableLine(line)) return null;
  const written = use.file.slice(line.nameRange);
  const prefixLength = use.name.prefixes.reduce((length, prefix) => length + prefix.length + 1, 0);
  const keyWritten = written.slice(prefixLength);
  const keyLength = keyWritten.length;
  if (keyLength === 0 || normaliseKey(written.slice(0, prefixLength)) !== use.name.prefixes.map((prefix) => `${prefix}_`).join(''))
    return null;
  // A key without separators (`skip-locking`) takes the style of the whole name, prefixes included.
  let name = inSeparatorStyleOf(/[-_]/.test(keyWritten) ? keyWritten : written, canonical);
  if (keyWritten === keyWritten.toUpperCase() && keyWritten !== keyWritten.toLowerCase()) name = name.toUpperCase();
  const start = line.nameRange[1] - keyLength;
  if (!line.hasEquals) return { file: use.file, range: [start, line.nameRange[1]], text: name };
  const equals = use.file.text.indexOf('=', line.nameRange[1]);
  const gap = use.file.text.slice(line.nameRange[1], equals);
  const lineStart = line.range[0];
  const prefix = use.file.text.slice(lineStart, start);
  const newGap = alignedGap(prefix + keyWritten, gap, prefix + name);
  return { file: use.file, range: [start, equals], text: `${name}${newGap}` };
}

/**
 * Removes an option's line. On a last line without a line ending, the line
 * ending before it goes instead, so the file keeps ending the way it did;
 * unless the line before is an `!include` or `!includedir`, which the server
 * reads without its last character when it is the last line and has no line
 * ending: then the last line goes alone. Null when the line has an inline
 * comment (the comment would be lost).
 */
export function removeMycnfLine(use: MycnfOptionUse): TextEdit | null {
  const line = use.line;
  if (!editableLine(line) || line.commentRange !== undefined) return null;
  const text = use.file.text;
  let start = line.range[0];
  if (line.eol === '' && start > 0) {
    const ending = text.slice(0, start).endsWith('\r\n') ? 2 : 1;
    const before = text.slice(text.lastIndexOf('\n', start - ending - 1) + 1, start - ending);
    if (!/^[\t\n\v\f\r \xA0]*!include/.test(before)) start -= ending;
  }
  return { file: use.file, range: [start, line.range[1]], text: '' };
}

/** The server groups an inserted option goes to, in order of preference: the daemon's own groups that every version reads. */
const INSERT_GROUPS = ['mysqld', 'mariadbd', 'mariadb', 'server'];

/**
 * Sets an option the config does not set yet, where the user keeps the
 * server's settings: in the last `[mysqld]` section the server reads (else
 * `[mariadbd]`, `[mariadb]`, `[server]`; never `[client-server]`, which
 * clients read too, nor a version-specific group), right after a
 * commented-out line for the same option (`#max_connections = 100`, the way
 * an admin uncomments it) or else after the section's last option, copying
 * that line's indentation, name style, spacing around `=` and line ending.
 * When no such section exists, a `[mysqld]` section is appended to the main
 * file. Never a new file: a file that does not exist yet has no mode, owner
 * or dialect to keep, and a patch creating one would also have to be the
 * right name for an `!includedir` the admin may not read.
 * Null when the reader stops before the end of the config (the server does
 * not start), so the sections seen are not all there are.
 */
export function insertMycnfOption(config: MycnfConfig, name: string, value: string): PlannedEdit | null {
  if (config.startupError !== undefined || /[\x00-\x1f\x7f]/.test(value)) return null;
  const written = readsBackBare(value) ? value : `"${escapeFor(value, '"')}"`;
  const section = chooseSection(config);
  if (section === undefined) return appendSection(config, name, written);
  const file = section.entry.source;
  const template = [...section.lines]
    .reverse()
    .find((line) => line.kind === 'comment' && commentedOutKey(file, line) === normaliseKey(name));
  if (template !== undefined) {
    const body = file.slice(template.range).replace(/\r?\n$/, '');
    const match = /^([ \t]*)[#;][ \t]*([A-Za-z0-9_-]+)([ \t]*=[ \t]*)?/.exec(body) as RegExpExecArray;
    const equals = match[3] ?? ' = ';
    return insertAfter(file, template, `${match[1]}${match[2]}${equals}${written}`);
  }
  const options = section.lines.filter((line): line is MycnfOptionLine => line.kind === 'option');
  const neighbour = options[options.length - 1];
  const styleSource = [...options].reverse().find((line) => line.hasEquals) ?? lastOptionWithEquals(file, config);
  if (neighbour === undefined) return insertAfter(file, section.header, lineLike(file, styleSource, name, written));
  return insertAfter(file, neighbour, lineLike(file, styleSource, name, written, neighbour));
}

/**
 * The edit that makes `key` have `value`: the line in effect gets the new
 * value (as a size in its own unit style when `value` is `{ bytes }`), or the
 * option is inserted as {@link insertMycnfOption} does. Null when the line in
 * effect cannot be edited safely.
 */
export function planMycnfSetting(config: MycnfConfig, key: string, value: string | { readonly bytes: number }): PlannedEdit | null {
  const use = config.effective(key);
  if (use === undefined) {
    const text = typeof value === 'string' ? value : formatServerSize(value.bytes, config.target);
    // An option only one product takes makes the other refuse to start; with loose- the other warns and starts.
    const oneProduct = config.target.assumed === true && (isMariadbOnlyOption(key) || mysqlOnlySeries(key).length > 0);
    return insertMycnfOption(config, oneProduct ? `loose-${key}` : key, text);
  }
  if (use.name.implied !== undefined) return null;
  const edit = typeof value === 'string' ? replaceMycnfValue(use, value) : replaceMycnfSize(use, value.bytes, config.target);
  return edit === null ? null : { edit, where: `${use.file.displayPath}:${use.file.position(use.range[0]).line}` };
}

function editableLine(line: MycnfOptionLine): boolean {
  return !line.cutAtReadLimit && !line.continuesCutLine && line.nulAt === undefined && !line.splitsCharacter;
}

/** The value inside its quotes, when it can be replaced: a value that is there, without escapes. */
function valueParts(use: MycnfOptionUse): { inner: string; innerRange: readonly [number, number] } | null {
  const line = use.line;
  if (!editableLine(line) || !line.hasEquals || line.valueRange === undefined) return null;
  const [start, end] = line.valueRange;
  if (start === end) return null;
  const innerRange = line.quote === undefined ? ([start, end] as const) : ([start + 1, end - 1] as const);
  const inner = use.file.slice(innerRange);
  if (inner.includes('\\') || inner.includes('\n')) return null;
  return { inner, innerRange };
}

/** A bare value reads back as itself: no comment mark, escape, quotes around it or blanks at its ends. */
function readsBackBare(value: string): boolean {
  if (value === '' || /[#\\]/.test(value) || /^[\s\xa0]|[\s\xa0]$/.test(value)) return false;
  const first = value[0];
  return !((first === '"' || first === "'") && value.length > 1 && value.endsWith(first));
}

function escapeFor(value: string, quote: '"' | "'"): string {
  return value.replace(/\\/g, '\\\\').replaceAll(quote, `\\${quote}`);
}

function inSeparatorStyleOf(written: string, canonical: string): string {
  const dashes = written.split('-').length - 1;
  const underscores = written.split('_').length - 1;
  return dashes > underscores ? canonical.replaceAll('_', '-') : canonical.replaceAll('-', '_');
}

/** Display column after a text, with tabs to the next multiple of 8. */
function columnAfter(text: string): number {
  let column = 0;
  for (const char of text) column = char === '\t' ? column + 8 - (column % 8) : column + 1;
  return column;
}

/**
 * The gap after a new name that puts the next character where the old gap
 * put it, when the old gap aligned a column (two or more spaces, or tabs);
 * a single space or no gap is copied as it is.
 */
function alignedGap(oldLead: string, gap: string, newLead: string): string {
  if (/^ {2,}$/.test(gap)) {
    const target = columnAfter(oldLead + gap);
    return ' '.repeat(Math.max(1, target - columnAfter(newLead)));
  }
  if (/^\t+$/.test(gap)) {
    const target = columnAfter(oldLead + gap);
    let tabs = '\t';
    while (columnAfter(newLead + tabs) < target) tabs += '\t';
    return tabs;
  }
  return gap;
}

interface Section {
  readonly entry: MycnfFileEntry;
  readonly header: MycnfGroupLine;
  readonly lines: readonly MycnfLine[];
}

/**
 * The last section of the first group in INSERT_GROUPS the server reads, as
 * far as it reads it: a line added after a reader error would be ignored
 * with the rest of the file, and asked for again by every fix pass.
 */
function chooseSection(config: MycnfConfig): Section | undefined {
  const readable = new Set(config.serverGroups.map(groupKey));
  const sections: Section[] = [];
  for (const entry of config.files) {
    let current: { header: MycnfGroupLine; lines: MycnfLine[] } | undefined;
    for (const line of entry.document.lines) {
      if (line === entry.stoppedAt) break;
      if (line.kind === 'group') {
        current = line.closed ? { header: line, lines: [] } : undefined;
        if (current !== undefined) sections.push({ entry, ...current });
        continue;
      }
      current?.lines.push(line);
    }
  }
  for (const group of INSERT_GROUPS) {
    if (!readable.has(group)) continue;
    const last = sections.filter((section) => groupKey(section.header.name) === group).pop();
    if (last !== undefined) return last;
  }
  return undefined;
}

/** The option a comment line comments out: `#max_connections = 100`, `# skip-name-resolve`. */
function commentedOutKey(file: SourceFile, line: MycnfLine): string | undefined {
  const match = /^[ \t]*[#;][ \t]*([A-Za-z][A-Za-z0-9_-]*)[ \t]*(?:=|\r?\n?$)/.exec(file.slice(line.range));
  return match === null ? undefined : normaliseKey(match[1] as string);
}

function lastOptionWithEquals(file: SourceFile, config: MycnfConfig): MycnfOptionLine | undefined {
  const lines = config.files.find((entry) => entry.source === file)?.document.lines ?? [];
  return [...lines].reverse().find((line): line is MycnfOptionLine => line.kind === 'option' && line.hasEquals);
}

/**
 * `name = value` written like `style` (indentation, dash or underscore, the
 * spacing around `=`, aligned to its `=` column), or with ` = ` when there is
 * no option with a value to copy.
 */
function lineLike(file: SourceFile, style: MycnfOptionLine | undefined, name: string, value: string, indentFrom?: MycnfOptionLine): string {
  const indentLine = indentFrom ?? style;
  const indent = indentLine === undefined ? '' : (/^[ \t]*/.exec(file.slice(indentLine.range)) as RegExpExecArray)[0];
  if (style === undefined) return `${indent}${name} = ${value}`;
  const styled = inSeparatorStyleOf(style.rawName, name);
  const text = file.text;
  const equals = text.indexOf('=', style.nameRange[1]);
  const before = text.slice(style.nameRange[1], equals);
  const after = style.valueRange === undefined ? ' ' : text.slice(equals + 1, style.valueRange[0]);
  const gap = alignedGap(text.slice(style.range[0], style.nameRange[1]), before, `${indent}${styled}`);
  return `${indent}${styled}${gap}=${after.includes('\n') ? ' ' : after}${value}`;
}

function insertAfter(file: SourceFile, after: MycnfLine, line: string): PlannedEdit {
  const lineNumber = file.position(after.range[0]).line + 1;
  const where = `${file.displayPath}:${lineNumber}`;
  if (after.eol === '') return { edit: { file, range: [after.range[1], after.range[1]], text: `${file.eol}${line}` }, where };
  return { edit: { file, range: [after.range[1], after.range[1]], text: `${line}${after.eol}` }, where };
}

function appendSection(config: MycnfConfig, name: string, value: string): PlannedEdit | null {
  const file = config.root;
  const entry = config.files.find((candidate) => candidate.source === file);
  if (entry === undefined) return null;
  const text = file.text;
  const eol = file.eol;
  const style = lastOptionWithEquals(file, config);
  const lines = entry.document.lines;
  const last = lines[lines.length - 1];
  let lead = '';
  if (last !== undefined) {
    if (last.eol === '') lead += eol;
    if (last.kind !== 'blank') lead += eol;
  }
  const body = `[mysqld]${eol}${lineLike(file, style, name, value).replace(/^[ \t]+/, '')}${eol}`;
  const lineNumber = `${text}${lead}`.split('\n').length + 1;
  return { edit: { file, range: [text.length, text.length], text: `${lead}${body}` }, where: `${file.displayPath}:${lineNumber}` };
}

/**
 * `set-variable = max_connections=15` becomes `max_connections = 15`: the
 * spacing around the line's own `=` is kept, the inline comment stays. Only
 * when the new line reads back as exactly that name and value.
 */
export function rewriteSetVariable(use: MycnfOptionUse, name: string, value: string): TextEdit | null {
  const line = use.line;
  if (line.valueRange === undefined || line.quote !== undefined || line.cutAtReadLimit || line.continuesCutLine || line.nulAt !== undefined)
    return null;
  const text = use.file.text;
  const equals = text.indexOf('=', line.nameRange[1]);
  const before = text.slice(line.nameRange[1], equals);
  const after = text.slice(equals + 1, line.valueRange[0]);
  const raw = use.file.slice(line.valueRange);
  const inner = raw.indexOf('=');
  if (raw.includes('\\') || inner === -1) return null;
  const written = `${name}${before}=${after}${raw.slice(inner + 1).replace(/^[\t ]+/, '')}`;
  const reread = parseMyCnf(`[mysqld]\n${written}\n`).lines[1];
  if (reread?.kind !== 'option' || reread.rawName !== name || reread.value !== value) return null;
  return { file: use.file, range: [line.nameRange[0], line.valueRange[1]], text: written };
}

/**
 * Edits of several options at once: options added to the same group land at
 * the same point, so their insertions become one, in order. Null when any
 * cannot be made safely.
 */
export function combinedEdits(planned: readonly (PlannedEdit | null)[]): TextEdit[] | null {
  const edits: TextEdit[] = [];
  for (const entry of planned) {
    if (entry === null) return null;
    const edit = entry.edit;
    const inserted = edit.range[1] === edit.range[0];
    const previous = edits.findIndex(
      (other) => inserted && other.file === edit.file && other.range[0] === edit.range[0] && other.range[1] === other.range[0],
    );
    if (previous === -1) edits.push(edit);
    else edits[previous] = { ...(edits[previous] as TextEdit), text: (edits[previous] as TextEdit).text + edit.text };
  }
  return edits;
}
