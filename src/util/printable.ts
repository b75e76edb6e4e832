const NAMED: Readonly<Record<string, string>> = { '\0': '\\0', '\n': '\\n', '\r': '\\r' };

/**
 * C0 and C1 controls; and the Unicode format characters that reorder or
 * break what a terminal shows: bidi embeddings, overrides and isolates (the
 * "Trojan Source" characters, which make a line read as something else), the
 * line and paragraph separators (U+2028, U+2029), and zero-width ones.
 */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

/**
 * Text taken from a config (or a file name) made safe for one line on a
 * terminal: control characters, which could end the line, move the cursor or
 * smuggle escape sequences out of an untrusted repository, are shown as
 * escapes (`\r`, `\x1b`). Tabs stay.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (char) => NAMED[char] ?? escaped(char.charCodeAt(0)));
}

function escaped(code: number): string {
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
