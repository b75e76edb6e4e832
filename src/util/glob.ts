/**
 * Compiles a path glob as `.tune-lint.yaml` overrides use them: `**` spans
 * directories, `*` and `?` stay within one, `[...]` is a class and `{a,b}`
 * an alternation. Matching is on `/`-separated relative paths. Any text
 * compiles: unbalanced braces are literal and a reversed range matches
 * nothing, and runs of stars or of `** /` collapse, so that a glob from an
 * untrusted repository cannot make the regex throw or backtrack on repeats.
 */
export function compileGlob(glob: string): (relativePath: string) => boolean {
  const alternation = bracesBalance(glob);
  let source = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*') {
      let stars = 1;
      while (glob[i + stars] === '*') stars++;
      i += stars - 1;
      if (stars === 1) {
        source += '[^/]*';
      } else if (glob[i + 1] === '/') {
        i++;
        while (glob.startsWith('**/', i + 1)) i += 3;
        source += '(?:.*/)?';
      } else {
        source += '.*';
      }
    } else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close === -1) source += '\\[';
      else {
        const body = glob.slice(i + 1, close);
        source += body.startsWith('!') ? classOf(body.slice(1), true) : classOf(body, false);
        i = close;
      }
    } else if (char === '{' && alternation) {
      braces++;
      source += '(?:';
    } else if (char === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (char === ',' && braces > 0) source += '|';
    else source += escapeRegExp(char);
  }
  const regex = new RegExp(`^${source}$`);
  return (relativePath) => regex.test(relativePath.replace(/^\.\//, ''));
}

/** True when every `{` outside a class has its `}`: only then are braces an alternation. */
function bracesBalance(glob: string): boolean {
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close !== -1) i = close;
    } else if (char === '{') depth++;
    else if (char === '}' && depth > 0) depth--;
  }
  return depth === 0;
}

/** A regex class for the body of `[...]`: characters and ranges, each escaped; reversed ranges left out. */
function classOf(body: string, negated: boolean): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const low = body[i] as string;
    const high = body[i + 2];
    if (body[i + 1] === '-' && high !== undefined) {
      if (low <= high) out += `${escapeClass(low)}-${escapeClass(high)}`;
      i += 2;
    } else out += escapeClass(low);
  }
  if (negated) return `[^${out}]`;
  return out === '' ? '(?!)' : `[${out}]`;
}

function escapeClass(char: string): string {
  return /[\\\]^-]/.test(char) ? `\\${char}` : char;
}

function escapeRegExp(char: string): string {
  return /[.+^$()|\\{}[\]]/.test(char) ? `\\${char}` : char;
}
