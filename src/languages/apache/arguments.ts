import { ARGUMENT_HELP, DIRECTIVE_ARGUMENTS, type ArgumentCheck } from './directive-arguments.js';
import type { MpmName } from './names.js';

/** The words of invoke_cmd's messages after the directive's name. */
const MESSAGE_WORDS: Readonly<Record<ArgumentCheck, string>> = {
  NO_ARGS: 'takes no arguments',
  TAKE1: 'takes one argument',
  TAKE2: 'takes two arguments',
  TAKE12: 'takes 1-2 arguments',
  TAKE3: 'takes three arguments',
  TAKE23: 'takes two or three arguments',
  TAKE123: 'takes one, two or three arguments',
  TAKE13: 'takes one or three arguments',
  ITERATE2: 'requires at least two arguments',
  FLAG: 'must be On or Off',
};

/** The same in plain words, for what a line should have. */
export const EXPECTED_ARGUMENTS: Readonly<Record<ArgumentCheck, string>> = {
  NO_ARGS: 'no arguments',
  TAKE1: 'one argument',
  TAKE2: 'two arguments',
  TAKE12: 'one or two arguments',
  TAKE3: 'three arguments',
  TAKE23: 'two or three arguments',
  TAKE123: 'one to three arguments',
  TAKE13: 'one or three arguments',
  ITERATE2: 'at least two arguments',
  FLAG: 'On or Off',
};

/** The check httpd makes on a directive's argument count before its own code runs (lower-case name), if it makes one. */
export function argumentCheck(lowerName: string): ArgumentCheck | undefined {
  return DIRECTIVE_ARGUMENTS[lowerName];
}

/**
 * Whether invoke_cmd (server/config.c) refuses these words, the arguments
 * as ap_getword_conf splits them (quotes removed, so `""` is an empty word,
 * which counts as missing where a word is required). FLAG reads only its
 * first word; ITERATE2 needs a first word and more text after it.
 */
// eslint-disable-next-line complexity -- invoke_cmd's switch in server/config.c, one case per argument kind, kept as one to be read against it
export function refusesArguments(check: ArgumentCheck, words: readonly string[]): boolean {
  const count = words.length;
  const present = (index: number) => (words[index] ?? '') !== '';
  switch (check) {
    case 'NO_ARGS':
      return count > 0;
    case 'TAKE1':
      return !present(0) || count > 1;
    case 'TAKE2':
      return !present(0) || !present(1) || count > 2;
    case 'TAKE12':
      return !present(0) || count > 2;
    case 'TAKE3':
      return !present(0) || !present(1) || !present(2) || count > 3;
    case 'TAKE23':
      return !present(0) || !present(1) || count > 3;
    case 'TAKE123':
      return !present(0) || count > 3;
    case 'TAKE13':
      return !present(0) || (present(1) && count === 2) || count > 3;
    case 'ITERATE2':
      return !present(0) || count < 2;
    case 'FLAG': {
      const first = (words[0] ?? '').toLowerCase();
      return first !== 'on' && first !== 'off';
    }
  }
}

/** Words after the name of a line without quotes or backslashes (C isspace blanks between), as many as each check takes. */
const PLAIN_WORD = '[^\\t\\n\\v\\f\\r "\'\\\\]+';
const BLANKS = '[\\t\\n\\v\\f\\r ]+';
const plainLine = (counts: string) => new RegExp(`^${PLAIN_WORD}(?:${BLANKS}${PLAIN_WORD})${counts}$`);
const PLAIN_ACCEPTED: Readonly<Record<Exclude<ArgumentCheck, 'FLAG'>, RegExp>> = {
  NO_ARGS: plainLine('{0}'),
  TAKE1: plainLine('{1}'),
  TAKE2: plainLine('{2}'),
  TAKE12: plainLine('{1,2}'),
  TAKE3: plainLine('{3}'),
  TAKE23: plainLine('{2,3}'),
  TAKE123: plainLine('{1,3}'),
  TAKE13: new RegExp(`^${PLAIN_WORD}(?:(?:${BLANKS}${PLAIN_WORD}){1}|(?:${BLANKS}${PLAIN_WORD}){3})$`),
  ITERATE2: plainLine('{2,}'),
};
const QUOTE_OR_BACKSLASH = /["'\\]/;

/**
 * Whether httpd refuses a directive line's arguments, from the line's text
 * (name first, trimmed) when it has no quotes or backslashes: then no word
 * is empty and each runs to the next blank, so a regular expression counts
 * them without making them. Undefined for any other line, and for FLAG,
 * whose words are to be split and given to refusesArguments.
 */
export function refusesPlainLine(check: ArgumentCheck, lineText: string): boolean | undefined {
  if (check === 'FLAG') return undefined;
  // A line the expression takes has no quote or backslash, which its words exclude: most lines, one test.
  if (PLAIN_ACCEPTED[check].test(lineText)) return false;
  return QUOTE_OR_BACKSLASH.test(lineText) ? undefined : true;
}

let helpByKey: Map<string, string> | undefined;

/** httpd's message refusing the arguments of `spelling` (its own spelling of the name), with the help it quotes under `mpm`. */
export function argumentsError(spelling: string, check: ArgumentCheck, mpm: MpmName | undefined): string {
  if (helpByKey === undefined) {
    helpByKey = new Map();
    for (const line of ARGUMENT_HELP.trim().split('\n')) {
      const tab = line.indexOf('\t');
      helpByKey.set(line.slice(0, tab), line.slice(tab + 1));
    }
  }
  const name = spelling.toLowerCase();
  const help = helpByKey.get(name) ?? (mpm === undefined ? undefined : helpByKey.get(`${name} ${mpm}`));
  return `${spelling} ${MESSAGE_WORDS[check]}${help === undefined ? '' : `, ${help}`}`;
}
