import type { SourceFile } from '../engine/source-file.js';
import type { Diagnostic, Severity, TextEdit } from '../engine/types.js';
import { docsUrl } from '../docs-url.js';
import { visibleDiagnostics } from './shared.js';
import type { Formatter } from './types.js';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warn: 'warning', info: 'note' };

/**
 * SARIF 2.1.0 for code scanning: rules from the catalogue's metadata (with
 * help URIs to the versioned docs), results with relative URIs, and `fixes`
 * built from the same text edits the patch is made of.
 */
export const formatSarif: Formatter = (input) => {
  const rules = [...input.rules].sort((a, b) => (a.id < b.id ? -1 : 1));
  const index = new Map(rules.map((rule, i) => [rule.id, i]));
  const results = input.units.flatMap((unit) =>
    visibleDiagnostics(unit.result.diagnostics, input.quiet).map((diagnostic) => result(diagnostic, index.get(diagnostic.ruleId))),
  );
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'tune-lint',
            version: input.version,
            informationUri: docsUrl(input.version),
            rules: rules.map((rule) => ({
              id: rule.id,
              name: rule.name,
              shortDescription: { text: rule.description },
              helpUri: docsUrl(input.version, rule.id),
              defaultConfiguration: { level: LEVEL[rule.defaultSeverity] },
              properties: { category: rule.category, tags: [rule.category, rule.language] },
            })),
          },
        },
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
};

function region(diagnostic: { start: { line: number; column: number }; end: { line: number; column: number } }): object {
  return { startLine: diagnostic.start.line, startColumn: diagnostic.start.column, endLine: diagnostic.end.line, endColumn: diagnostic.end.column };
}

function result(diagnostic: Diagnostic, ruleIndex: number | undefined): object {
  return {
    ruleId: diagnostic.ruleId,
    ...(ruleIndex === undefined ? {} : { ruleIndex }),
    level: LEVEL[diagnostic.severity],
    message: { text: diagnostic.message },
    locations: [
      {
        physicalLocation: { artifactLocation: { uri: uri(diagnostic.file.displayPath) }, region: region(diagnostic) },
        ...(diagnostic.context.length === 0 ? {} : { message: { text: `in ${diagnostic.context.join(' > ')}` } }),
      },
    ],
    ...(diagnostic.fix === undefined
      ? {}
      : {
          fixes: [
            {
              description: { text: `${diagnostic.fix.kind} fix from ${diagnostic.ruleId}` },
              artifactChanges: groupByFile(diagnostic.fix.edits).map(([file, edits]) => ({
                artifactLocation: { uri: uri(file.displayPath) },
                replacements: edits.map((edit) => ({
                  deletedRegion: region({ start: file.position(edit.range[0]), end: file.position(edit.range[1]) }),
                  insertedContent: { text: edit.text },
                })),
              })),
            },
          ],
        }),
  };
}

function groupByFile(edits: readonly TextEdit[]): [SourceFile, TextEdit[]][] {
  const groups = new Map<SourceFile, TextEdit[]>();
  for (const edit of edits) {
    const list = groups.get(edit.file);
    if (list === undefined) groups.set(edit.file, [edit]);
    else list.push(edit);
  }
  return [...groups];
}

/** A relative URI reference: path segments percent-encoded, `/` kept. */
function uri(displayPath: string): string {
  return displayPath.split('/').map(encodeURIComponent).join('/');
}
