import { lookupTable } from './lookup.js';

/**
 * A name in lower case as the servers compare names (httpd's
 * `ap_cstr_casecmp`, MariaDB's option reader, php-fpm's `strcasecmp`): ASCII
 * letters only. JavaScript's `toLowerCase` also folds U+212A KELVIN SIGN to
 * `k`, which would take `\u212AeepAlive`, a line httpd refuses as an invalid
 * command, for the KeepAlive it knows.
 */
export function asciiLowerCase(text: string): string {
  return BEYOND_ASCII.test(text) ? text.replace(ASCII_CAPITALS, (letter) => letter.toLowerCase()) : text.toLowerCase();
}

const BEYOND_ASCII = /[\u0080-\uffff]/;
const ASCII_CAPITALS = /[A-Z]/g;

/**
 * A text as httpd's error log writes it (`ap_escape_errorlog_item`): a
 * backslash doubled, `\b`, `\n`, `\r`, `\t` and `\v` by name, any other
 * control character or each byte of a character beyond ASCII as `\xhh`
 * (`é` is `\xc3\xa9`). What `apache2 -t` prints of a name it refuses, so a
 * message quoting it quotes the same text.
 */
export function asHttpdLogs(text: string): string {
  return text.replace(
    LOG_ESCAPED,
    (char) => NAMED_ESCAPES[char] ?? [...Buffer.from(char)].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join(''),
  );
}

const NAMED_ESCAPES: Readonly<Record<string, string>> = lookupTable({
  '\\': '\\\\',
  '\b': '\\b',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
});

// Whole characters (the u flag): one beyond the BMP is escaped as its four bytes, not as two surrogates.
const LOG_ESCAPED = /[\\\x00-\x1f\x7f-\u{10ffff}]/gu;

/**
 * The characters beyond ASCII in a name, each once, as `U+212A`: what tells
 * `\u212AeepAlive` from the KeepAlive it looks like.
 */
export function codePointsBeyondAscii(text: string): string[] {
  const found = new Set<string>();
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code > 0x7f) found.add(`U+${code.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  return [...found];
}
