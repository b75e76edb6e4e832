import { pathToFileURL } from 'node:url';
import { diffLines } from 'diff';
import {
  DiagnosticSeverity,
  type Diagnostic as LspDiagnostic,
  type Position as LspPosition,
  type Range as LspRange,
  type TextEdit as LspTextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver';
import type { SourceFile } from '../core/source-file.js';
import type { Diagnostic, Severity, TextEdit } from '../engine/types.js';
import type { Range } from '../core/range.js';

/** Where the editor has a file: the URI of the document open on it (a symlink's path, as opened), else the file behind any symlinks. */
export type UriOf = (file: SourceFile) => string;

export function realUri(file: SourceFile): string {
  return pathToFileURL(file.realPath).href;
}

/**
 * An offset of a file as an editor position: 0-based, in UTF-16 code units
 * as tune-lint counts. Editors drop a UTF-8 byte order mark from the text
 * they show, which tune-lint keeps as the file's first character.
 */
function lspPosition(file: SourceFile, offset: number): LspPosition {
  const { line, column } = file.position(offset);
  const bom = line === 1 && file.text.charCodeAt(0) === 0xfeff ? 1 : 0;
  return { line: line - 1, character: Math.max(0, column - 1 - bom) };
}

export function lspRange(file: SourceFile, range: Range): LspRange {
  return { start: lspPosition(file, range[0]), end: lspPosition(file, range[1]) };
}

const SEVERITIES: Readonly<Record<Severity, DiagnosticSeverity>> = {
  error: DiagnosticSeverity.Error,
  warn: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

/** A finding as the editor shows it: the rule id as its code, linked to the rule's page, the arithmetic as related information. */
export function lspDiagnostic(diagnostic: Diagnostic, rulePage: (ruleId: string) => string, uriOf: UriOf): LspDiagnostic {
  const range = lspRange(diagnostic.file, diagnostic.range);
  const context = diagnostic.context.length === 0 ? '' : ` (in ${diagnostic.context.join(' ')})`;
  return {
    range,
    severity: SEVERITIES[diagnostic.severity],
    code: diagnostic.ruleId,
    codeDescription: { href: rulePage(diagnostic.ruleId) },
    source: 'tune-lint',
    message: `${diagnostic.message}${context}`,
    ...(diagnostic.detail === undefined
      ? {}
      : { relatedInformation: [{ location: { uri: uriOf(diagnostic.file), range }, message: diagnostic.detail }] }),
  };
}

/** A fix's edits, file by file, as one workspace edit. */
export function workspaceEdit(edits: readonly TextEdit[], uriOf: UriOf): WorkspaceEdit {
  const changes: Record<string, LspTextEdit[]> = {};
  for (const edit of edits) (changes[uriOf(edit.file)] ??= []).push({ range: lspRange(edit.file, edit.range), newText: edit.text });
  return { changes };
}

/** The edits that turn a file's text into the text a fix writes, one per changed run of lines. */
export function editsBetween(file: SourceFile, after: string): TextEdit[] {
  const edits: TextEdit[] = [];
  let offset = 0;
  let pending: { start: number; end: number; text: string } | undefined;
  const flush = (): void => {
    if (pending !== undefined) edits.push({ file, range: [pending.start, pending.end], text: pending.text });
    pending = undefined;
  };
  for (const part of diffLines(file.text, after)) {
    if (part.added) {
      pending ??= { start: offset, end: offset, text: '' };
      pending.text += part.value;
    } else if (part.removed) {
      pending ??= { start: offset, end: offset, text: '' };
      offset += part.value.length;
      pending.end = offset;
    } else {
      flush();
      offset += part.value.length;
    }
  }
  flush();
  return edits;
}
