import type { Range } from './range.js';
import type { SourceFile } from './source-file.js';

/**
 * The text and file vocabulary every layer shares: where something is in a
 * file, how bad a finding is, which config language a file is in, an edit.
 */

export type Severity = 'error' | 'warn' | 'info';

export type { Position, Range } from './range.js';

/** Something that lives at a place in a file: a CST node, an argument, a value. */
export interface Located {
  readonly file: SourceFile;
  readonly range: Range;
}

export interface TextEdit {
  readonly file: SourceFile;
  readonly range: Range;
  readonly text: string;
}

/** Variables for `${VAR}` from one source: `--env`, `--env-file docker.env`. */
export interface GivenEnvironment {
  readonly source: string;
  readonly values: Readonly<Record<string, string>>;
}
