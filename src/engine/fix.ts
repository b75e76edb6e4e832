import type { SourceFile } from './source-file.js';
import type { Diagnostic, Fix, FixKind, TextEdit } from './types.js';

export type FixType = FixKind | 'all';

export function fixAllowed(kind: FixKind, fixType: FixType): boolean {
  return fixType === 'all' || kind === fixType;
}

/**
 * Chooses the fixes to apply in one pass, ESLint-style: in report order, a
 * fix is taken only if none of its edits overlaps (or touches the same
 * insertion point as) an edit already taken; the others wait for the next
 * pass, when they are recomputed on the new text. Deferred fixes are taken
 * only in a pass where nothing else is left to fix.
 */
export function chooseFixes(diagnostics: readonly Diagnostic[], fixType: FixType): Fix[] {
  const allowed = diagnostics.filter((diagnostic) => diagnostic.fix !== undefined && fixAllowed(diagnostic.fix.kind, fixType));
  // Deferred fixes (budgets over values other fixes still change) wait until nothing else is pending.
  const ready = allowed.some((diagnostic) => diagnostic.fix?.deferred !== true) ? allowed.filter((diagnostic) => diagnostic.fix?.deferred !== true) : allowed;
  const taken: Fix[] = [];
  const byFile = new Map<string, TextEdit[]>();
  for (const diagnostic of ready) {
    const fix = diagnostic.fix;
    if (fix === undefined) continue;
    const clashes = fix.edits.some((edit) => (byFile.get(edit.file.realPath) ?? []).some((other) => overlaps(edit, other)));
    if (clashes || selfOverlapping(fix.edits) || !fix.edits.every(inBounds)) continue;
    taken.push(fix);
    for (const edit of fix.edits) {
      const list = byFile.get(edit.file.realPath);
      if (list === undefined) byFile.set(edit.file.realPath, [edit]);
      else list.push(edit);
    }
  }
  return taken;
}

function overlaps(a: TextEdit, b: TextEdit): boolean {
  if (a.range[0] === a.range[1] && b.range[0] === b.range[1]) return a.range[0] === b.range[0];
  return a.range[0] < b.range[1] && b.range[0] < a.range[1] || a.range[0] === b.range[0];
}

/** A rule's mistake (a range past the end, or backwards) must never reach a file. */
function inBounds(edit: TextEdit): boolean {
  const [start, end] = edit.range;
  return Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= edit.file.text.length;
}

/**
 * Whether two edits of one fix overlap. Sorted by file and start, an edit
 * overlaps an earlier one when it starts before the furthest end so far or
 * where the one before it starts: a sort and a scan, as a fix may hold tens
 * of thousands of edits (one per physical line of a long continued comment).
 */
function selfOverlapping(edits: readonly TextEdit[]): boolean {
  const sorted = [...edits].sort(
    (a, b) => (a.file.realPath < b.file.realPath ? -1 : a.file.realPath > b.file.realPath ? 1 : a.range[0] - b.range[0] || a.range[1] - b.range[1]),
  );
  let furthest = 0;
  for (const [index, edit] of sorted.entries()) {
    const previous = sorted[index - 1];
    if (previous === undefined || previous.file.realPath !== edit.file.realPath) {
      furthest = edit.range[1];
      continue;
    }
    if (edit.range[0] < furthest || edit.range[0] === previous.range[0]) return true;
    furthest = Math.max(furthest, edit.range[1]);
  }
  return false;
}

/** New text for every file the fixes touch, keyed by real path. */
export function applyFixes(fixes: readonly Fix[]): Map<string, { file: SourceFile; text: string }> {
  const byFile = new Map<string, { file: SourceFile; edits: TextEdit[] }>();
  for (const fix of fixes) {
    for (const edit of fix.edits) {
      const entry = byFile.get(edit.file.realPath);
      if (entry === undefined) byFile.set(edit.file.realPath, { file: edit.file, edits: [edit] });
      else entry.edits.push(edit);
    }
  }
  const out = new Map<string, { file: SourceFile; text: string }>();
  for (const [real, { file, edits }] of byFile) {
    const sorted = [...edits].sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]);
    let text = '';
    let at = 0;
    for (const edit of sorted) {
      text += file.text.slice(at, edit.range[0]) + edit.text;
      at = edit.range[1];
    }
    out.set(real, { file, text: text + file.text.slice(at) });
  }
  return out;
}
