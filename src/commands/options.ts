import type { LanguageId } from '../core/language.js';
import type { FixType } from '../fix/apply.js';
import type { FormatName } from '../formatters/index.js';

/** The lint command's options as commander hands them over. */
export interface LintCommandOptions {
  readonly format: FormatName;
  readonly fix: boolean;
  readonly fixType: FixType;
  readonly verify: boolean;
  readonly hostRam?: string;
  readonly hostCpus?: string;
  readonly perChild?: string;
  readonly phpPerChild?: string;
  readonly profile?: string;
  readonly facts?: string;
  readonly probe: boolean;
  readonly live: boolean;
  readonly mysqlDefaultsFile?: string;
  /** `--live-read-time`: how long the running database's tables may take to read. */
  readonly liveReadTime?: string;
  /** `--min-uptime`: every runtime rule's minUptime. */
  readonly minUptime?: string;
  readonly sysroot?: string;
  readonly sysrootAt?: string;
  readonly target?: string;
  readonly config?: string;
  readonly rule: readonly string[];
  readonly maxWarnings?: number;
  readonly quiet: boolean;
  /** `--no-patch`: false to leave the suggested patch out of the stylish report. */
  readonly patch: boolean;
  readonly color: boolean;
  readonly lang?: LanguageId;
  readonly printConfig?: string;
  readonly includeBase?: string;
  readonly serverRoot?: string;
  readonly define: readonly string[];
  readonly env: readonly string[];
  readonly envFile: readonly string[];
  readonly maxFileSize?: string;
  readonly maxFiles?: number;
  readonly maxInputSize?: string;
  readonly maxLines?: number;
  readonly debug: boolean;
}
