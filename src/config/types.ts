import { UserError } from '../util/user-error.js';
import type { UserRuleSetting, Preset } from '../engine/selection.js';
import type { Budget } from '../analysis/sizing.js';
import type { Targets } from '../core/targets.js';
import type { HostFacts } from '../host/facts.js';
import type { Located } from '../host/values.js';

/** Host facts as written in a config, with positions, resolved by the host layer (src/host). */
export interface ConfigHost {
  readonly located: Located;
  /** `.tune-lint.yaml` or `.tune-lint.yaml overrides[1]`, for the facts' sources. */
  readonly source: string;
  /** The same facts, checked when the file was loaded, so a bad value fails before any config is read. */
  readonly facts: HostFacts;
}

export interface ConfigOverride {
  /** What reports call the host this override describes; defaults to its globs. */
  readonly name: string | undefined;
  readonly files: readonly string[];
  readonly host?: ConfigHost;
  readonly rules: ReadonlyMap<string, UserRuleSetting>;
  readonly targets: Partial<Targets>;
  readonly budget: Partial<Budget>;
  /** `.tune-lint.yaml:12:5`, where the override starts. */
  readonly where: string;
}

/** `.tune-lint.yaml` after validation; every part optional in the file has its default here. */
export interface ResolvedConfig {
  /** The file it came from (display path), if any. */
  readonly file: string | undefined;
  /** Directory override globs are relative to. */
  readonly base: string;
  readonly preset: Preset;
  readonly targets: Partial<Targets>;
  readonly host?: ConfigHost;
  readonly budget: Partial<Budget>;
  /** `env:`: variables httpd starts with, for `${NAME}` (as --env gives them; --env-file and --env win). */
  readonly env?: Readonly<Record<string, string>>;
  readonly rules: ReadonlyMap<string, UserRuleSetting>;
  readonly overrides: readonly ConfigOverride[];
}

/** A problem in `.tune-lint.yaml` or on the command line: one line, exit code 2. */
export class ConfigError extends UserError {}
