/** One file's change, by the paths a patch names. */
export interface FileChange {
  readonly patchPath: string;
  readonly before: string;
  readonly after: string;
  /** How the file's text maps to its bytes (latin1 for files that are not valid UTF-8); default utf8. */
  readonly encoding?: 'utf8' | 'latin1';
}

/**
 * A unified diff of every change, in the form `git apply` and `patch -p1`
 * take: `diff --git a/P b/P`, `--- a/P`, `+++ b/P`, hunks with three lines of
 * context. Line endings inside lines are kept, so CRLF files stay CRLF; a BOM
 * is part of the first line; a file without a final newline gets git's
 * `\ No newline at end of file` marker. As text it suits a report; written
 * to a file or pipe, use {@link unifiedDiffBytes}, which gives every file's
 * lines back in that file's own bytes.
 */
export async function unifiedDiff(changes: readonly FileChange[]): Promise<string> {
  return (await fileSections(changes)).map((section) => section.text).join('');
}

/**
 * The same patch as bytes: each file's section in the file's encoding, so a
 * latin1 config's lines match byte for byte (the paths are ASCII: non-ASCII
 * bytes in names are escaped as git does).
 */
export async function unifiedDiffBytes(changes: readonly FileChange[]): Promise<Buffer> {
  return Buffer.concat((await fileSections(changes)).map((section) => Buffer.from(section.text, section.encoding)));
}

async function fileSections(changes: readonly FileChange[]): Promise<{ text: string; encoding: 'utf8' | 'latin1' }[]> {
  const relevant = changes.filter((change) => change.before !== change.after);
  if (relevant.length === 0) return [];
  const { structuredPatch } = await import('diff');
  const sections: { text: string; encoding: 'utf8' | 'latin1' }[] = [];
  for (const change of relevant) {
    const out: string[] = [];
    const path = change.patchPath.replace(/^\/+/, '');
    const patch = structuredPatch(`a/${path}`, `b/${path}`, change.before, change.after, undefined, undefined, { context: 3 });
    const [a, b] = [quotePath(`a/${path}`), quotePath(`b/${path}`)];
    out.push(`diff --git ${a} ${b}\n--- ${a}\n+++ ${b}\n`);
    for (const hunk of patch.hunks) {
      out.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@\n`);
      for (const line of hunk.lines) out.push(`${line}\n`);
    }
    sections.push({ text: out.join(''), encoding: change.encoding ?? 'utf8' });
  }
  return sections;
}

const C_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A path as git writes it in a patch: as it is when plain, else in double
 * quotes with C escapes and non-ASCII bytes in octal. Unlike git, a space
 * also gets quotes, since GNU patch reads an unquoted name only up to it;
 * both tools read the quoted form.
 */
function quotePath(path: string): string {
  if (!/[\x00-\x20"\\\x7f-\uffff]/.test(path)) return path;
  let quoted = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const char = String.fromCharCode(byte);
    quoted += C_ESCAPES[char] ?? (byte < 0x20 || byte >= 0x7f ? `\\${byte.toString(8).padStart(3, '0')}` : char);
  }
  return `"${quoted}"`;
}

/** An empty side of a hunk names the line before it (the unified format's quirk). */
function range(start: number, lines: number): string {
  return lines === 0 ? `${start - 1},0` : `${start},${lines}`;
}
