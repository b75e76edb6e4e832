import type { Diagnostic } from '../engine/types.js';

export function visibleDiagnostics(diagnostics: readonly Diagnostic[], quiet: boolean): Diagnostic[] {
  return quiet ? diagnostics.filter((diagnostic) => diagnostic.severity === 'error') : [...diagnostics];
}

export interface Counts {
  error: number;
  warn: number;
  info: number;
  fixable: { safe: number; tune: number };
}

export function countDiagnostics(diagnostics: readonly Diagnostic[]): Counts {
  const counts: Counts = { error: 0, warn: 0, info: 0, fixable: { safe: 0, tune: 0 } };
  for (const diagnostic of diagnostics) {
    counts[diagnostic.severity]++;
    if (diagnostic.fix !== undefined) counts.fixable[diagnostic.fix.kind]++;
  }
  return counts;
}
