import type { TextEdit } from '../../core/types.js';
import type { PhpFpmEntryUse, PhpFpmPool } from './model.js';

/**
 * The edit that gives an entry a new value, inside its quotes when it has
 * them, keeping the key, the spacing around `=` and a trailing comment. Null
 * for a value with `$pool` or `${VAR}` in it, whose meaning the edit would
 * lose, and for a new value that needs quoting the line does not have.
 */
export function replacePhpFpmValue(use: PhpFpmEntryUse, value: string): TextEdit | null {
  const line = use.line;
  if (line.value.includes('$') || /[\x00-\x1f\x7f;"'$]/.test(value)) return null;
  const [start, end] = line.valueRange;
  const range = line.quote === undefined ? ([start, end] as const) : ([start + 1, end - 1] as const);
  return { file: use.file, range, text: value };
}

/**
 * A new `key = value` line for a pool that does not set the key: after the
 * pool's last entry in the file of its first `[name]` line, with that line's
 * indentation, spacing around `=` and line ending.
 */
export function insertPhpFpmEntry(pool: PhpFpmPool, key: string, value: string): TextEdit | null {
  if (/[\x00-\x1f\x7f;"'$]/.test(value)) return null;
  const file = pool.header.file;
  const inFile = pool.uses.filter((use) => use.file === file);
  const after = inFile[inFile.length - 1] ?? pool.header;
  const lineText = file.text.slice(after.range[0], after.range[1]);
  const eol = lineText.endsWith('\r\n') ? '\r\n' : '\n';
  const template = inFile[inFile.length - 1];
  const indent = template === undefined ? '' : (/^[ \t]*/.exec(file.text.slice(template.line.range[0]))?.[0] ?? '');
  const equals =
    template === undefined
      ? ' = '
      : (/[ \t]*=[ \t]*/.exec(file.text.slice(template.line.keyRange[1], template.line.valueRange[0]))?.[0] ?? ' = ');
  const needsBreak = !lineText.endsWith('\n');
  return {
    file,
    range: [after.range[1], after.range[1]],
    text: `${needsBreak ? eol : ''}${indent}${key}${equals}${value}${needsBreak ? '' : eol}`,
  };
}
