import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileAccessError, InputBudget, systemError, type ConfigFileSystem } from '../../core/file-system.js';
import type { ConfigProblem } from '../../core/problem.js';
import { SourceFile } from '../../core/source-file.js';
import type { DatabaseTarget } from '../../core/targets.js';
import type { Range, Severity } from '../../core/types.js';
import { byteOrder } from '../../util/fnmatch.js';
import { variableDefault, type DefaultContext, type DefaultValue } from './defaults.js';
import { groupKey, serverGroups } from './groups.js';
import { normaliseKey, type OptionName } from './names.js';
import { resolveOptionName, type OptionStatus, type ResolvedOption } from './options.js';
import { parseMyCnf, READ_LIMIT_BYTES, type MycnfDocument, type MycnfIncludeLine, type MycnfLine, type MycnfOptionLine } from './parser.js';
import { mysqlPluginOf } from './mysql-names.js';
import { loadedPluginOf, loadedPlugins, type LoadedPlugin } from './plugins.js';
import { parseServerSize } from './sizes.js';

/** `max_recursion_level` of search_default_file_with_ext: files at this depth have their `!` lines skipped. */
const MAX_INCLUDE_DEPTH = 10;

export interface MycnfFileEntry {
  readonly source: SourceFile;
  readonly document: MycnfDocument;
  /** 0 for the file given; an included file is one deeper than the file that includes it. */
  readonly depth: number;
  /** The `!include`/`!includedir` line that brought the file in; `line` is the physical line number. */
  readonly includedFrom?: { readonly file: SourceFile; readonly line: number; readonly directive: MycnfIncludeLine };
  readonly via: 'root' | 'include' | 'includedir';
  /** The line the server stopped reading this file at (a reader error here or, for the file given, anywhere): it reads none from there on. */
  readonly stoppedAt?: MycnfLine;
}

/** One option line in a group the server reads, in read order. */
export interface MycnfOptionUse {
  readonly file: SourceFile;
  /** The option's content (name through value), for diagnostics. */
  readonly range: Range;
  readonly line: MycnfOptionLine;
  /** The group as written in the header, e.g. `mysqld`, `mariadb-10.11`. */
  readonly group: string;
  /** Resolved for the target: `name.key` is the option the server sets (abbreviations expanded where the target does). */
  readonly name: OptionName;
  readonly status: OptionStatus;
  /** For status `plugin`: the library whose plugin adds the option. */
  readonly plugin: LoadedPlugin | undefined;
  /** Full names an abbreviation matched. */
  readonly candidates: readonly string[];
  readonly value: string | undefined;
  /** False when a later line sets the same key (the same maximum- key for maximum- lines). */
  readonly effective: boolean;
  readonly context: readonly string[];
  /** Position in read order across all files. */
  readonly order: number;
}

interface MycnfSize {
  readonly bytes: number;
  readonly from: MycnfOptionUse | 'default';
}

export interface MycnfConfig {
  readonly root: SourceFile;
  /** Files in the order the server reads them; a file included twice appears twice. */
  readonly files: readonly MycnfFileEntry[];
  readonly target: DatabaseTarget;
  /** Groups the server reads for the target. */
  readonly serverGroups: readonly string[];
  /** Every option in those groups, in read order. */
  readonly uses: readonly MycnfOptionUse[];
  /** The plugin libraries plugin_load/plugin_load_add in those groups load (MariaDB; empty for MySQL, whose libraries tune-lint cannot map to plugins). */
  readonly plugins: readonly LoadedPlugin[];
  /** Options in groups the server does not read ([client], [mysqldump], `[ mysqld ]`...); effective is false. */
  readonly otherOptions: readonly MycnfOptionUse[];
  readonly problems: readonly ConfigProblem[];
  /** The reader error that keeps the server from starting, if any; reading stopped there. */
  readonly startupError: ConfigProblem | undefined;
  /** The line that sets a normalised key last (maximum- lines excluded). */
  effective(key: string): MycnfOptionUse | undefined;
  /** Size in bytes of a numeric variable: the effective value parsed for the target, else the target's default. Undefined when set to a value the server refuses. */
  size(key: string): MycnfSize | undefined;
  /** The target's default for a memory or connection variable (defaults.ts), autosized from the effective values it depends on. */
  defaultOf(key: string): DefaultValue | undefined;
}

