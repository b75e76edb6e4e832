import type { SourceFile } from '../core/source-file.js';
import type { Diagnostic, Range } from './types.js';

/**
 * Inline control on a line of its own (Apache has no trailing comments):
 * `# tune-lint-disable-next-line AP2001, MY4001 -- reason`,
 * `# tune-lint-disable AP2001` ... `# tune-lint-enable AP2001`, and the same
 * without ids for every rule. Ids and rule names are both accepted.
 */
export interface DisableDirective {
  readonly kind: 'disable' | 'enable' | 'disable-next-line';
  /** Lower-case rule ids or names; empty means every rule. */
  readonly rules: readonly string[];
  readonly line: number;
  readonly range: Range;
}

const COMMENT = /^[ \t]*[#;][ \t]*tune-lint-(disable-next-line|disable|enable)\b([^\r\n]*)/gm;
const PREFIX = 'tune-lint-';

function findDisableDirectives(file: SourceFile): DisableDirective[] {
  if (!namesDirective(file.text)) return [];
  const found: DisableDirective[] = [];
  for (const match of file.text.matchAll(COMMENT)) {
    const start = match.index;
    const body = (match[2] ?? '').split(/\s--\s|\s--$/)[0] ?? '';
    const rules = body
      .split(/[\s,]+/)
      .map((rule) => rule.trim().toLowerCase())
      .filter((rule) => rule !== '');
    found.push({
      kind: match[1] as DisableDirective['kind'],
      rules,
      line: file.position(start).line,
      range: [start + (match[0].length - match[0].trimStart().length), start + match[0].length],
    });
  }
  return found;
}

/** Whether the text has `tune-lint-disable` or `tune-lint-enable` anywhere: one scan, most files have neither. */
function namesDirective(text: string): boolean {
  for (let at = text.indexOf(PREFIX); at !== -1; at = text.indexOf(PREFIX, at + PREFIX.length)) {
    if (text.startsWith('disable', at + PREFIX.length) || text.startsWith('enable', at + PREFIX.length)) return true;
  }
  return false;
}

/**
 * Drops diagnostics covered by disable comments and returns the directives
 * that covered nothing, for TL0003. A directive names rules by id or name.
 */
export function applyDisableDirectives(
  file: SourceFile,
  diagnostics: readonly Diagnostic[],
): { kept: Diagnostic[]; unused: DisableDirective[] } {
  const directives = findDisableDirectives(file);
  if (directives.length === 0) return { kept: [...diagnostics], unused: [] };
  const used = new Set<DisableDirective>();
  const kept = diagnostics.filter((diagnostic) => {
    const covering = coveringDirective(directives, diagnostic);
    if (covering === undefined) return true;
    used.add(covering);
    return false;
  });
  return { kept, unused: directives.filter((directive) => directive.kind !== 'enable' && !used.has(directive)) };
}

function names(directive: DisableDirective, diagnostic: Diagnostic): boolean {
  return (
    directive.rules.length === 0 ||
    directive.rules.includes(diagnostic.ruleId.toLowerCase()) ||
    directive.rules.includes(diagnostic.ruleName)
  );
}

function coveringDirective(directives: readonly DisableDirective[], diagnostic: Diagnostic): DisableDirective | undefined {
  const line = diagnostic.start.line;
  let block: DisableDirective | undefined;
  for (const directive of directives) {
    if (directive.line >= line) break;
    if (!names(directive, diagnostic)) continue;
    if (directive.kind === 'disable-next-line') {
      if (directive.line === line - 1) return directive;
    } else {
      block = directive.kind === 'disable' ? directive : undefined;
    }
  }
  return block;
}
