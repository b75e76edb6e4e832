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

/**
 * Compiles an `apr_fnmatch` pattern for one path component, with
 * `APR_FNM_PERIOD` as httpd's Include uses it: a leading dot in a name must be
 * matched by a literal dot.
 */
export function compileFnmatch(pattern: string): (name: string) => boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '*') source += '[^]*';
    else if (char === '?') source += '[^]';
    else if (char === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i] as string);
    else if (char === '[') {
      const close = findClassEnd(pattern, i);
      if (close === -1) {
        source += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, close);
      let negate = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        negate = true;
        body = body.slice(1);
      }
      source += `[${negate ? '^' : ''}${body.replace(/\\(.)/g, '$1').replace(/[\\\]^]/g, (m) => `\\${m}`)}]`;
      i = close;
    } else source += escapeRegExp(char);
  }
  const regex = new RegExp(`^${source}$`, 's');
  const leadingDotExplicit = pattern.startsWith('.') || pattern.startsWith('\\.');
  return (name) => (name.startsWith('.') && !leadingDotExplicit ? false : regex.test(name));
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

const ASCII = /^[\x00-\x7f]*$/;

/** `strcmp` order (bytes of the UTF-8 encoding), as httpd sorts include candidates. */
export function byteOrder(a: string, b: string): number {
  if (ASCII.test(a) && ASCII.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