export interface MycnfLoadOptions {
  readonly fs: ConfigFileSystem;
  readonly target: DatabaseTarget;
  /** Directory (as the server sees paths) relative `!include` paths resolve against: the server's working directory. Default: ours. */
  readonly includeBase?: string;
  /** `--defaults-group-suffix`: also read every server group with this suffix. */
  readonly groupSuffix?: string;
}

/**
 * Reads an option file and everything it includes the way the server does
 * with `--defaults-file=rootPath`, and works out the effective options for
 * the target. Never throws: unreadable files and reader errors are problems.
 */
export function loadMycnf(rootPath: string, options: MycnfLoadOptions): MycnfConfig {
  const hostPath = path.resolve(options.fs.cwd, rootPath);
  const config = new MycnfModel(options, hostPath);
  config.load(hostPath);
  return config;
}

/** An option line in read order: what the line holds is read from the line, not copied. */
class OptionUse implements MycnfOptionUse {
  effective = false;
  plugin: LoadedPlugin | undefined = undefined;

  constructor(
    readonly file: SourceFile,
    readonly line: MycnfOptionLine,
    readonly group: string,
    private readonly resolved: ResolvedOption,
    readonly context: readonly string[],
    readonly order: number,
  ) {}

  get range(): Range {
    return this.line.contentRange;
  }

  get name(): OptionName {
    return this.resolved.name;
  }

  get status(): OptionStatus {
    return this.plugin === undefined ? this.resolved.status : 'plugin';
  }

  get candidates(): readonly string[] {
    return this.resolved.candidates;
  }

  get value(): string | undefined {
    return this.line.value;
  }
}

class MycnfModel implements MycnfConfig {
  readonly files: MycnfFileEntry[] = [];
  readonly uses: OptionUse[] = [];
  plugins: readonly LoadedPlugin[] = [];
  readonly otherOptions: OptionUse[] = [];
  readonly problems: ConfigProblem[] = [];
  readonly target: DatabaseTarget;
  readonly serverGroups: readonly string[];
  startupError: ConfigProblem | undefined = undefined;
  root: SourceFile;
  private readonly fs: ConfigFileSystem;
  private readonly includeBase: string | undefined;
  private readonly groupKeys: ReadonlySet<string>;
  private readonly documents = new Map<string, { source: SourceFile; document: MycnfDocument } | FileAccessError>();
  private readonly lastByKey = new Map<string, MycnfOptionUse>();
  private readonly reported = new Set<string>();
  /** Names resolved so far, and each group's context: shared by the lines that repeat them. */
  private readonly resolvedNames = new Map<string, ResolvedOption>();
  private readonly groupContexts = new Map<string, readonly string[]>();
  private readonly stack: string[] = [];
  private readonly budget: InputBudget;
  private aborted = false;

  constructor(options: MycnfLoadOptions, rootHostPath: string) {
    this.fs = options.fs;
    this.budget = new InputBudget(this.fs.limits);
    this.target = options.target;
    this.includeBase = options.includeBase;
    this.serverGroups = serverGroups(options.target, options.groupSuffix);
    this.groupKeys = new Set(this.serverGroups.map(groupKey));
    this.root = new SourceFile(rootHostPath, this.fs.display(rootHostPath), '');
  }

  effective(key: string): MycnfOptionUse | undefined {
    return this.lastByKey.get(normaliseKey(key));
  }

  size(key: string): MycnfSize | undefined {
    const normalised = normaliseKey(key);
    const use = this.effective(normalised);
    if (use !== undefined) {
      if (use.value === undefined) return undefined;
      const parsed = parseServerSize(use.value, this.target, use.name.key);
      return 'error' in parsed ? undefined : { bytes: parsed.bytes, from: use };
    }
    const fallback = this.defaultOf(normalised);
    return typeof fallback === 'number' ? { bytes: fallback, from: 'default' } : undefined;
  }

  defaultOf(key: string): DefaultValue | undefined {
    const explicit = (name: string): number | undefined => {
      const use = this.effective(name);
      if (use?.value === undefined) return undefined;
      const parsed = parseServerSize(use.value, this.target, name);
      return 'error' in parsed ? undefined : parsed.bytes;
    };
    const context: { -readonly [K in keyof DefaultContext]?: number } = {};
    const maxConnections = explicit('max_connections');
    const innodbBufferPoolSize = explicit('innodb_buffer_pool_size');
    const tableOpenCache = explicit('table_open_cache') ?? variableDefault('table_open_cache', this.target);
    if (maxConnections !== undefined) context.maxConnections = maxConnections;
    if (innodbBufferPoolSize !== undefined) context.innodbBufferPoolSize = innodbBufferPoolSize;
    if (typeof tableOpenCache === 'number') context.tableOpenCache = tableOpenCache;
    return variableDefault(normaliseKey(key), this.target, context);
  }

