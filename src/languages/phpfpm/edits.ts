import type { TextEdit } from '../../core/types.js';
import type { PhpFpmEntryUse } from './model.js';

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
