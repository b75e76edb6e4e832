/**
 * APR's `apr_fnmatch_test`: true when a path component contains a wildcard
 * (`*`, `?`, or `[` with a matching `]`); a backslash escapes the next char.
 */
export function hasWildcard(pattern: string): boolean {
  let nesting = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '?' || char === '*') return true;
    if (char === '\\') {
      if (++i >= pattern.length) return false;
    } else if (char === '[') {
      nesting++;
    } else if (char === ']' && nesting > 0) {
      return true;
    }
  }
  return false;
}

/** One character of a name, or `*` for any run of them. */
type Token = { readonly star: true } | { readonly star: false; readonly matches: (code: number) => boolean };

/**
 * Compiles an `apr_fnmatch` pattern for one path component, with
 * `APR_FNM_PERIOD` as httpd's Include uses it: a leading dot in a name must be
 * matched by a literal dot. Matching takes time proportional to the name
 * times the pattern, whatever the pattern (a config is untrusted input, and a
 * backtracking regex over `*a*a*a*b` takes exponential time).
 */
export function compileFnmatch(pattern: string): (name: string) => boolean {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '*') {
      if (!tokens[tokens.length - 1]?.star) tokens.push({ star: true });
    } else if (char === '?') tokens.push({ star: false, matches: () => true });
    else if (char === '\\' && i + 1 < pattern.length) tokens.push(literal(pattern.charCodeAt(++i)));
    else if (char === '[') {
      const close = findClassEnd(pattern, i);
      if (close === -1) {
        tokens.push(literal(char.charCodeAt(0)));
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      const inClass = classMatcher(body);
      tokens.push({ star: false, matches: negate ? (code) => !inClass(code) : inClass });
      i = close;
    } else tokens.push(literal(char.charCodeAt(0)));
  }
  const leadingDotExplicit = pattern.startsWith('.') || pattern.startsWith('\\.');
  return (name) => (name.startsWith('.') && !leadingDotExplicit ? false : matchTokens(tokens, name));
}

function literal(expected: number): Token {
  return { star: false, matches: (code) => code === expected };
}

/** `a-z`, single characters and `\x` escapes; a reversed range matches nothing, as in APR. */
function classMatcher(body: string): (code: number) => boolean {
  const ranges: [number, number][] = [];
  let i = 0;
  const next = (): number => {
    if (body[i] === '\\' && i + 1 < body.length) i++;
    return body.charCodeAt(i++);
  };
  while (i < body.length) {
    const low = next();
    if (body[i] === '-' && i + 1 < body.length) {
      i++;
      ranges.push([low, next()]);
    } else ranges.push([low, low]);
  }
  return (code) => ranges.some(([low, high]) => code >= low && code <= high);
}

/** Wildcard matching that backtracks only to the last `*`, which is enough when every other token is one character. */
function matchTokens(tokens: readonly Token[], name: string): boolean {
  let token = 0;
  let at = 0;
  let starToken = -1;
  let starAt = 0;
  while (at < name.length) {
    const current = tokens[token];
    if (current?.star === true) {
      starToken = token++;
      starAt = at;
    } else if (current?.matches(name.charCodeAt(at)) === true) {
      token++;
      at++;
    } else if (starToken !== -1) {
      token = starToken + 1;
      at = ++starAt;
    } else {
      return false;
    }
  }
  while (tokens[token]?.star === true) token++;
  return token === tokens.length;
}

function findClassEnd(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] === '!' || pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  return -1;
}

const ASCII = /^[\x00-\x7f]*$/;

/** `strcmp` order (bytes of the UTF-8 encoding), as httpd sorts include candidates. */
export function byteOrder(a: string, b: string): number {
  if (ASCII.test(a) && ASCII.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