  load(hostPath: string): void {
    this.readFile(hostPath, 0, undefined, 'root');
    this.findPluginOptions();
    const seen = new Set<string>();
    for (let i = this.uses.length - 1; i >= 0; i--) {
      const use = this.uses[i] as OptionUse;
      const slot = use.name.maximum ? `maximum:${use.name.key}` : use.name.key;
      if (seen.has(slot)) continue;
      seen.add(slot);
      use.effective = true;
      if (!use.name.maximum) this.lastByKey.set(use.name.key, use);
    }
  }

  /** The server parses a plugin's options once it has loaded the plugins, so a name only a loaded plugin knows is no error. */
  private findPluginOptions(): void {
    if (this.target.product === 'mysql') {
      this.findMysqlPluginOptions();
      return;
    }
    this.plugins = loadedPlugins(this.uses.map((use) => ({ key: use.name.key, value: use.value })));
    if (this.plugins.length === 0) return;
    for (const use of this.uses) if (use.status === 'unknown') use.plugin = loadedPluginOf(use.name.key, this.plugins);
  }

  /**
   * MySQL's plugin libraries are not named after their plugins
   * (semisync_master.so holds rpl_semi_sync_master) and tune-lint has no table
   * of them: once the files load any library, an option named after a
   * declared plugin may be that library's, so it is not called unknown.
   */
  private findMysqlPluginOptions(): void {
    const loads = this.uses.some((use) => ['plugin_load', 'plugin_load_add', 'early_plugin_load'].includes(use.name.key));
    if (!loads) return;
    for (const use of this.uses) {
      if (use.status !== 'unknown') continue;
      const plugin = mysqlPluginOf(use.name.key);
      if (plugin !== undefined) use.plugin = { library: plugin, plugin };
    }
  }

  private open(hostPath: string): { source: SourceFile; document: MycnfDocument } | FileAccessError {
    const cached = this.documents.get(hostPath);
    if (cached !== undefined) return cached;
    let result: { source: SourceFile; document: MycnfDocument } | FileAccessError;
    try {
      const source = this.fs.read(hostPath);
      result = { source, document: parsedOptionFile(source) };
    } catch (error) {
      result =
        error instanceof FileAccessError ? error : new FileAccessError(`${this.fs.display(hostPath)}: ${String(error)}`, 'unreadable');
    }
    this.documents.set(hostPath, result);
    return result;
  }

  private readFile(hostPath: string, depth: number, includedFrom: MycnfFileEntry['includedFrom'], via: MycnfFileEntry['via']): void {
    if (this.budget.exhausted) return;
    const opened = this.open(hostPath);
    if (opened instanceof FileAccessError) {
      this.reportUnreadable(hostPath, opened, includedFrom, via);
      return;
    }
    if (via === 'root') this.root = opened.source;
    const mode = worldWritableMode(this.fs, hostPath);
    if (mode !== undefined) {
      const at = includedFrom ?? { file: opened.source, directive: undefined };
      this.problem(
        'TL0002',
        'warn',
        `${opened.source.displayPath} is world-writable (mode ${mode}); the server ignores it: "Warning: World-writable config file '${this.fs.serverPath(hostPath)}' is ignored"`,
        at.file,
        at.directive?.range ?? [0, 0],
      );
      return;
    }
    if (via === 'root') this.budget.chargeMain(opened.source);
    const overBudget = via === 'root' ? undefined : this.budget.charge(opened.source);
    if (overBudget !== undefined) {
      if (includedFrom !== undefined && overBudget !== '')
        this.problem('TL0006', 'error', overBudget, includedFrom.file, includedFrom.directive.range);
      return;
    }
    const entry: { -readonly [Key in keyof MycnfFileEntry]: MycnfFileEntry[Key] } = {
      source: opened.source,
      document: opened.document,
      depth,
      via,
      ...(includedFrom === undefined ? {} : { includedFrom }),
    };
    this.files.push(entry);
    const real = this.realPath(hostPath);
    this.stack.push(real);
    try {
      const stoppedAt = this.walk(opened.source, opened.document, hostPath, depth);
      if (stoppedAt !== undefined) entry.stoppedAt = stoppedAt;
    } finally {
      this.stack.pop();
    }
  }

