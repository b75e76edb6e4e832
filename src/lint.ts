import { UserError } from './util/user-error.js';
import * as path from 'node:path';
import type { HostFacts } from './host/facts.js';
import { ConfigFileSystem, FileAccessError, type Limits } from './core/file-system.js';
import type { FixType } from './fix/apply.js';
import { runFixPasses } from './fix/passes.js';
import { lintUnit, type LintUnit, type RuleSelection } from './engine/linter.js';
import { DEFAULT_BUDGET, type Budget } from './analysis/sizing.js';
import type { SourceFile } from './core/source-file.js';
import { DEFAULT_TARGETS, type Targets } from './core/targets.js';
import type { LintTimer } from './engine/timing.js';
import type { Language } from './engine/types.js';
import { detectLanguage, languageFromName } from './languages/detect.js';
import { phpConfigKind } from './languages/foreign.js';
import { ApacheConfig, loadApache, type GivenEnvironment } from './languages/apache/model.js';
import { loadMycnf, type MycnfConfig } from './languages/mycnf/model.js';
import { loadPhpFpm, type PhpFpmConfig } from './languages/phpfpm/model.js';
import type { LintResult } from './engine/result.js';

export { MAX_FIX_PASSES } from './fix/passes.js';

export interface LintInput {
  /** Main config files: apache2.conf/httpd.conf and my.cnf; included files are found from them. */
  readonly paths: readonly string[];
  readonly cwd?: string;
  readonly sysroot?: string;
  /** The server path the sysroot holds (`/etc/httpd` for a repository of its files); `/` when not given. */
  readonly sysrootAt?: string;
  /** Forces the language of every path (`--lang`). */
  readonly language?: Language;
  readonly targets?: Targets;
  readonly host?: HostFacts;
  readonly budget?: Partial<Budget>;
  readonly rules: RuleSelection;
  /** Which fixes to compute; 'none' skips the fix passes. */
  readonly fixType?: FixType | 'none';
  readonly limits?: Partial<Limits>;
  readonly apache?: { readonly serverRoot?: string; readonly defines?: readonly string[]; readonly env?: readonly GivenEnvironment[] };
  /**
   * Base directory for relative `!include` paths (the server resolves them
   * against its working directory): a path on this disk, which under a
   * sysroot is taken as the server path it stands for.
   */
  readonly includeBase?: string;
  /**
   * Asks the running servers (src/live) once the configs are read, since the
   * login and the status page come from them; what it returns joins the host
   * facts. The CLI gives it on a probed host unless --no-live.
   */
  readonly askServers?: (configs: LoadedConfigs) => Promise<HostFacts>;
  /** Collects where the time went, per rule and reading the configs (the CLI's TIMING). */
  readonly timer?: LintTimer;
}

export type { FileFix, LintResult } from './engine/result.js';

/** The configs of one host as read, for askServers. */
export interface LoadedConfigs {
  readonly apache: readonly ApacheConfig[];
  readonly mycnf: MycnfConfig | undefined;
  readonly phpfpm: readonly PhpFpmConfig[];
}

/** A problem with the input itself (a main file that cannot be read): exit code 2. */
class InputError extends UserError {}

interface Loaded {
  readonly apache: ApacheConfig[];
  readonly mycnf: MycnfConfig | undefined;
  readonly phpfpm: PhpFpmConfig[];
  readonly files: SourceFile[];
  readonly languages: Map<SourceFile, Language>;
  readonly guessedLanguages: { readonly file: SourceFile; readonly language: Language }[];
  /** The language each main file given was read as, by its absolute path. */
  readonly mainLanguages: Map<string, Language>;
}

/**
 * Lints the configs of one host together: reads every main file and what it
 * includes, runs the rules, and computes the fixes in passes (apply the
 * non-overlapping ones, re-read, re-lint) until nothing changes.
 */
