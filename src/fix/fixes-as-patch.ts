import type { LintResult } from '../engine/result.js';
import type { Diagnostic, TextEdit } from '../engine/types.js';
import { withoutFix } from './apply.js';
import { changedLineRegions } from './patch.js';

/**
 * The findings with fixes that are exactly the patch, for the outputs that
 * carry fixes (JSON, SARIF): a consumer applying every fix writes what the
 * patch writes. A finding's own fix is its first pass's edits; later passes
 * may change the same lines again (`set-variable = key_buffer=16M` becomes
 * `key_buffer = 16M`, then `key_buffer_size = 16M`), and --verify, TL0009 or
 * --fix-type may leave it out of the patch. So, for each run of lines the
 * patch changes: when the edits that touch it give its new text, they stay
 * as they are; otherwise the first finding touching it carries the run's new
 * text, and the others nothing there; a run no first-pass edit touches goes
 * to {@link ownerOfLaterChange}. An edit that touches nothing the patch
 * changes is gone.
 */
export function fixesAsPatch(result: LintResult): Diagnostic[] {
  const kept = new Map<Diagnostic, TextEdit[]>();
  const keep = (diagnostic: Diagnostic, edit: TextEdit): void => {
    const edits = kept.get(diagnostic);
    if (edits === undefined) kept.set(diagnostic, [edit]);
    else edits.push(edit);
  };
  const fixable = result.diagnostics.filter((diagnostic) => diagnostic.fix !== undefined);
  const touchingByFile = editsByFile(fixable);
  for (const file of result.fixes) {
    const touching = touchingByFile.get(file.file.realPath) ?? [];
    for (const region of changedLineRegions(file.before, file.after)) {
      const here = touching.filter(({ edit }) => touches(edit.range, region));
      const replacement: TextEdit = { file: file.file, range: [region.start, region.end], text: region.text };
      const first = here[0];
      if (first === undefined) {
        // Written by a later pass only (a follow-up, a deferred tune fix): carried by the finding that led there.
        const owner = ownerOfLaterChange(touching, fixable);
        if (owner !== undefined) keep(owner, replacement);
      } else if (
        applied(
          file.before,
          region,
          here.map(({ edit }) => edit),
        ) === region.text
      ) {
        for (const { diagnostic, edit } of here) keep(diagnostic, edit);
      } else {
        keep(first.diagnostic, replacement);
      }
    }
  }
  return result.diagnostics.map((diagnostic) => {
    if (diagnostic.fix === undefined) return diagnostic;
    const edits = kept.get(diagnostic);
    if (edits === undefined) return withoutFix(diagnostic);
    return edits.length === diagnostic.fix.edits.length && edits.every((edit, index) => edit === diagnostic.fix?.edits[index])
      ? diagnostic
      : { ...diagnostic, fix: { ...diagnostic.fix, edits } };
  });
}

/**
 * The finding a change no first-pass fix touches belongs to: one whose fix
 * waits for the others (HO2001 sizes against the patched configs), else the
 * first with a fix in that file, else the first with a fix at all (a follow-up
 * may land in another file, and a fix's edits may span files).
 */
function ownerOfLaterChange(touching: readonly TouchingEdit[], fixable: readonly Diagnostic[]): Diagnostic | undefined {
  return touching.find(({ diagnostic }) => diagnostic.fix?.deferred === true)?.diagnostic ?? touching[0]?.diagnostic ?? fixable[0];
}

interface TouchingEdit {
  readonly diagnostic: Diagnostic;
  readonly edit: TextEdit;
}

/**
 * The findings' edits by the real path of their file, in the findings' order:
 * looked for among every finding for each file changed, a patch of 10,000
 * files (an EnableMMAP Off for each vhost on NFS) took 6 s.
 */
function editsByFile(fixable: readonly Diagnostic[]): Map<string, TouchingEdit[]> {
  const byFile = new Map<string, TouchingEdit[]>();
  for (const diagnostic of fixable) {
    for (const edit of diagnostic.fix?.edits ?? []) {
      const list = byFile.get(edit.file.realPath);
      if (list === undefined) byFile.set(edit.file.realPath, [{ diagnostic, edit }]);
      else list.push({ diagnostic, edit });
    }
  }
  return byFile;
}

/** An edit touches a region it overlaps, or, inserting, one it lands inside or at the edge of. */
function touches([start, end]: readonly [number, number], region: { readonly start: number; readonly end: number }): boolean {
  return start === end ? start >= region.start && start <= region.end : start < region.end && end > region.start;
}

/** The region's old text with the edits applied, or undefined when they overlap or reach outside it. */
function applied(before: string, region: { readonly start: number; readonly end: number }, edits: readonly TextEdit[]): string | undefined {
  const sorted = [...edits].sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]);
  let text = '';
  let at = region.start;
  for (const edit of sorted) {
    if (edit.range[0] < at || edit.range[1] > region.end) return undefined;
    text += before.slice(at, edit.range[0]) + edit.text;
    at = edit.range[1];
  }
  return text + before.slice(at, region.end);
}
