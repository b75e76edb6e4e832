import type { ConfigFileSystem } from './file-system.js';
import type { HostFacts } from './host-facts.js';
import type { ConfigProblem } from './problem.js';
import type { SourceFile } from './source-file.js';
import type { Targets } from './targets.js';
import type { Located } from './types.js';

/*
 * The one contract between the engine and a config language, as ESLint's
 * `Language` object is (lib/languages/js/index.js): the engine, the linter,
 * the commands, the formatters and the public API reach every server's
 * config through it and name none. A language is a folder of its own that
 * implements {@link LanguageDefinition} and adds its types to the three
 * interfaces below by declaration merging:
 *
 *   declare module '../../core/language.js' {
 *     interface LanguageConfigs { phpfpm: PhpFpmConfig }
 *   }
 *
 * Types only: the registry of the built-in languages is src/languages/index.ts.
 */

/** Each language's config type, by its id: `apache: ApacheConfig`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface LanguageConfigs {}

/** What each language's reader takes besides the path and the targets: Apache's ServerRoot and defines, my.cnf's include base. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface LanguageReaderOptions {}

/** The visitors a language's rules may register besides `end`: Apache's per directive, my.cnf's per option. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface LanguageVisitors {}

export type LanguageId = Extract<keyof LanguageConfigs, string>;

/** What every language's config has: the main file, every file read in read order, and the readers' problems. */
export interface LanguageConfig {
  readonly root: SourceFile;
  readonly files: readonly { readonly source: SourceFile }[];
  readonly problems: readonly ConfigProblem[];
}

/** How sure a file name is: a name only this server uses (`php-fpm.conf`), or an extension several share (`.conf`). */
export type NameMatch = 'exact' | 'extension';

/** How a language knows its files, from their names and their first lines. */
export interface LanguageDetection {
  /** What the name alone says. */
  byName(hostPath: string): NameMatch | undefined;
  /**
   * What the first lines say, whatever the name says: `claims` when they
   * are surely this language's (a php-fpm pool named `.conf`), `refused`
   * naming a kind of config next to this one's that tune-lint does not read
   * (php.ini); undefined when they say nothing.
   */
  byContent?(head: string): 'claims' | { readonly refused: string } | undefined;
  /** Whether the first lines look like this language's, for a file whose name says nothing. */
  looksLike?(head: string): boolean;
  /** Read as this language when nothing else tells. */
  readonly fallback?: boolean;
}

export interface LoadContext<Id extends LanguageId> {
  readonly fs: ConfigFileSystem;
  readonly targets: Targets;
  readonly options: Id extends keyof LanguageReaderOptions ? LanguageReaderOptions[Id] | undefined : undefined;
  /**
   * The config a fix pass before this one, or the read before targets were
   * inferred, made from the same main file: a language may reuse what the
   * changed files and targets leave as it was (Apache rebases a tree whose
   * files keep their structure).
   */
  readonly previous?: LanguageConfigs[Id] | undefined;
}

/**
 * A limit the server takes from its config, which decides how much memory
 * it may use: MaxRequestWorkers, pm.max_children, max_connections.
 */
export interface TunableLimit {
  /** As the config writes it, or as the target names it when the config does not set it. */
  readonly name: string;
  readonly value: number;
  /** The line that sets it; undefined when the value is the server's default. */
  readonly setAt: Located | undefined;
  /** `set in etc/apache2/mods-enabled/mpm_prefork.conf:16`, `prefork's default`, `default for mariadb 10.11`. */
  readonly from: string;
}

/** The part a consumer plays on the host: the web server's processes, the PHP workers, the database server. */
export type ConsumerRole = 'web' | 'php' | 'database';

/** One thing a server keeps in memory at its peak, as the config and the host facts make it. */
export interface MemoryConsumer {
  readonly language: LanguageId;
  /** Which config it belongs to. */
  readonly config: LanguageConfig;
  readonly role: ConsumerRole;
  /** What a report calls it: `Apache`, `php-fpm www`, `MySQL`. */
  readonly label: string;
  /** Bytes at peak. */
  readonly bytes: number;
  /** The arithmetic, in the config's words: `MaxRequestWorkers 150 x 20 MiB per child`. */
  readonly detail: string;
  /** The limits that decide `bytes`, with their values now. */
  readonly limits: readonly TunableLimit[];
}

/** How a rule family of the language is named in docs and ids, and how its doc pages write a sample of it. */
export interface LanguageRuleFamily {
  /** The id prefix of its rules: `AP`. */
  readonly prefix: string;
  /** The heading of its rules in the catalogue: `Apache httpd`. */
  readonly title: string;
  /** A fenced code block's language in the docs, a fixture's extension, a comment's first character. */
  readonly sample: { readonly fence: string; readonly extension: string; readonly comment: string };
}

