import type { SourceFile } from './source-file.js';
import type { Range, Severity } from './types.js';

/**
 * A finding of a reader (parser, include resolution, effective model) rather
 * than of a rule module. The linter reports it under `ruleId`, so it can be
 * configured and disabled like any rule.
 */
export interface ConfigProblem {
  readonly ruleId: string;
  readonly severity: Severity;
  readonly message: string;
  readonly file: SourceFile;
  readonly range: Range;
  readonly context?: readonly string[];
}
