import type { TextEdit } from '../../core/types.js';
import { exactDirectorySections, isExactDirectory, type PathSetting, type ServedPlace } from './docroots.js';
import { guessIndentUnit, inCaseOf, indentationOf, insertApacheLineInto, replaceApacheArg } from './edits.js';
import type { ApacheConfig } from './model.js';

/**
 * Sets a per-directory flag (`EnableSendfile Off`) for one served place and
 * nothing else, so a parent directory or the rest of the server keeps its
 * value: the line in the place's own `<Directory>` gets the new value; else
 * the line goes into the `<Directory>` for exactly that path that httpd
 * applies last; else a new `<Directory "path">` block follows the
 * DocumentRoot or Alias line. Null when that cannot be done safely: the
 * deciding line sits in a regex or wildcard section (a new line elsewhere
 * might not win), or `${VAR}` is in the way.
 */
export function planDirectoryFlag(
  config: ApacheConfig,
  place: ServedPlace,
  name: string,
  value: string,
  decided: PathSetting,
): TextEdit | null {
  const decidingSection = decided.use === undefined ? undefined : config.container(decided.use);
  if (decided.use !== undefined && decidingSection !== undefined && decidingSection.name !== 'virtualhost') {
    if (isExactDirectory(decidingSection, place.path))
      return replaceApacheArg(decided.use, 0, inCaseOf(decided.use.args[0] ?? value, value));
    if (decidingSection.name !== 'directory' || decidingSection.args[0] === '~' || /[*?[]/.test(decidingSection.args[0] ?? '')) return null;
  }
  const exact = exactDirectorySections(config, place.path, place.vhost);
  const last = exact[exact.length - 1];
  if (last !== undefined) return insertApacheLineInto(last, `${name} ${value}`);
  return newDirectoryBlock(place, name, value);
}

/** A `<Directory "path">` block with the line, after the DocumentRoot or Alias that serves the path; null past a `${VAR}`. */
function newDirectoryBlock(place: ServedPlace, name: string, value: string): TextEdit | null {
  if (place.kind === 'Directory' || !('variables' in place.at) || place.at.variables.length > 0) return null;
  const use = place.at;
  const file = use.file;
  const line = use.node.line;
  const eol = line.eol === '' ? file.eol : line.eol;
  const indent = indentationOf(file, line);
  const target = use.node.args[place.kind === 'Alias' ? 1 : 0];
  const quoted = target?.quote !== undefined || /\s/.test(place.path) ? `"${place.path}"` : place.path;
  const block = [`${indent}<Directory ${quoted}>`, `${indent}${guessIndentUnit(file)}${name} ${value}`, `${indent}</Directory>`];
  const text = line.eol === '' ? `${eol}${block.join(eol)}` : `${block.join(eol)}${eol}`;
  return { file, range: [line.end, line.end], text };
}