/** Directory listing of a server path (`/etc/php`), for the system configs a language finds; undefined when it is not there. */
export type ListDirectory = (serverPath: string) => readonly string[] | undefined;

export interface LanguageDefinition<Id extends LanguageId = LanguageId> {
  readonly id: Id;
  /** The server, as messages name it: `Apache httpd`. */
  readonly server: string;
  /** Its configs in a sentence: `Apache httpd configs`, `php-fpm pools`. */
  readonly files: string;
  /** How a main file whose name did not say its language was read as this one, and the flag that reads it otherwise. */
  readonly guessedAs: string;
  readonly rules: LanguageRuleFamily;
  readonly detect: LanguageDetection;
  /** The main configs of this server on a system, as server paths, in the order they are looked for. */
  systemConfigs(list: ListDirectory): readonly string[];
  /** Set when a host can have one such config only: what to say when a second is given. */
  readonly onePerHost?: string;
  /**
   * Reads a main file and what it includes, within the shared input budget
   * (InputBudget). Throws FileAccessError when the main file itself cannot
   * be read; every other problem is in the config's `problems`.
   */
  load(hostPath: string, context: LoadContext<Id>): LanguageConfigs[Id];
  /** The effective config as the server would read it, for `tune-lint dump`: plain data, every value with file:line. */
  dump(config: LanguageConfigs[Id]): object;
  /** What the reader took for granted that nothing named (the database product and version), said once in the report. */
  assumed?(config: LanguageConfigs[Id]): readonly string[];
  /**
   * The targets the files themselves show, read with targets nobody named:
   * undefined when they show nothing more. The configs are read again with
   * what it returns.
   */
  inferTargets?(config: LanguageConfigs[Id], targets: Targets): Targets | undefined;
  /** What the server consumes on the host at its peak, and the limits that decide it. */
  consumers(config: LanguageConfigs[Id], host: HostFacts): readonly MemoryConsumer[];
  /** Hands each line of the config to the visitors of the rules that registered for it; languages whose rules look at the whole config have none. */
  dispatch?(config: LanguageConfigs[Id], visitors: readonly VisitorsOf<Id>[]): void;
  /** The enclosing sections of a located thing of this config, outermost first (`<VirtualHost *:80>`); undefined when it has none. */
  contextOf?(config: LanguageConfigs[Id], at: Located): readonly string[] | undefined;
  /** The setting written at an offset of one of the config's files and what the server makes of it, for the editor's hover; undefined off a setting. */
  settingAt?(config: LanguageConfigs[Id], file: SourceFile, offset: number): SettingAtPoint | undefined;
  /** What the package exports for this language: its parser and its loader at least, by the names they are exported under. */
  readonly api: Readonly<Record<string, unknown>>;
}

/** A setting as written on a line and as the server takes it where that line is: what an editor's hover shows. */
export interface SettingAtPoint {
  /** As the server names it, with its scope where it has one: `KeepAliveTimeout`, `[www] pm.max_children`. */
  readonly name: string;
  /** The name the server documents it under, when the line writes another (`MaxRequestWorkers` for `MaxClients`). */
  readonly canonicalName?: string;
  /** The line's setting, what the hover covers. */
  readonly at: Located;
  /**
   * The value in effect where the line is, and the line that sets it (this
   * one or a later one); `setAt` undefined when the server's default applies.
   * Undefined when the server does not read the line at all (`note` says why).
   */
  readonly effective: { readonly value: string; readonly setAt: Located | undefined } | undefined;
  /** The server's own value when nothing sets it, for the target read. */
  readonly defaultValue: string | undefined;
  /** What else the server does with it: an adjustment at start-up, a group it does not read. */
  readonly note?: string;
}

/** A rule's visitors for a language: `end`, and whatever the language dispatches. */
export type VisitorsOf<Id extends LanguageId | 'host'> = { readonly end?: () => void } & (Id extends keyof LanguageVisitors
  ? LanguageVisitors[Id]
  : unknown);

/** The definition of any language, as the engine holds them. */
export type AnyLanguageDefinition = { [Id in LanguageId]: LanguageDefinition<Id> }[LanguageId];

/**
 * The configs of one host, by language: what the linter runs the rules on,
 * what host rules and the planner read. In the registry's order, each
 * language's configs in the order their main files were given.
 */
export interface ConfigSet {
  of<Id extends LanguageId>(id: Id): readonly LanguageConfigs[Id][];
  /** The first config of a language, for those a host has one of (the option files). */
  first<Id extends LanguageId>(id: Id): LanguageConfigs[Id] | undefined;
  /** Every config with its language, in order. */
  entries(): readonly { readonly language: LanguageId; readonly config: LanguageConfig }[];
}
