import type * as Sarif from 'sarif';
import type { SourceFile } from '../core/source-file.js';
import type { Diagnostic, Position, RuleMeta, Severity, TextEdit } from '../engine/types.js';
import { docsUrl } from '../docs-url.js';
import { visibleDiagnostics } from './shared.js';
import { LazyList, writeJson } from '../util/streamed-output.js';
import { collected, type StreamingFormatter } from './types.js';

const LEVEL: Record<Severity, Sarif.ReportingConfiguration.level> = { error: 'error', warn: 'warning', info: 'note' };

/**
 * SARIF 2.1.0 for code scanning: one run whose driver lists the catalogue
 * (help URIs to the docs of this version), results with URIs relative to the
 * working directory (the repository root in CI) and regions in 1-based
 * UTF-16 columns, end exclusive, and `fixes` built from the same text edits
 * the patch is made of.
 */
export const writeSarifReport: StreamingFormatter = (input, write) => {
  const rules = [...input.rules].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const index = new Map(rules.map((rule, i) => [rule.id, i]));
  // Made one at a time as they are written; to JSON.stringify it is the array of results.
  const results = new LazyList(function* () {
    for (const unit of input.units) {
      for (const diagnostic of visibleDiagnostics(unit.result.diagnostics, input.quiet))
        yield result(diagnostic, index.get(diagnostic.ruleId));
    }
  }) as unknown as Sarif.Result[];
  const log: Sarif.Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'tune-lint',
            version: input.version,
            semanticVersion: input.version,
            informationUri: docsUrl(input.version),
            rules: rules.map((rule) => descriptor(rule, input.version)),
          },
        },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
  // The one run as a lazy list too, so the results inside it are written as they are made.
  writeJson({ ...log, runs: new LazyList(() => log.runs) }, write);
  write('\n');
};

export const formatSarif = collected(writeSarifReport);

function descriptor(rule: RuleMeta, version: string): Sarif.ReportingDescriptor {
  return {
    id: rule.id,
    name: rule.name,
    shortDescription: { text: rule.description },
    helpUri: docsUrl(version, rule.id),
    defaultConfiguration: { level: LEVEL[rule.defaultSeverity] },
    properties: { category: rule.category, tags: [rule.category, rule.language] },
  };
}

function result(diagnostic: Diagnostic, ruleIndex: number | undefined): Sarif.Result {
  const location: Sarif.Location = {
    physicalLocation: { artifactLocation: { uri: uri(diagnostic.file.displayPath) }, region: region(diagnostic.start, diagnostic.end) },
  };
  if (diagnostic.context.length > 0) location.message = { text: `in ${diagnostic.context.join(' > ')}` };
  const out: Sarif.Result = {
    ruleId: diagnostic.ruleId,
    ...(ruleIndex === undefined ? {} : { ruleIndex }),
    level: LEVEL[diagnostic.severity],
    // SARIF viewers show the text; the markdown adds the detail (GitHub code scanning shows it in the alert).
    message:
      diagnostic.detail === undefined
        ? { text: diagnostic.message }
        : { text: diagnostic.message, markdown: `${diagnostic.message}\n\n${diagnostic.detail}` },
    locations: [location],
  };
  if (diagnostic.fix !== undefined) {
    out.fixes = [
      {
        description: { text: `${diagnostic.fix.kind} fix from ${diagnostic.ruleId} ${diagnostic.ruleName}` },
        artifactChanges: groupByFile(diagnostic.fix.edits).map(([file, edits]) => ({
          artifactLocation: { uri: uri(file.displayPath) },
          replacements: edits.map((edit) => ({
            deletedRegion: region(file.position(edit.range[0]), file.position(edit.range[1])),
            insertedContent: { text: edit.text },
          })),
        })),
      },
    ];
  }
  return out;
}

function region(start: Position, end: Position): Sarif.Region {
  return { startLine: start.line, startColumn: start.column, endLine: end.line, endColumn: end.column };
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

/**
 * A relative URI reference for a path under the working directory (segments
 * percent-encoded, `/` kept), a `file:` URI for one outside it.
 */
function uri(displayPath: string): string {
  const encoded = displayPath.split('/').map(encodeURIComponent).join('/');
  return displayPath.startsWith('/') ? `file://${encoded}` : encoded;
}