export async function lint(input: LintInput): Promise<LintResult> {
  const cwd = input.cwd ?? process.cwd();
  const fs = new ConfigFileSystem({
    sysroot: input.sysroot,
    sysrootAt: input.sysrootAt,
    cwd,
    ...(input.limits === undefined ? {} : { limits: input.limits }),
  });
  const targets = input.targets ?? DEFAULT_TARGETS;
  const given = input.host ?? {};
  const budget = { ...DEFAULT_BUDGET, ...input.budget };
  const { timer } = input;
  const load = (view: ConfigFileSystem, previous?: Loaded): Loaded =>
    timer === undefined ? loadAll(input, view, targets, cwd, previous) : timer.reading(() => loadAll(input, view, targets, cwd, previous));
  const unitOf = (loaded: Loaded): LintUnit => ({
    apache: loaded.apache,
    mycnf: loaded.mycnf,
    phpfpm: loaded.phpfpm,
    host,
    targets,
    budget,
  });
  const first = load(fs);
  const host = input.askServers === undefined ? given : withLiveFacts(given, await input.askServers(first));
  const initial = lintUnit(unitOf(first), input.rules, { timer });
  const fixed = runFixPasses({
    first,
    initial,
    rules: input.rules,
    fixType: input.fixType ?? 'all',
    reload: (overlay, previous) => load(fs.withOverlay(overlay), previous),
    relint: (loaded, before) => lintUnit(unitOf(loaded), input.rules, { fixesOnly: true, timer, before }),
  });
  return {
    diagnostics: fixed.diagnostics,
    files: first.files,
    languages: first.languages,
    guessedLanguages: first.guessedLanguages,
    host,
    sizing: initial.sizing,
    sizingAfter: fixed.sizingAfter,
    fixes: fixed.fixes,
    passes: fixed.passes,
    followUps: fixed.followUps,
    configs: { apache: first.apache, mycnf: first.mycnf, phpfpm: first.phpfpm },
  };
}

/** The host facts with what the servers said; their notes are kept apart, for the report's Live servers section. */
function withLiveFacts(host: HostFacts, live: HostFacts): HostFacts {
  const { notes, ...facts } = live;
  return { ...host, ...facts, ...(notes === undefined ? {} : { liveNotes: [...(host.liveNotes ?? []), ...notes] }) };
}

/**
 * Reads the configs through `fs`. A fix pass gives the configs of the pass
 * before: an Apache config whose changed files keep their structure is
 * rebased on it instead of walked again (on 10,000 vhosts, most of a pass),
 * and an option-file config none of whose files changed is kept.
 */
function loadAll(input: LintInput, fs: ConfigFileSystem, targets: Targets, cwd: string, previous: Loaded | undefined): Loaded {
  const loaded = {
    apache: [] as ApacheConfig[],
    mycnf: undefined as MycnfConfig | undefined,
    phpfpm: [] as PhpFpmConfig[],
    files: [] as SourceFile[],
    languages: new Map<SourceFile, Language>(),
    guessedLanguages: [] as { readonly file: SourceFile; readonly language: Language }[],
    mainLanguages: new Map<string, Language>(),
  };
  const record = (entries: readonly { readonly source: SourceFile }[], language: Language): void => {
    for (const entry of entries) {
      loaded.files.push(entry.source);
      loaded.languages.set(entry.source, language);
    }
  };
  for (const given of input.paths) {
    const hostPath = path.resolve(cwd, given);
    try {
      // A fix pass reads each main file as the language its first read found: the fixes were made for that
      // reading, and telling the language again (the php-fpm and php.ini checks go through every line of
      // the main file) was 0.8 M of the stock Debian lint's instructions.
      const language = previous?.mainLanguages.get(hostPath) ?? languageOf(input, fs, hostPath);
      loaded.mainLanguages.set(hostPath, language);
      const guessed = input.language === undefined && languageFromName(hostPath) !== language;
      if (language === 'apache') {
        const config = readApache(input, fs, targets, hostPath, previous);
        loaded.apache.push(config);
        record(config.files, 'apache');
        if (guessed) loaded.guessedLanguages.push({ file: config.root, language });
      } else if (language === 'phpfpm') {
        const config = loadPhpFpm(hostPath, fs);
        loaded.phpfpm.push(config);
        record(config.files, 'phpfpm');
        if (guessed) loaded.guessedLanguages.push({ file: config.root, language });
      } else {
        if (loaded.mycnf !== undefined)
          throw new InputError(`${given}: only one my.cnf can be linted per host; ${loaded.mycnf.root.displayPath} is already given`);
        loaded.mycnf = readMycnf(input, fs, targets, hostPath, previous);
        record(loaded.mycnf.files, 'mycnf');
        if (guessed) loaded.guessedLanguages.push({ file: loaded.mycnf.root, language });
      }
    } catch (error) {
      if (error instanceof FileAccessError) throw new InputError(error.message);
      throw error;
    }
  }
  return loaded;
}

