import type { HostFacts } from '../host/facts.js';
import type { Diagnostic } from '../engine/types.js';
import type { FormatInput, Formatter, UnitOutcome } from './types.js';
import { filePatch, visibleDiagnostics } from './shared.js';

/**
 * DESIGN §6: `{ version, host, results: [{ file, language, diagnostics, patch? }] }`,
 * keys in a fixed order, no timestamps, so two runs on the same input print
 * the same bytes. With several hosts, `hosts` lists them and each result
 * names its host.
 */
export const formatJson: Formatter = (input) => {
  const several = input.units.length > 1;
  const results = input.units.flatMap((unit) => unitResults(unit, input, several));
  const head = several
    ? { version: 1, hosts: input.units.map((unit) => ({ name: unit.label ?? null, facts: factsJson(unit.result.host) })) }
    : { version: 1, host: factsJson(input.units[0]?.result.host ?? {}) };
  return `${JSON.stringify({ ...head, results }, null, 2)}\n`;
};

function unitResults(unit: UnitOutcome, input: FormatInput, several: boolean): object[] {
  const byFile = new Map(unit.result.files.map((file) => [file, [] as Diagnostic[]]));
  for (const diagnostic of visibleDiagnostics(unit.result.diagnostics, input.quiet)) byFile.get(diagnostic.file)?.push(diagnostic);
  const seen = new Set<string>();
  const out: object[] = [];
  for (const [file, diagnostics] of byFile) {
    if (seen.has(file.path)) continue;
    seen.add(file.path);
    const patch = filePatch(input.patch, file.patchPath);
    out.push({
      file: file.displayPath,
      language: unit.result.languages.get(file) ?? 'apache',
      ...(several ? { host: unit.label ?? null } : {}),
      diagnostics: diagnostics.map(diagnosticJson),
      ...(patch === '' ? {} : { patch }),
    });
  }
  return out;
}

export function diagnosticJson(diagnostic: Diagnostic): object {
  return {
    ruleId: diagnostic.ruleId,
    ruleName: diagnostic.ruleName,
    severity: diagnostic.severity,
    message: diagnostic.message,
    file: diagnostic.file.displayPath,
    line: diagnostic.start.line,
    column: diagnostic.start.column,
    endLine: diagnostic.end.line,
    endColumn: diagnostic.end.column,
    ...(diagnostic.context.length === 0 ? {} : { context: diagnostic.context }),
    ...(diagnostic.fix === undefined
      ? {}
      : {
          fix: {
            kind: diagnostic.fix.kind,
            edits: diagnostic.fix.edits.map((edit) => ({ file: edit.file.displayPath, range: [edit.range[0], edit.range[1]], text: edit.text })),
          },
        }),
  };
}

export function factsJson(facts: HostFacts): object {
  const out: Record<string, unknown> = {};
  for (const [name, fact] of Object.entries(facts)) {
    if (name === 'notes') continue;
    out[name] = fact;
  }
  if (facts.notes !== undefined) out['notes'] = facts.notes;
  return out;
}
