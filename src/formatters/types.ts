import type { FixType } from '../fix/apply.js';
import type { Diagnostic, RuleMeta } from '../engine/types.js';
import type { LintResult } from '../engine/result.js';

/** The configs of one host and what linting them found. */
export interface UnitOutcome {
  /** The host's name when a repo maps several hosts (`.tune-lint.yaml` overrides), else undefined. */
  readonly label: string | undefined;
  readonly result: LintResult;
}

export interface FormatInput {
  readonly units: readonly UnitOutcome[];
  /** The catalogue, for SARIF rule metadata. */
  readonly rules: readonly RuleMeta[];
  readonly version: string;
  readonly color: boolean;
  /** The unified diff of every fix shown (or written with --fix). */
  readonly patch: string;
  /** Each file's part of that diff, by the path the patch names it by ('' for a file it does not change): `new FilePatches(patch)`. */
  readonly patches: { of(patchPath: string): string };
  /** True when --fix wrote the patch to disk. */
  readonly wrote: boolean;
  readonly fixType: FixType;
  /** Only errors are shown (--quiet). */
  readonly quiet: boolean;
  /** Columns to wrap the report's lines to (the terminal's); unwrapped when absent. The patch is never wrapped. */
  readonly width?: number;
  /** --no-patch: the report without the suggested patch. */
  readonly noPatch?: boolean;
  /** Where a rule's page is: an installed file, else the docs of this version on the web. */
  readonly rulePage?: (ruleId: string) => string;
  /** --min-uptime: when the runtime rules' verdicts are firm, for the Live servers section; the rules' default when absent. */
  readonly minUptime?: number;
  /** After --fix wrote: what a lint of the written configs still reports. */
  readonly remaining: readonly Diagnostic[] | undefined;
}

/** A formatter turns results into the text printed on stdout; it never lints. */
export type Formatter = (input: FormatInput) => string;

/**
 * The same, handing the text on in chunks as it is made: the CLI writes a
 * large report to stdout without holding it as one string, and the items of
 * a long list are made one at a time.
 */
export type StreamingFormatter = (input: FormatInput, write: (chunk: string) => void) => void;

/** A streaming formatter's text as one string, for the library's formatters. */
export function collected(stream: StreamingFormatter): Formatter {
  return (input) => {
    const chunks: string[] = [];
    stream(input, (chunk) => chunks.push(chunk));
    return chunks.join('');
  };
}