  /** Reads the file's lines as the server does; returns the line it stopped at, if it stopped before the end. */
  // eslint-disable-next-line complexity -- search_default_file_with_ext (mysys/my_default.c), line kind by line kind, in the server's order
  private walk(source: SourceFile, document: MycnfDocument, hostPath: string, depth: number): MycnfLine | undefined {
    const serverPath = this.fs.serverPath(hostPath);
    let group: string | undefined;
    for (const line of document.lines) {
      if (this.aborted) return line;
      this.lineProblems(source, line);
      switch (line.kind) {
        case 'blank':
        case 'comment':
          continue;
        case 'other':
          if (line.reason === 'unknown-directive' && depth >= MAX_INCLUDE_DEPTH) this.depthWarning(source, line, serverPath);
          continue;
        case 'include':
        case 'includedir': {
          if (depth >= MAX_INCLUDE_DEPTH) {
            this.depthWarning(source, line, serverPath);
            continue;
          }
          if (line.path === '') {
            this.readerError(
              source,
              line,
              depth,
              `!${line.kind} has no path`,
              `error: Wrong '!${line.kind}' directive in config file: ${serverPath} at line ${line.number}`,
            );
            return line;
          }
          if (line.kind === 'include') this.include(source, line, depth);
          else if (!this.includeDirectory(source, line, depth)) return line;
          continue;
        }
        case 'group':
          if (!line.closed) {
            this.readerError(
              source,
              line,
              depth,
              `group header "${source.slice(line.range).trimEnd()}" has no closing "]"`,
              `error: Wrong group definition in config file: ${serverPath} at line ${line.number}`,
            );
            return line;
          }
          group = line.name;
          continue;
        case 'option': {
          if (group === undefined) {
            const what =
              document.bom && line.number === 1
                ? `the file starts with a UTF-8 byte order mark, which the server reads as part of line 1, so "${source.slice(line.contentRange).replace(/^\uFEFF|^\xEF\xBB\xBF/, '')}" counts as an option before any [group] header`
                : `option "${line.rawName}" comes before any [group] header`;
            const wording =
              this.target.product === 'mysql'
                ? `Found option without preceding group in config file ${serverPath} at line ${line.number}`
                : `error: Found option without preceding group in config file: ${serverPath} at line: ${line.number}`;
            this.readerError(source, line, depth, what, wording);
            return line;
          }
          this.addOption(source, line, group);
          continue;
        }
      }
    }
    return undefined;
  }

  private addOption(source: SourceFile, line: MycnfOptionLine, group: string): void {
    let resolved = this.resolvedNames.get(line.rawName);
    if (resolved === undefined) {
      resolved = resolveOptionName(line.rawName, this.target);
      this.resolvedNames.set(line.rawName, resolved);
    }
    let context = this.groupContexts.get(group);
    if (context === undefined) {
      context = [`[${group}]`];
      this.groupContexts.set(group, context);
    }
    const use = new OptionUse(source, line, group, resolved, context, this.uses.length + this.otherOptions.length);
    (this.groupKeys.has(groupKey(group)) ? this.uses : this.otherOptions).push(use);
  }

  private include(source: SourceFile, line: MycnfIncludeLine, depth: number): void {
    const target = this.fs.locate(line.path, this.includeBase);
    this.noteCycle(source, line, target);
    this.readFile(target, depth + 1, { file: source, line: source.position(line.range[0]).line, directive: line }, 'include');
  }

