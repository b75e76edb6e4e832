/**
 * The variables a Debian `envvars` file exports, read without executing it:
 * `NAME=value` and `export NAME=value` assignments (quotes, `$NAME` and
 * `${NAME}` expansion from earlier assignments or `inherited`), `export NAME`
 * and `unset NAME`. Everything else (`if`, `.`, commands) is ignored and
 * conditionals are not evaluated: assignments take effect in file order, so in
 * the stock file `SUFFIX` ends up empty, which is right for the default
 * instance `/etc/apache2`. Other parameter expansions (`${X##p}`) give ''.
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

/** The value of one shell word: up to the first unquoted blank, with quotes removed and variables expanded. */
function shellWord(source: string, values: ReadonlyMap<string, string>): string {
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
      result += source[++index];
      continue;
    }
    if (char === '"' || (char === "'" && quote === undefined)) {
      quote = quote === char ? undefined : (char as '"' | "'");
      continue;
    }
    if (char === '$') {
      const braced = /^\$\{([^}]*)\}/.exec(source.slice(index));
      const bare = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(source.slice(index));
      const match = braced ?? bare;
      if (match !== null) {
        const name = match[1] as string;
        result += /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? (values.get(name) ?? '') : '';
        index += match[0].length - 1;
        continue;
      }
    }
    if (quote === undefined && /[\s;]/.test(char)) break;
    result += char;
  }
  return result;
}
