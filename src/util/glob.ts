/**
 * Compiles a path glob as `.tune-lint.yaml` overrides use them: `**` spans
 * directories, `*` and `?` stay within one, `[...]` is a class and `{a,b}`
 * an alternation. Matching is on `/`-separated relative paths.
 */
export function compileGlob(glob: string): (relativePath: string) => boolean {
  let source = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*') {
      if (glob[i + 1] === '*') {
        const slashAfter = glob[i + 2] === '/';
        source += slashAfter ? '(?:.*/)?' : '.*';
        i += slashAfter ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close === -1) source += '\\[';
      else {
        const body = glob.slice(i + 1, close);
        source += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = close;
      }
    } else if (char === '{') {
      braces++;
      source += '(?:';
    } else if (char === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (char === ',' && braces > 0) source += '|';
    else source += char.replace(/[.+^$()|\\]/g, '\\$&');
  }
  const regex = new RegExp(`^${source}$`);
  return (relativePath) => regex.test(relativePath.replace(/^\.\//, ''));
}