  /** Returns false when the server cannot read the directory, which ends the including file (and, at the top, the server). */
  private includeDirectory(source: SourceFile, line: MycnfIncludeLine, depth: number): boolean {
    const directory = this.fs.locate(line.path, this.includeBase);
    const kind = this.fs.kind(directory);
    let listed: string[] = [];
    let reason: string | undefined;
    let found = '';
    if (kind !== 'directory') {
      reason = kind === 'missing' ? 'Errcode: 2 "No such file or directory"' : 'Errcode: 20 "Not a directory"';
      found = kind === 'missing' ? 'no such directory' : 'not a directory';
    } else {
      try {
        listed = this.fs.readDirectory(directory);
      } catch (error) {
        const cause = systemError(error instanceof FileAccessError ? error.systemCode : undefined);
        reason = `Errcode: ${cause.errno ?? 'unknown'} "${cause.text}"`;
        found = 'cannot be read';
      }
    }
    if (reason !== undefined) {
      const wording = `Can't read dir of '${line.path}' (${reason})`;
      if (depth === 0) {
        const problem = this.problem(
          'TL0002',
          'error',
          `!includedir ${line.path}: ${found}; the server refuses to start: ${wording}`,
          source,
          line.range,
        );
        this.startupError ??= problem;
        this.aborted = true;
      } else {
        this.problem(
          'TL0002',
          'error',
          `!includedir ${line.path}: ${found}; the server reports "${wording}" and ignores the rest of ${source.displayPath}`,
          source,
          line.range,
        );
      }
      return false;
    }
    const entries = listed
      // fn_ext2: the extension starts at the last dot, so `.cnf` and `.hidden.cnf` count, `x.cnf.bak` does not.
      .filter((name) => name.lastIndexOf('.') !== -1 && name.slice(name.lastIndexOf('.')) === '.cnf')
      .sort(byteOrder);
    for (const name of entries) {
      if (this.aborted) break;
      const entry = path.join(directory, name);
      this.noteCycle(source, line, entry);
      this.readFile(entry, depth + 1, { file: source, line: source.position(line.range[0]).line, directive: line }, 'includedir');
    }
    return true;
  }

  private noteCycle(source: SourceFile, line: MycnfIncludeLine, target: string): void {
    const real = this.realPath(target);
    const index = this.stack.indexOf(real);
    // Report where the cycle first closes; the deeper rounds the server reads are the same cycle again.
    if (index === -1 || new Set(this.stack).size !== this.stack.length) return;
    const chain = [...this.stack.slice(index), real].map((entry) => this.fs.display(entry)).join(' -> ');
    this.problem(
      'TL0006',
      'error',
      `include cycle ${chain}; the server reads these files again at every level until the include depth limit of ${MAX_INCLUDE_DEPTH}`,
      source,
      line.range,
    );
  }

  private depthWarning(source: SourceFile, line: MycnfLine, serverPath: string): void {
    let text = source.slice(line.range).replace(/^[\t\n\v\f\r \xA0]+/, '');
    text = text.slice(0, -1).replace(/[\t\n\v\f\r \xA0]+$/, '');
    this.problem(
      'TL0006',
      'warn',
      `${source.displayPath} is included ${MAX_INCLUDE_DEPTH} levels deep, the most the server follows; it skips this line: "Warning: skipping '${text}' directive as maximum includerecursion level was reached in file ${serverPath} at line ${line.number}"`,
      source,
      line.range,
    );
  }

  /** A reader error: fatal in the file given (the server does not start), otherwise the rest of the included file is ignored. */
  private readerError(source: SourceFile, line: MycnfLine, depth: number, what: string, wording: string): void {
    if (depth === 0) {
      const problem = this.problem('MY1001', 'error', `${what}; the server refuses to start: ${wording}`, source, line.range);
      this.startupError ??= problem;
      this.aborted = true;
    } else {
      this.problem(
        'MY1001',
        'error',
        `${what}; the server reports "${wording}" and ignores the rest of ${source.displayPath}`,
        source,
        line.range,
      );
    }
  }

  private lineProblems(source: SourceFile, line: MycnfLine): void {
    if (line.cutAtReadLimit && !line.continuesCutLine) {
      const physical = source.position(line.range[0]).line;
      const bytes = Buffer.byteLength(
        source.text.slice(source.lines.lineStart(physical), source.lines.lineStart(physical + 1)),
        source.encoding,
      );
      this.problem(
        'TL0001',
        'error',
        `line is ${bytes} bytes long; the server reads at most ${READ_LIMIT_BYTES} bytes at a time and takes the rest as a separate line; expected at most ${READ_LIMIT_BYTES} bytes`,
        source,
        line.range,
      );
    }
    if (line.nulAt !== undefined && line.kind !== 'comment') {
      const column = source.position(line.nulAt).column;
      this.problem('TL0001', 'error', `NUL byte at column ${column}; the server ignores the rest of the line after it`, source, [
        line.nulAt,
        line.nulAt + 1,
      ]);
    }
    if (line.kind === 'option' && line.splitsCharacter) {
      const written = source.slice(line.contentRange);
      const last = Array.from(written).pop() ?? '';
      this.problem(
        'TL0001',
        'error',
        `"${written}" ends with "${last}", whose last UTF-8 byte 0xA0 the server takes for a blank and strips, leaving a broken character; expected the value in quotes`,
        source,
        line.contentRange,
      );
    }
    if ((line.kind === 'include' || line.kind === 'includedir') && line.eol === '' && !line.cutAtReadLimit && line.path !== '') {
      const written = source.slice([line.pathRange[0], line.range[1]]).replace(/[\t\n\v\f\r \xA0]+$/, '');
      if (written !== line.path) {
        this.problem(
          'TL0001',
          'error',
          `last line has no line ending, so the server drops the last character and reads "!${line.kind} ${line.path}"; expected a newline after "${written}"`,
          source,
          line.range,
        );
      }
    }
  }

