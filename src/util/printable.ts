const NAMED: Readonly<Record<string, string>> = { '\0': '\\0', '\n': '\\n', '\r': '\\r' };
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/**
 * Text taken from a config (or a file name) made safe for one line on a
 * terminal: control characters, which could end the line, move the cursor or
 * smuggle escape sequences out of an untrusted repository, are shown as
 * escapes (`\r`, `\x1b`). Tabs stay.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (char) => NAMED[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
