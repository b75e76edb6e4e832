/**
 * The variables a Debian `envvars` file exports, read without executing it:
 * `NAME=value` and `export NAME=value` assignments (quotes, `$NAME` and
 * `${NAME}` expansion from earlier assignments or `inherited`), `export NAME`
 * and `unset NAME`; `: ${NAME:=value}` (and `=`), the form the official
 * php:*-apache images rewrite every export into; and in values `${NAME:-word}`,
 * `${NAME-word}`, `${NAME:=word}`, `${NAME=word}`. Everything else (`if`, `.`,
 * commands) is ignored and conditionals are not evaluated: assignments take
 * effect in file order, so in the stock file `SUFFIX` ends up empty, which is
 * right for the default instance `/etc/apache2`. Other parameter expansions
 * (`${X##p}`) give ''.
 */
export function readEnvvars(text: string, inherited: Readonly<Record<string, string>> = {}): Record<string, string> {
  const values = new Map<string, string>(Object.entries(inherited));
  const exported = new Set<string>();
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const unset = /^unset\s+(.+)$/.exec(line);
    if (unset !== null) {
      for (const name of (unset[1] as string).split(/\s+/)) {
        values.delete(name);
        exported.delete(name);
      }
      continue;
    }
    // `: ${NAME:=value}` expands for its side effect: the default is assigned.
    const colon = /^:\s+(.*)$/.exec(line);
    if (colon !== null) {
      shellWord(colon[1] as string, values);
      continue;
    }
    const assignment = /^(export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (assignment !== null) {
      const name = assignment[2] as string;
      values.set(name, shellWord(assignment[3] as string, values));
      if (assignment[1] !== undefined) exported.add(name);
      continue;
    }
    const exports = /^export\s+([A-Za-z_][A-Za-z0-9_]*(?:\s+[A-Za-z_][A-Za-z0-9_]*)*)$/.exec(line);
    if (exports !== null) for (const name of (exports[1] as string).split(/\s+/)) exported.add(name);
  }
  const result: Record<string, string> = {};
  for (const name of exported) {
    const value = values.get(name);
    if (value !== undefined) result[name] = value;
  }
  return result;
}

/**
 * `${NAME}`, and `${NAME:-word}`/`${NAME-word}` (the word when NAME is unset,
 * or for `:-` empty) and `${NAME:=word}`/`${NAME=word}` (the same, and NAME
 * is set to it), as sh does; any other expansion gives ''.
 */
function expansion(inside: string, values: Map<string, string>): string {
  const parts = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-=])(.*))?$/s.exec(inside);
  if (parts === null) return '';
  const [, name, colon, operator, word] = parts as unknown as [string, string, string | undefined, string | undefined, string | undefined];
  const value = values.get(name);
  if (operator === undefined) return value ?? '';
  const useWord = value === undefined || (colon === ':' && value === '');
  if (!useWord) return value;
  const replacement = shellWord(word ?? '', values);
  if (operator === '=') values.set(name, replacement);
  return replacement;
}

/** The value of one shell word: up to the first unquoted blank, with quotes removed and variables expanded. */
function shellWord(source: string, values: Map<string, string>): string {
  let result = '';
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < source.length; index++) {
    const char = source[index] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else result += char;
      continue;
    }
    if (char === '\\' && index + 1 < source.length) {
      result += source[++index] as string;
      continue;
    }
    if (char === '"' || (char === "'" && quote === undefined)) {
      quote = quote === char ? undefined : char;
      continue;
    }
    if (char === '$') {
      const braced = /^\$\{([^}]*)\}/.exec(source.slice(index));
      const bare = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(source.slice(index));
      const match = braced ?? bare;
      if (match !== null) {
        result += expansion(match[1] as string, values);
        index += match[0].length - 1;
        continue;
      }
    }
    if (quote === undefined && /[\s;]/.test(char)) break;
    result += char;
  }
  return result;
}