  private reportUnreadable(
    hostPath: string,
    error: FileAccessError,
    includedFrom: MycnfFileEntry['includedFrom'],
    via: MycnfFileEntry['via'],
  ): void {
    const display = this.fs.display(hostPath);
    if (includedFrom === undefined) {
      this.problem('TL0002', 'error', `${error.message}; expected a readable option file`, this.root, [0, 0]);
      return;
    }
    const directive = includedFrom.directive;
    const written = `!${directive.kind} ${directive.path}`;
    const entry = via === 'includedir' ? `${display} ` : '';
    const where =
      !directive.path.startsWith('/') && this.includeBase === undefined && via === 'include'
        ? ` (a relative path is resolved against the server's working directory, taken to be ${this.fs.sysroot === undefined ? this.fs.cwd : '/'}; see --include-base)`
        : this.fs.sysroot !== undefined
          ? ` (looked for ${display})`
          : '';
    const outcomes: Record<FileAccessError['code'], [string, string, Severity]> = {
      missing: [
        `${entry}no such file${where}`,
        `the server skips a missing ${via === 'include' ? '!include' : 'file'} without a word`,
        'warn',
      ],
      'is-directory': [`${entry}is a directory`, 'the server reads nothing from it', 'warn'],
      unreadable: [error.message, 'the server skips a file it cannot open without a word', 'warn'],
      'not-a-file': [error.message, 'tune-lint does not read it', 'warn'],
      'too-large': [error.message, 'tune-lint does not read it', 'error'],
      'escapes-sysroot': [error.message, 'tune-lint does not read it', 'error'],
      loop: [error.message, 'the server cannot open it either', 'warn'],
    };
    const [reason, consequence, severity] = outcomes[error.code];
    this.problem('TL0002', severity, `${written}: ${reason}; ${consequence}`, includedFrom.file, directive.range);
  }

  private realPath(hostPath: string): string {
    try {
      return this.fs.resolve(hostPath);
    } catch {
      return hostPath;
    }
  }

  private problem(ruleId: string, severity: Severity, message: string, file: SourceFile, range: Range): ConfigProblem {
    const key = `${ruleId}\0${file.path}\0${range[0]}\0${range[1]}\0${message}`;
    const problem: ConfigProblem = { ruleId, severity, message, file, range };
    if (this.reported.has(key)) return problem;
    this.reported.add(key);
    this.problems.push(problem);
    return problem;
  }
}

/** The server skips world-writable regular files (`S_IWOTH`); returns the octal mode when this one is. */
function worldWritableMode(fileSystem: ConfigFileSystem, hostPath: string): string | undefined {
  try {
    const stat = fs.statSync(fileSystem.resolve(hostPath));
    return stat.isFile() && (stat.mode & 0o002) !== 0 ? `0${(stat.mode & 0o777).toString(8)}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The parse of an option file, kept with the file as the Apache reader keeps
 * its own: a fix pass that changed one option file reads the others as the
 * same SourceFile and does not parse them again.
 */
function parsedOptionFile(source: SourceFile): MycnfDocument {
  const earlier = source.parsed;
  if (earlier instanceof OptionFileParse) return earlier.document;
  const document = parseMyCnf(source.text, { encoding: source.encoding });
  if (earlier === undefined) source.parsed = new OptionFileParse(document);
  return document;
}

/** What SourceFile.parsed holds for an option file (it may hold another reader's parse). */
class OptionFileParse {
  constructor(readonly document: MycnfDocument) {}
}
