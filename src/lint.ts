import { UserError } from './util/user-error.js';
import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import type { HostFacts } from './core/host-facts.js';
import { Configs } from './core/config-set.js';
import { ConfigFileSystem, FileAccessError, type Limits } from './core/file-system.js';
import type {
  AnyLanguageDefinition,
  ConfigSet,
  LanguageConfig,
  LanguageDefinition,
  LanguageId,
  LanguageReaderOptions,
} from './core/language.js';
import { languageOfFile } from './core/language-of-file.js';
import type { FixType } from './fix/apply.js';
import { runFixPasses } from './fix/passes.js';
import { lintUnit, type LintUnit, type RuleSelection } from './engine/linter.js';
import { DEFAULT_BUDGET, type Budget } from './analysis/sizing.js';
import { budgetPicture } from './analysis/budget.js';
import { SourceFile } from './core/source-file.js';
import type { ConfigProblem } from './core/problem.js';
import { DEFAULT_TARGETS, type Targets } from './core/targets.js';
import type { LintTimer } from './engine/timing.js';
import { builtinLanguages } from './languages/index.js';
import type { LintResult } from './engine/result.js';

export { MAX_FIX_PASSES } from './fix/passes.js';

export interface LintInput {
  /** Main config files: apache2.conf/httpd.conf, my.cnf, php-fpm.conf; included files are found from them. */
  readonly paths: readonly string[];
  /**
   * The paths were found, not given (the usual /etc places inside a
   * repository): one that cannot be read is a TL0002 warning and the rest
   * are linted, where a path given that cannot be read is an input error.
   */
  readonly discovered?: boolean;
  readonly cwd?: string;
  readonly sysroot?: string;
  /** The server path the sysroot holds (`/etc/httpd` for a repository of its files); `/` when not given. */
  readonly sysrootAt?: string;
  /** Forces the language of every path (`--lang`). */
  readonly language?: LanguageId;
  /** The languages files are read in, in the order their rules run: the built-in ones unless given. */
  readonly languages?: readonly AnyLanguageDefinition[];
  readonly targets?: Targets;
  readonly host?: HostFacts;
  readonly budget?: Partial<Budget>;
  readonly rules: RuleSelection;
  /** Which fixes to compute; 'none' skips the fix passes. */
  readonly fixType?: FixType | 'none';
  readonly limits?: Partial<Limits>;
  /** What each language's reader takes besides the path, by language: Apache's ServerRoot, defines and environment, the option files' include base. */
  readonly readers?: Partial<LanguageReaderOptions>;
  /**
   * Asks the running servers (src/live) once the configs are read, since the
   * login and the status page come from them; what it returns joins the host
   * facts. The CLI gives it on a probed host unless --no-live.
   */
  readonly askServers?: (configs: ConfigSet) => Promise<HostFacts>;
  /**
   * Texts that stand for files on disk, by real path: an editor's unsaved
   * buffers, read in their place (includes, the fix passes and all).
   */
  readonly overlay?: ReadonlyMap<string, string>;
  /** Collects where the time went, per rule and reading the configs (the CLI's TIMING). */
  readonly timer?: LintTimer;
}

export type { FileFix, LintResult } from './engine/result.js';

/** A problem with the input itself (a main file that cannot be read): exit code 2. */
class InputError extends UserError {}

interface Loaded {
  readonly configs: Configs;
  readonly files: SourceFile[];
  readonly languages: Map<SourceFile, LanguageId>;
  readonly guessedLanguages: { readonly file: SourceFile; readonly language: LanguageId; readonly how: string }[];
  /** The language each main file given was read as, by its absolute path. */
  readonly mainLanguages: Map<string, AnyLanguageDefinition>;
  /** Discovered main files left out, as findings. */
  readonly unreadable: ConfigProblem[];
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
    ...(input.overlay === undefined ? {} : { overlay: input.overlay }),
  });
  const languages = input.languages ?? builtinLanguages;
  let targets = input.targets ?? DEFAULT_TARGETS;
  const given = input.host ?? {};
  const budget = { ...DEFAULT_BUDGET, ...input.budget };
  const { timer } = input;
  const load = (view: ConfigFileSystem, previous?: Loaded): Loaded =>
    timer === undefined
      ? loadAll(input, languages, view, targets, cwd, previous)
      : timer.reading(() => loadAll(input, languages, view, targets, cwd, previous));
  const unitOf = (loaded: Loaded): LintUnit => ({
    languages,
    configs: loaded.configs,
    host,
    targets,
    budget,
    unreadable: loaded.unreadable,
  });
  let first = load(fs);
  const shown = inferredTargets(languages, first.configs, targets);
  if (shown !== undefined) {
    targets = shown;
    // Read again with the targets shown: a language reuses what they leave as it was; what was guessed stays said.
    first = { ...load(fs, first), guessedLanguages: first.guessedLanguages };
  }
  const host = input.askServers === undefined ? given : withLiveFacts(given, await input.askServers(first.configs));
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
    assumptions: languages.flatMap((language) =>
      // Each definition gets the configs of its own id.
      first.configs.of(language.id).flatMap((config) => (language as LanguageDefinition).assumed?.(config as never) ?? []),
    ),
    host,
    sizing: initial.sizing,
    sizingAfter: fixed.sizingAfter,
    budget: budgetPicture(initial.sizing, fixed.sizingAfter),
    fixes: fixed.fixes,
    passes: fixed.passes,
    followUps: fixed.followUps,
    configs: first.configs,
  };
}

/**
 * The targets the configs show where nobody named them, undefined when they
 * show nothing more: each language may show its server's (httpd's, the
 * database's), and of the configs of one language the first to show one wins.
 */
