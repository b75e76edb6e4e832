import type { BudgetPicture } from '../analysis/budget.js';
import type { Sizing } from '../analysis/sizing.js';
import type { HostFacts } from '../core/host-facts.js';
import type { ConfigSet, LanguageId } from '../core/language.js';
import type { SourceFile } from '../core/source-file.js';
import type { Diagnostic } from './types.js';

/** What linting one host's configs gives: the findings, the files read, the fixes as whole new texts, the sizing. */
export interface FileFix {
  readonly file: SourceFile;
  readonly before: string;
  readonly after: string;
}

export interface LintResult {
  readonly diagnostics: readonly Diagnostic[];
  /** Every file read, main files first, each followed by what it includes. */
  readonly files: readonly SourceFile[];
  readonly languages: ReadonlyMap<SourceFile, LanguageId>;
  /** Main files whose language neither --lang nor the name gave: read as this from their first lines, and how that was told. */
  readonly guessedLanguages: readonly { readonly file: SourceFile; readonly language: LanguageId; readonly how: string }[];
  /** What the readers took for granted that nothing named (the database server's product and version), one sentence each. */
  readonly assumptions: readonly string[];
  readonly host: HostFacts;
  readonly sizing: Sizing;
  /** The sizing model over the fixed configs, when fixes changed anything. */
  readonly sizingAfter: Sizing | undefined;
  /** The memory picture, before the patch and after it; undefined without RAM. */
  readonly budget: BudgetPicture | undefined;
  readonly fixes: readonly FileFix[];
  /** Fix passes that ran (0 when nothing was fixable). */
  readonly passes: number;
  /**
   * Findings that appear only once earlier fixes are in (ServerLimit far above
   * the MaxRequestWorkers a sizing fix just lowered), whose fixes the patch
   * also carries; positions are in the text of the pass that found them.
   */
  readonly followUps: readonly Diagnostic[];
  /** The configs as read, for checking the fixes with the real servers (--verify). */
  readonly configs: ConfigSet;
  /**
   * After --verify: the checks that read the patched files and found no new
   * problem, e.g. `apache2 -t on etc/apache2/apache2.conf`.
   */
  readonly verifiedBy?: readonly string[];
}