/** The language a main file is read as: --lang, its name, or its first lines (php-fpm's pools are found by their keys); php.ini is refused. */
function languageOf(input: LintInput, fs: ConfigFileSystem, hostPath: string): Language {
  if (input.language !== undefined) return input.language;
  const start = peek(fs, hostPath);
  const php = start === undefined ? undefined : phpConfigKind(start);
  if (php !== undefined && 'refused' in php) {
    throw new InputError(
      `${fs.display(hostPath)}: ${php.refused}; tune-lint reads Apache httpd configs, MySQL/MariaDB option files and php-fpm pools, not this one (--lang apache, mycnf or phpfpm reads it as one of them anyway)`,
    );
  }
  return php?.language ?? languageFromName(hostPath) ?? detectLanguage(hostPath, start);
}

function readApache(
  input: LintInput,
  fs: ConfigFileSystem,
  targets: Targets,
  hostPath: string,
  previous: Loaded | undefined,
): ApacheConfig {
  const earlier = previous?.apache.find((config) => config.root.path === hostPath);
  const rebased = earlier === undefined ? undefined : ApacheConfig.rebased(earlier, fs);
  return (
    rebased ??
    loadApache(hostPath, {
      fs,
      httpd: targets.httpd,
      ...(input.apache?.serverRoot === undefined ? {} : { serverRoot: input.apache.serverRoot }),
      ...(input.apache?.defines === undefined ? {} : { defines: input.apache.defines }),
      ...(input.apache?.env === undefined ? {} : { givenEnv: input.apache.env }),
    })
  );
}

function readMycnf(input: LintInput, fs: ConfigFileSystem, targets: Targets, hostPath: string, previous: Loaded | undefined): MycnfConfig {
  // The reader turns an unreadable file into a problem, as the server skips one; a main file given that cannot be read is an input error, as for Apache.
  fs.read(hostPath);
  const earlier = previous?.mycnf;
  if (earlier !== undefined && readsTheSame(earlier.files, fs)) return earlier;
  return loadMycnf(hostPath, {
    fs,
    target: targets.db,
    ...(input.includeBase === undefined ? {} : { includeBase: fs.serverPath(input.includeBase) }),
  });
}

/**
 * Whether every file a config read reads the same through `fs`. A fix pass
 * changes only texts of files that were read, so then reading the config
 * again would give the same config: a pass that fixed only Apache keeps the
 * option files' config as it is.
 */
function readsTheSame(files: readonly { readonly source: SourceFile }[], fs: ConfigFileSystem): boolean {
  for (const { source } of files) {
    let current: SourceFile;
    try {
      current = fs.read(source.path, source.displayPath);
    } catch {
      return false;
    }
    if (current !== source && current.text !== source.text) return false;
  }
  return true;
}

function peek(fs: ConfigFileSystem, hostPath: string): string | undefined {
  try {
    return fs.read(hostPath).text.slice(0, 64 * 1024);
  } catch {
    return undefined;
  }
}
