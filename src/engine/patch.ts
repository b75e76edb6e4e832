/** One file's change, by the paths a patch names. */
export interface FileChange {
  readonly patchPath: string;
  readonly before: string;
  readonly after: string;
}

/**
 * A unified diff of every change, in the form `git apply` and `patch -p1`
 * take: `diff --git a/P b/P`, `--- a/P`, `+++ b/P`, hunks with three lines of
 * context. Line endings inside lines are kept, so CRLF files stay CRLF.
 */
export async function unifiedDiff(changes: readonly FileChange[]): Promise<string> {
  const relevant = changes.filter((change) => change.before !== change.after);
  if (relevant.length === 0) return '';
  const { structuredPatch } = await import('diff');
  const out: string[] = [];
  for (const change of relevant) {
    const path = change.patchPath.replace(/^\/+/, '');
    const patch = structuredPatch(`a/${path}`, `b/${path}`, change.before, change.after, undefined, undefined, { context: 3 });
    out.push(`diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n`);
    for (const hunk of patch.hunks) {
      out.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@\n`);
      for (const line of hunk.lines) out.push(`${line}\n`);
    }
  }
  return out.join('');
}

/** An empty side of a hunk names the line before it (the unified format's quirk). */
function range(start: number, lines: number): string {
  return lines === 0 ? `${start - 1},0` : `${start},${lines}`;
}