function inferredTargets(languages: readonly AnyLanguageDefinition[], configs: ConfigSet, targets: Targets): Targets | undefined {
  let shown: Targets | undefined;
  for (const language of languages) {
    for (const config of configs.of(language.id)) {
      // Each definition gets the configs of its own id.
      const more = (language as LanguageDefinition).inferTargets?.(config, shown ?? targets);
      if (more !== undefined) shown = more;
    }
  }
  return shown;
}

/** The host facts with what the servers said; their notes are kept apart, for the report's Live servers section. */
function withLiveFacts(host: HostFacts, live: HostFacts): HostFacts {
  const { notes, ...facts } = live;
  return { ...host, ...facts, ...(notes === undefined ? {} : { liveNotes: [...(host.liveNotes ?? []), ...notes] }) };
}

/**
 * Reads the configs through `fs`, each main file by its language. A fix pass
 * gives the configs of the pass before, which a language may reuse where the
 * files it read did not change (see LanguageDefinition.load).
 */
function loadAll(
  input: LintInput,
  languages: readonly AnyLanguageDefinition[],
  fs: ConfigFileSystem,
  targets: Targets,
  cwd: string,
  previous: Loaded | undefined,
): Loaded {
  const byLanguage = new Map<LanguageId, LanguageConfig[]>(languages.map((language) => [language.id, []]));
  const loaded: Loaded = {
    configs: new Configs(byLanguage),
    files: [],
    languages: new Map(),
    guessedLanguages: [],
    mainLanguages: new Map(),
    unreadable: [],
  };
  for (const given of input.paths) {
    const hostPath = path.resolve(cwd, given);
    try {
      // A fix pass reads each main file as the language its first read found: the fixes were made for that
      // reading, and telling the language again (the php-fpm and php.ini checks go through every line of
      // the main file) was 0.8 M of the stock Debian lint's instructions.
      const earlier = previous?.mainLanguages.get(hostPath);
      const { language, guessed } =
        earlier === undefined ? languageOf(input, languages, fs, hostPath) : { language: earlier, guessed: false };
      loaded.mainLanguages.set(hostPath, language);
      const configs = byLanguage.get(language.id) as LanguageConfig[];
      const existing = configs[0];
      if (language.onePerHost !== undefined && existing !== undefined)
        throw new InputError(`${given}: ${language.onePerHost}; ${existing.root.displayPath} is already given`);
      const before = previous?.configs.of(language.id).find((config) => config.root.path === hostPath);
      const config = read(language, hostPath, {
        fs,
        targets,
        options: (input.readers as Readonly<Record<string, unknown>> | undefined)?.[language.id] as never,
        previous: before,
      });
      configs.push(config);
      for (const entry of config.files) {
        loaded.files.push(entry.source);
        loaded.languages.set(entry.source, language.id);
      }
      if (guessed && earlier === undefined)
        loaded.guessedLanguages.push({ file: config.root, language: language.id, how: language.guessedAs });
    } catch (error) {
      if (!(error instanceof FileAccessError)) throw error;
      if (input.discovered !== true) throw new InputError(error.message);
      const file = new SourceFile(hostPath, fs.display(hostPath), '');
      loaded.files.push(file);
      loaded.unreadable.push({ ruleId: 'TL0002', severity: 'warn', message: unreadableMain(fs, hostPath, error), file, range: [0, 0] });
    }
  }
  return loaded;
}

/** `a link to /etc/alternatives/my.cnf, which is not in the repository: not linted`, or the reader's reason. */
function unreadableMain(fs: ConfigFileSystem, hostPath: string, error: FileAccessError): string {
  let target: string | undefined;
  try {
    target = nodeFs.readlinkSync(hostPath);
  } catch {
    target = undefined;
  }
  if (target !== undefined && error.code === 'missing')
    return `a link to ${target}, which is not ${fs.sysroot === undefined ? 'there' : 'in the repository'}: not linted`;
  return `${error.message}: not linted`;
}

/** A language's load, whatever the language: each definition reads its own configs. */
function read(language: LanguageDefinition, hostPath: string, context: Parameters<LanguageDefinition['load']>[1]): LanguageConfig {
  return language.load(hostPath, context);
}

/**
 * The language a main file is read as: --lang, else what its first lines
 * and its name say (core/language-of-file.ts); a file of a kind tune-lint
 * does not read (php.ini) is refused. `guessed` when the name did not say it.
 */
function languageOf(
  input: LintInput,
  languages: readonly AnyLanguageDefinition[],
  fs: ConfigFileSystem,
  hostPath: string,
): { language: AnyLanguageDefinition; guessed: boolean } {
  if (input.language !== undefined) {
    const forced = languages.find((language) => language.id === input.language);
    if (forced === undefined)
      throw new InputError(`--lang ${input.language}: no such language (${languages.map((language) => language.id).join(', ')})`);
    return { language: forced, guessed: false };
  }
  const choice = languageOfFile(languages, hostPath, peek(fs, hostPath));
  if ('refused' in choice) {
    throw new InputError(
      `${fs.display(hostPath)}: ${choice.refused}; tune-lint reads ${listed(
        languages.map((language) => language.files),
        'and',
      )}, not this one (--lang ${listed(
        languages.map((language) => language.id),
        'or',
      )} reads it as one of them anyway)`,
    );
  }
  return { language: choice.language, guessed: choice.byName?.id !== choice.language.id };
}

/** `a, b and c`. */
function listed(items: readonly string[], conjunction: 'and' | 'or'): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1] ?? ''}`;
}

function peek(fs: ConfigFileSystem, hostPath: string): string | undefined {
  try {
    return fs.read(hostPath).text.slice(0, 64 * 1024);
  } catch {
    return undefined;
  }
}
