import type { SourceFile } from '../core/source-file.js';
import type { Diagnostic, Fix, FixKind, TextEdit } from '../engine/types.js';

export type FixType = FixKind | 'all';

function fixAllowed(kind: FixKind, fixType: FixType): boolean {
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
  const ready = allowed.some((diagnostic) => diagnostic.fix?.deferred !== true)
    ? allowed.filter((diagnostic) => diagnostic.fix?.deferred !== true)
    : allowed;
  const taken: Fix[] = [];
  const byFile = new Map<string, TextEdit[]>();
  const takenIn = (file: SourceFile): TextEdit[] => {
    let list = byFile.get(file.realPath);
    if (list === undefined) {
      list = [];
      byFile.set(file.realPath, list);
    }
    return list;
  };
  for (const diagnostic of ready) {
    const fix = diagnostic.fix;
    if (fix === undefined) continue;
    if (selfOverlapping(fix.edits) || !fix.edits.every(inBounds) || fix.edits.some((edit) => clashes(takenIn(edit.file), edit))) continue;
    taken.push(fix);
    for (const edit of fix.edits) {
      const list = takenIn(edit.file);
      list.splice(firstStartingAtOrAfter(list, edit), 0, edit);
    }
  }
  return taken;
}

/**
 * Whether an edit overlaps one already taken in its file. The taken edits
 * are kept sorted by start and never overlap one another, so only the one
 * just before the edit's start and those starting inside it can: a binary
 * search, not a scan, since a pass may take one fix per line of a large
 * file (250,000 of them were minutes of comparisons).
 */
function clashes(taken: readonly TextEdit[], edit: TextEdit): boolean {
  const at = firstStartingAtOrAfter(taken, edit);
  const before = taken[at - 1];
  if (before !== undefined && overlaps(edit, before)) return true;
  for (let index = at; index < taken.length; index++) {
    const other = taken[index] as TextEdit;
    if (other.range[0] >= edit.range[1] && other.range[0] !== edit.range[0]) return false;
    if (overlaps(edit, other)) return true;
  }
  return false;
}

/** The index of the first edit starting at or after this one's start (then end): where it would be inserted. */
function firstStartingAtOrAfter(sorted: readonly TextEdit[], edit: TextEdit): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const other = (sorted[middle] as TextEdit).range;
    if (other[0] < edit.range[0] || (other[0] === edit.range[0] && other[1] < edit.range[1])) low = middle + 1;
    else high = middle;
  }
  return low;
}

function overlaps(a: TextEdit, b: TextEdit): boolean {
  if (a.range[0] === a.range[1] && b.range[0] === b.range[1]) return a.range[0] === b.range[0];
  return (a.range[0] < b.range[1] && b.range[0] < a.range[1]) || a.range[0] === b.range[0];
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
  const sorted = [...edits].sort((a, b) =>
    a.file.realPath < b.file.realPath ? -1 : a.file.realPath > b.file.realPath ? 1 : a.range[0] - b.range[0] || a.range[1] - b.range[1],
  );
  let furthest = 0;
  for (const [index, edit] of sorted.entries()) {
    const previous = sorted[index - 1];
    if (previous?.file.realPath !== edit.file.realPath) {
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

/** The finding without its fix, for a fix that is left out of the patch. */
export function withoutFix(diagnostic: Diagnostic): Diagnostic {
  const { fix: _dropped, ...rest } = diagnostic;
  return rest;
}
