import * as path from 'node:path';
import { ConfigFileSystem, FileAccessError, InputBudget } from '../../core/file-system.js';
import type { ConfigProblem } from '../../core/problem.js';
import { SourceFile } from '../../core/source-file.js';
import { versionAtLeast } from '../../core/targets.js';
import type { GivenEnvironment, Range, Severity } from '../../core/types.js';
import type { ApacheNode, DirectiveNode, SectionNode } from './cst.js';
import {
  sectionLabel,
  type ApacheDirectiveUse,
  type ApacheFileEntry,
  type ApacheSectionUse,
  type ConditionalEvaluation,
  type DirectiveIndex,
  type IncludeOutcome,
  type LoadedModule,
  type ReferencingLines,
} from './uses.js';
import { lookupTable } from '../../util/lookup.js';
import { readEnvvars } from './envvars.js';
import { serviceEnvironment } from './service-environment.js';
import { wordValues } from './lexer.js';
import { CONDITIONAL_SECTIONS, DEBIAN_STATIC_MODULES, INERT_SECTIONS, MPM_MODULES, moduleSourceName, type MpmName } from './names.js';
import { ApacheDocument, argValues, parseApache } from './parser.js';
import { resolveMpm, type MpmSettings } from './mpm.js';
import { IncludeResolver } from './includes.js';
import { evaluateConditional } from './conditionals.js';
import { fragmentByPath, fragmentReason, STOCK_MODULES } from './fragment.js';
import { appendAll } from '../../util/arrays.js';
import { remembered } from '../../util/remembered.js';
import { startLayout, type StartLayout } from './start-layout.js';

/** Debian's envvars as read, by the file: a fix pass's config reads the same file again (rebased()). */
const envvarsValues = new WeakMap<SourceFile, Record<string, string>>();

/** The systemd unit that starts httpd on the distributions whose main file is here (server paths). */
const SERVICE_UNITS: Readonly<Record<string, 'httpd.service' | 'apache2.service'>> = lookupTable({
  '/etc/httpd/conf/httpd.conf': 'httpd.service',
  '/etc/apache2/apache2.conf': 'apache2.service',
});

/** The lists a walk fills, in read order. */
interface WalkedLists {
  readonly files: ApacheFileEntry[];
  readonly uses: ApacheDirectiveUse[];
  readonly sections: ApacheSectionUse[];
  readonly conditionals: ConditionalEvaluation[];
  readonly referencing: ReferencingLines;
}

export interface ApacheLoadOptions {
  readonly fs: ConfigFileSystem;
  /** Target httpd version, e.g. `2.4` or `2.4.62`. */
  readonly httpd: string;
  /** ServerRoot before the config sets one (httpd's `-d`); derived from the layout when absent. */
  readonly serverRoot?: string;
  /** Names given with `-D`. */
  readonly defines?: readonly string[];
  /** Environment for `${VAR}`; Debian's envvars file is read on top when present. */
  readonly env?: Readonly<Record<string, string>>;
  /** Variables the user gave (`--env`, `--env-file`), over envvars, each group with where it came from. */
  readonly givenEnv?: readonly GivenEnvironment[];
  readonly staticModules?: readonly string[];
  /** Directives read before the main file, as httpd's `-C` gives them. */
  readonly before?: readonly string[];
  /** Nobody named the httpd target and the files showed it: what they showed it by, for the report. */
  readonly httpdInferredFrom?: string;
}

const DEFINE_IN_VALUE = /\$\{([^}]*)\}/g;
/** An Apache parse kept with its file (SourceFile.parsed), and the nesting limit it was made under. */
class ApacheParse {
  constructor(
    readonly maxNesting: number,
    readonly document: ApacheDocument,
  ) {}
}
/** The variables and unresolved names of the many lines without `${...}`: one shared empty list. */
const NONE: readonly string[] = Object.freeze([]);

/** What a line with `${...}` references carries: the names, those left unresolved, and the arguments after expansion. */
interface References {
  readonly variables: readonly string[];
  readonly unresolved: readonly string[];
  readonly text: string;
  readonly args: readonly string[];
}

/**
 * A directive in effect. The arguments of a line without `${...}` are split
 * on first use: a tree of 10,000 vhosts has a quarter of a million lines, and
 * the rules read the arguments of a few directive names. Such a line also
 * carries no reference lists of its own (one object per line is what the
 * model costs there).
 */
class DirectiveInEffect implements ApacheDirectiveUse {
  /**
   * The line's `${...}` references, expanded when read (a later Define may
   * change what the names stand for); or else its arguments once read, one
   * as its string (handed out in a new array), several as their array. One
   * field for both, as a line has one or the other: an array, or a field,
   * kept per line was a tenth of what a lint of 10,000 vhosts keeps.
   */
  private argsOrReferences: References | string | readonly string[] | undefined;

  constructor(
    readonly node: DirectiveNode,
    readonly file: SourceFile,
    readonly parent: ApacheSectionUse | undefined,
    readonly order: number,
    references: References | undefined,
  ) {
    this.argsOrReferences = references;
  }

  private get references(): References | undefined {
    const known = this.argsOrReferences;
    return known !== undefined && typeof known !== 'string' && 'variables' in known ? known : undefined;
  }

  get name(): string {
    return this.node.nameLower;
  }

  get range(): Range {
    return this.node.line.content;
  }

  get variables(): readonly string[] {
    return this.references?.variables ?? NONE;
  }

  get unresolved(): readonly string[] {
    return this.references?.unresolved ?? NONE;
  }

  get argsText(): string {
    return this.references?.text ?? this.node.argsText;
  }

  get args(): readonly string[] {
    const known = (this.argsOrReferences ??= oneOrMany(argValues(this.node)));
    if (typeof known === 'string') return [known];
    return 'variables' in known ? known.args : known;
  }

  withInclude(include: IncludeOutcome): IncludeInEffect {
    return new IncludeInEffect(this.node, this.file, this.parent, this.order, this.references, include);
  }

  /** The same use on the line's node in a file read again, or under a section made again. */
  moved(node: DirectiveNode, file: SourceFile, parent: ApacheSectionUse | undefined): DirectiveInEffect {
    return new DirectiveInEffect(node, file, parent, this.order, this.references);
  }
}

/** A single value as itself, several as their array. */
function oneOrMany(values: readonly string[]): string | readonly string[] {
  const [first] = values;
  return values.length === 1 && first !== undefined ? first : values;
}

/** An Include or IncludeOptional line, with what its pattern matched. */
class IncludeInEffect extends DirectiveInEffect {
  constructor(
    node: DirectiveNode,
    file: SourceFile,
    parent: ApacheSectionUse | undefined,
    order: number,
    references: References | undefined,
    readonly include: IncludeOutcome,
  ) {
    super(node, file, parent, order, references);
  }

  override moved(node: DirectiveNode, file: SourceFile, parent: ApacheSectionUse | undefined): IncludeInEffect {
    return super.moved(node, file, parent).withInclude(this.include);
  }
}

/** A section in effect; like a directive's, its arguments are split on first use, and a lone one kept as its string. */
class SectionInEffect implements ApacheSectionUse {
  private splitArgs: string | readonly string[] | undefined = undefined;

  constructor(
    readonly node: SectionNode,
    readonly file: SourceFile,
    readonly parent: ApacheSectionUse | undefined,
    readonly order: number,
    readonly argsText: string,
    readonly conditional: boolean,
  ) {}

  get name(): string {
    return this.node.nameLower;
  }

  get range(): Range {
    return this.node.open.content;
  }

  get args(): readonly string[] {
    const known = (this.splitArgs ??= oneOrMany(wordValues(this.argsText)));
    return typeof known === 'string' ? [known] : known;
  }
}

/**
 * The effective Apache configuration: the include tree read the way httpd
 * reads it (EXEC_ON_READ directives in file order, conditionals evaluated
 * against the modules and defines known at that point), every directive in
 * effect with its enclosing sections, the loaded modules and the active MPM.
 */
export class ApacheConfig implements DirectiveIndex {
  readonly files: ApacheFileEntry[];
  readonly uses: ApacheDirectiveUse[];
  readonly sections: ApacheSectionUse[];
  readonly conditionals: ConditionalEvaluation[];
  /** The lines with a `${`, for the rules about references: a handful where every line is many. */
  readonly referencing: ReferencingLines;
  readonly modules = new Map<string, LoadedModule>();
  /** The loaded modules' source names (`mod_headers.c`), which `<IfModule>` answers to as well: asked once per vhost on a big tree. */
  private readonly moduleSources = new Set<string>();
  readonly problems: ConfigProblem[] = [];
  readonly defines = new Map<string, string | undefined>();
  readonly httpd: string;
  readonly fs: ConfigFileSystem;
  /** ServerRoot as the server sees it (inside the sysroot when there is one), after the config's own ServerRoot lines. */
  serverRoot: string;
  private readonly env: ReadonlyMap<string, string>;
  /** Where the environment for `${VAR}` was read from (envvars, --env, --env-file); empty when from nowhere. */
  readonly environmentSources: readonly string[];
  /** How the distribution's start runs httpd for this main file, where its command line carries configuration. */
  readonly start: StartLayout | undefined;
  /** What the files showed the httpd target by, where nobody named it. */
  readonly httpdInferredFrom: string | undefined;
  private readonly byName = new Map<string, ApacheDirectiveUse[]>();
  private readonly parsed = new Map<string, ApacheDocument>();
  private readonly includeStack: string[] = [];
  private order = 0;
  private sectionDepth = 0;
  /** Characters `${NAME}` expansions have produced so far. */
  private expandedBytes = 0;
  private readonly budget: InputBudget;
  private readonly includes: IncludeResolver;
  private mpmCache: MpmSettings | undefined = undefined;
  private fragmentCache: { readonly reason: string | undefined } | undefined = undefined;
  /** Whether each file read has `${` anywhere. */
  private readonly filesWithReferences = new Map<SourceFile, boolean>();
  /** The file of the line before and its entry there: a file's lines come in runs, a lookup per run. */
  private lastSearched: SourceFile | undefined = undefined;
  private lastMayReference = false;
  root!: SourceFile;

  constructor(
    private readonly options: ApacheLoadOptions,
    private readonly rootServerPath: string,
    /** What an earlier walk found, made again for this one's files (see rebased()). */
    walked?: WalkedLists,
  ) {
    this.files = walked?.files ?? [];
    this.uses = walked?.uses ?? [];
    this.sections = walked?.sections ?? [];
    this.conditionals = walked?.conditionals ?? [];
    this.referencing = walked?.referencing ?? { uses: [], sections: [] };
    this.fs = options.fs;
    this.budget = new InputBudget(this.fs.limits);
    this.httpd = options.httpd;
    this.httpdInferredFrom = options.httpdInferredFrom;
    this.includes = new IncludeResolver(this.fs, this.httpd);
    this.serverRoot = options.serverRoot ?? defaultServerRoot(rootServerPath);
    const environment = this.startEnvironment(rootServerPath);
    this.env = environment.env;
    this.environmentSources = environment.sources;
    this.start =
      options.env === undefined
        ? startLayout(this.fs, rootServerPath, this.httpd, this.env, () => this.mainDocument(rootServerPath))
        : undefined;
    for (const name of [...(this.start?.defines ?? []), ...(options.defines ?? [])]) this.defines.set(name, undefined);
    // A rebased config takes its modules from the config it is rebased on (rebased()).
    if (walked === undefined) this.addStartModules();
  }

  /** The modules loaded before the first line is read: compiled in, a fragment's stock set, those the start script loads. */
  private addStartModules(): void {
    const stock = this.withStockModules ? STOCK_MODULES : [];
    for (const identifier of [...(this.options.staticModules ?? defaultStaticModules(this.httpd, this.start)), ...stock]) {
      this.addModule({ identifier, sourceName: moduleSourceName(identifier), path: undefined, use: undefined });
    }
    for (const { identifier, path: file } of this.start?.modules ?? []) {
      this.addModule({ identifier, sourceName: moduleSourceName(identifier, file), path: file, use: undefined });
    }
  }

  /** The main file's parse, the one the walk reads (parsedDocument keeps it on the file); undefined when it cannot be read. */
  private mainDocument(rootServerPath: string): ApacheDocument | undefined {
    try {
      return parsedDocument(this.fs.read(this.fs.locate(rootServerPath)), this.fs.limits.maxNesting);
    } catch {
      return undefined;
    }
  }

  /**
   * The environment httpd starts with, and where each part comes from: the
   * given env, else what the service manager gives it (for the distributions'
   * own main files: the systemd unit's Environment and EnvironmentFile, RHEL's
   * /etc/sysconfig/httpd) and Debian's envvars next to apache2.conf, which
   * apachectl reads last; then --env-file and --env, which win.
   */
  private startEnvironment(rootServerPath: string): { env: Map<string, string>; sources: string[] } {
    const { options } = this;
    const env = new Map(Object.entries(options.env ?? {}));
    const envvars = this.fs.locate('envvars', this.serverRoot);
    const sources: string[] = [];
    const unit = SERVICE_UNITS[rootServerPath];
    if (options.env === undefined && unit !== undefined) {
      const service = serviceEnvironment(this.fs, unit);
      for (const [name, value] of Object.entries(service.values)) env.set(name, value);
      sources.push(...service.sources);
    }
    if (options.env === undefined && path.basename(rootServerPath) === 'apache2.conf' && this.fs.kind(envvars) === 'file') {
      try {
        const file = this.fs.read(envvars);
        for (const [name, value] of Object.entries(remembered(envvarsValues, file, () => readEnvvars(file.text)))) env.set(name, value);
        sources.push(file.displayPath);
      } catch {
        // An unreadable envvars only leaves ${APACHE_*} unresolved, which the undefined-variable rule reports.
      }
    }
    for (const given of options.givenEnv ?? []) {
      for (const [name, value] of Object.entries(given.values)) env.set(name, value);
      sources.push(given.source);
    }
    return { env, sources };
  }

  /** Directives in effect with this lower-case name, in read order. */
  named(name: string): readonly ApacheDirectiveUse[] {
    return this.byName.get(name) ?? [];
  }

  /**
   * The lower-case names of the directives in effect, each once: a rule that
   * judges a line by its name alone asks a few dozen names, not a quarter of
   * a million lines.
   */
  directiveNames(): IterableIterator<string> {
    return this.byName.keys();
  }

  hasModule(identifierOrSource: string): boolean {
    return identifierOrSource.endsWith('.c') ? this.moduleSources.has(identifierOrSource) : this.modules.has(identifierOrSource);
  }

  private addModule(module: LoadedModule): void {
    this.modules.set(module.identifier, module);
    this.moduleSources.add(module.sourceName);
  }

  /** The active MPM with its effective numbers after httpd's own clamps, or undefined when none is loaded. */
  get mpm(): MpmSettings | undefined {
    this.mpmCache ??= resolveMpm(this);
    return this.mpmCache.name === undefined ? undefined : this.mpmCache;
  }

  /** A fragment by its place (conf.d/x.conf, .htaccess) is read with the modules its main config has on every distribution (STOCK_MODULES). */
  get withStockModules(): boolean {
    return fragmentByPath(this.rootServerPath) !== undefined && versionAtLeast(this.httpd, '2.4');
  }

  /** Why the file given is a fragment of a configuration (conf.d/x.conf), undefined when it is a whole one: see fragmentReason. */
  get fragment(): string | undefined {
    this.fragmentCache ??= { reason: fragmentReason(this.rootServerPath, this) };
    return this.fragmentCache.reason;
  }

  /** The MPM loaded by LoadModule (or compiled in for 2.2), and how many were loaded. */
  loadedMpms(): { name: MpmName; module: LoadedModule }[] {
    const found: { name: MpmName; module: LoadedModule }[] = [];
    for (const module of this.modules.values()) {
      const name = MPM_MODULES[module.identifier];
      if (name !== undefined) found.push({ name, module });
    }
    return found;
  }

  /** The innermost enclosing container of a use (conditionals skipped), e.g. its `<VirtualHost>`. */
  container(use: { readonly parent: ApacheSectionUse | undefined }): ApacheSectionUse | undefined {
    let parent = use.parent;
    while (parent?.conditional === true) parent = parent.parent;
    return parent;
  }

  /** Display context, outermost first: `<VirtualHost *:80>`, `<IfModule mpm_prefork_module>`. */
  context(use: { readonly parent: ApacheSectionUse | undefined }): string[] {
    const chain: string[] = [];
    for (let parent = use.parent; parent !== undefined; parent = parent.parent) chain.unshift(sectionLabel(parent.node));
    return chain;
  }

  /**
   * Reads the main file and everything it includes, after any `-C`
   * directives (the start's, then those given) and before the start's `-c`.
   */
  load(hostPath: string, before: readonly string[] = []): void {
    this.readCommandLine('-C', [...(this.start?.before ?? []), ...before]);
    const source = this.fs.read(hostPath);
    this.root = source;
    this.budget.chargeMain(source);
    this.readFile(source, 0, undefined, undefined);
    this.readCommandLine('-c', this.start?.after ?? []);
  }

  private readCommandLine(flag: '-C' | '-c', directives: readonly string[]): void {
    if (directives.length === 0) return;
    const commandLine = new SourceFile(flag, flag, `${directives.join('\n')}\n`);
    this.walk(parseApache(commandLine.text).nodes, commandLine, undefined, 0);
  }

  /**
   * The config a fresh walk over `fs` would give, made from one read from the
   * same main file and options in an earlier fix pass. A fix pass changes a
   * few values in a few files; when every file that differs keeps its
   * sections and directives, and the changed lines are values of directives
   * that do not steer the walk (not Include, ServerRoot, Define, UnDefine,
   * LoadModule, nor a line with `${...}`), httpd's walk reaches every line in
   * the same state (modules, defines, ServerRoot, read order), so what the
   * earlier walk found stays true and only the uses of the changed files and
   * what lies under their sections are made again (the walk's own counters
   * are not: a rebased config is never walked). Undefined otherwise: the
   * caller walks afresh.
   */
  // eslint-disable-next-line complexity -- one pass that gives up at the first node that no longer matches; its steps share the maps of moved sections and uses
  static rebased(previous: ApacheConfig, fs: ConfigFileSystem): ApacheConfig | undefined {
    const changed = previous.changedFiles(fs);
    if (changed === undefined) return undefined;
    const { sources, documents, nodes } = changed;
    // Keyed by read order, not by object: a quarter of a million uses would each get a hash.
    const movedSections = new Map<number, SectionInEffect>();
    const movedUses = new Map<number, DirectiveInEffect>();
    const parentOf = (parent: ApacheSectionUse | undefined): ApacheSectionUse | undefined =>
      parent === undefined ? undefined : (movedSections.get(parent.order) ?? parent);

    for (const section of mergeByOrder(
      previous.sections,
      previous.conditionals.map((evaluation) => evaluation.section),
    )) {
      const file = sources.get(section.file);
      const parent = parentOf(section.parent);
      if (file === undefined && parent === section.parent) continue;
      const node = file === undefined ? section.node : nodes.get(section.node);
      if (node?.kind !== 'section') return undefined;
      movedSections.set(
        section.order,
        new SectionInEffect(node, file ?? section.file, parent, section.order, section.argsText, section.conditional),
      );
    }
    const uses = previous.uses.slice();
    // Uses come in runs from one file: one lookup per run.
    let lastFile: SourceFile | undefined;
    let lastReplacement: SourceFile | undefined;
    for (let index = 0; index < uses.length; index++) {
      const use = uses[index] as ApacheDirectiveUse;
      if (use.file !== lastFile) {
        lastFile = use.file;
        lastReplacement = sources.get(use.file);
      }
      const parent = parentOf(use.parent);
      if (lastReplacement === undefined && parent === use.parent) continue;
      const node = lastReplacement === undefined ? use.node : nodes.get(use.node);
      if (node?.kind !== 'directive' || !(use instanceof DirectiveInEffect)) return undefined;
      const moved = use.moved(node, lastReplacement ?? use.file, parent);
      movedUses.set(use.order, moved);
      uses[index] = moved;
    }
    const useNow = (use: ApacheDirectiveUse): ApacheDirectiveUse => movedUses.get(use.order) ?? use;

    const config = new ApacheConfig({ ...previous.options, fs }, previous.rootServerPath, {
      files: previous.files.map((entry) => {
        const source = sources.get(entry.source);
        const includedFrom = entry.includedFrom === undefined ? undefined : useNow(entry.includedFrom);
        if (source === undefined && includedFrom === entry.includedFrom) return entry;
        return { ...entry, source: source ?? entry.source, document: documents.get(entry.source.path) ?? entry.document, includedFrom };
      }),
      uses,
      sections: previous.sections.map((section) => movedSections.get(section.order) ?? section),
      conditionals: previous.conditionals.map((evaluation) => {
        const section = movedSections.get(evaluation.section.order);
        return section === undefined ? evaluation : { ...evaluation, section };
      }),
      referencing: {
        uses: previous.referencing.uses.map(useNow),
        sections: previous.referencing.sections.map((section) => movedSections.get(section.order) ?? section),
      },
    });
    if (!sameEntries(config.env, previous.env)) return undefined;
    const namesMoved = new Set([...movedUses.values()].map((use) => use.name));
    // Lists no fix moved are shared: only a walk appends to them, and neither config is walked again.
    for (const [name, list] of previous.byName) config.byName.set(name, namesMoved.has(name) ? list.map(useNow) : list);
    for (const module of previous.modules.values()) {
      const use = module.use === undefined ? undefined : movedUses.get(module.use.order);
      config.addModule(use === undefined ? module : { ...module, use });
    }
    config.defines.clear();
    for (const [name, value] of previous.defines) config.defines.set(name, value);
    appendAll(config.problems, previous.problems);
    config.serverRoot = previous.serverRoot;
    config.root = sources.get(previous.root) ?? previous.root;
    return config;
  }

  /**
   * The files of this config that read differently through `fs`, each with
   * its new document and its nodes paired with the new ones; undefined when
   * a difference could change the walk or the reader's problems.
   */
  private changedFiles(
    fs: ConfigFileSystem,
  ): { sources: Map<SourceFile, SourceFile>; documents: Map<string, ApacheDocument>; nodes: Map<ApacheNode, ApacheNode> } | undefined {
    const sources = new Map<SourceFile, SourceFile>();
    const documents = new Map<string, ApacheDocument>();
    const nodes = new Map<ApacheNode, ApacheNode>();
    const withProblems = new Set(this.problems.map((problem) => problem.file));
    for (const { source, document } of this.files) {
      let current: SourceFile;
      try {
        current = fs.read(source.path, source.displayPath);
      } catch {
        return undefined;
      }
      if (sameFile(current, source) || sources.has(source)) continue;
      if (withProblems.has(source)) return undefined;
      let replaced = documents.get(source.path);
      if (replaced === undefined) {
        replaced = parsedDocument(current, fs.limits.maxNesting);
        if (replaced.problems.length > 0 || !sameWalk(document.nodes, replaced.nodes, nodes)) return undefined;
        documents.set(source.path, replaced);
      }
      sources.set(source, current);
    }
    return { sources, documents, nodes };
  }

  private readFile(
    source: SourceFile,
    depth: number,
    includedFrom: ApacheDirectiveUse | undefined,
    parent: ApacheSectionUse | undefined,
  ): void {
    let document = this.parsed.get(source.path);
    if (document === undefined) {
      document = parsedDocument(source, this.fs.limits.maxNesting);
      this.parsed.set(source.path, document);
      for (const problem of document.problems) this.problem('TL0001', 'error', problem.message, source, problem.range);
    }
    this.files.push({ source, document, depth, includedFrom });
    this.includeStack.push(source.realPath);
    this.walk(document.nodes, source, parent, depth);
    this.includeStack.pop();
  }

  private walk(nodes: readonly ApacheNode[], file: SourceFile, parent: ApacheSectionUse | undefined, depth: number): void {
    for (const node of nodes) {
      if (node.kind === 'directive') this.directive(node, file, parent, depth);
      else if (node.kind === 'section') this.section(node, file, parent, depth);
    }
  }

  private section(node: SectionNode, file: SourceFile, parent: ApacheSectionUse | undefined, depth: number): void {
    // Expanded now, as for a directive: a later Define may change what the names stand for.
    const references = node.argsText.includes('${');
    const argsText = references ? this.expand(node.argsText, file, node.open.content).text : node.argsText;
    const name = node.nameLower;
    const conditional = CONDITIONAL_SECTIONS.has(name);
    const use = new SectionInEffect(node, file, parent, this.order++, argsText, conditional);
    if (references) this.referencing.sections.push(use);
    if (conditional) {
      const evaluation = this.evaluate(use);
      this.conditionals.push(evaluation);
      if (evaluation.result) this.walkInside(use, depth);
      return;
    }
    this.sections.push(use);
    if (!INERT_SECTIONS.has(name)) this.walkInside(use, depth);
  }

  /**
   * Each file's parser bounds its own nesting, but included files nest inside
   * the sections around their Include; the total is bounded too, so that a
   * chain of deeply nested files cannot overflow the stack.
   */
  private walkInside(section: ApacheSectionUse, depth: number): void {
    if (this.sectionDepth >= this.fs.limits.maxNesting) {
      const message = `sections nested deeper than ${this.fs.limits.maxNesting} levels counting the files included inside them; what is inside is not read`;
      this.problem('TL0006', 'error', message, section.file, section.range);
      return;
    }
    this.sectionDepth++;
    try {
      this.walk(section.node.children, section.file, section, depth);
    } finally {
      this.sectionDepth--;
    }
  }

  private directive(node: DirectiveNode, file: SourceFile, parent: ApacheSectionUse | undefined, depth: number): void {
    let references: References | undefined;
    const text = node.line.physicalLines > 1 || this.mayReference(file) ? node.line.text : '';
    const variables = text.includes('${') ? [...text.matchAll(DEFINE_IN_VALUE)].map((match) => match[1] as string) : NONE;
    if (variables.length > 0) {
      const expansion = this.expand(node.argsText, file, node.line.content);
      references = {
        variables,
        unresolved: expansion.unresolved,
        text: expansion.text,
        args: wordValues(expansion.text),
      };
    }
    const use = new DirectiveInEffect(node, file, parent, this.order++, references);
    const name = use.name;
    if (name === 'include' || name === 'includeoptional') {
      this.include(use, depth);
      return;
    }
    this.record(use);
    if (name !== 'serverroot' && name !== 'define' && name !== 'undefine' && name !== 'loadmodule') return;
    const args = use.args;
    if (name === 'serverroot' && args[0] !== undefined) {
      this.serverRoot = path.posix.resolve(this.serverRoot, args[0]);
    } else if (name === 'define' && args[0] !== undefined) {
      this.defines.set(args[0], args[1]);
    } else if (name === 'undefine' && args[0] !== undefined) {
      this.defines.delete(args[0]);
    } else if (name === 'loadmodule' && args[0] !== undefined) {
      const identifier = args[0];
      if (!this.modules.has(identifier)) {
        this.addModule({ identifier, sourceName: moduleSourceName(identifier, args[1]), path: args[1], use });
      }
    }
  }

  /**
   * Whether a line of the file may have a `${...}` reference: false for a
   * file without `${` anywhere, most of them, whose lines then need not be
   * sliced out of it to be searched one by one. A continued line is searched
   * whatever its file has: joining `$\` to `{NAME}` makes a reference.
   */
  private mayReference(file: SourceFile): boolean {
    if (file !== this.lastSearched) {
      this.lastSearched = file;
      this.lastMayReference = remembered(this.filesWithReferences, file, () => file.text.includes('${'));
    }
    return this.lastMayReference;
  }

  private record(use: ApacheDirectiveUse): void {
    this.uses.push(use);
    if (use.variables.length > 0) this.referencing.uses.push(use);
    const list = this.byName.get(use.name);
    if (list === undefined) this.byName.set(use.name, [use]);
    else list.push(use);
  }

  private include(base: DirectiveInEffect, depth: number): void {
    const optional = base.name === 'includeoptional';
    const pattern = base.args[0];
    if (pattern === undefined) {
      const use = base.withInclude({ pattern: '', files: [], error: `${base.node.name} takes one argument` });
      this.record(use);
      this.problem('TL0002', 'error', `${base.node.name} takes one argument, a file name or wildcard pattern`, base.file, base.range);
      return;
    }
    if (optional && !versionAtLeast(this.httpd, '2.4')) {
      this.record(base.withInclude({ pattern, files: [], error: 'IncludeOptional does not exist in httpd 2.2' }));
      return;
    }
    const absolute = path.posix.resolve(this.serverRoot, pattern);
    const resolution = this.includes.resolve(absolute, optional);
    const use = base.withInclude(
      resolution.error === undefined ? { pattern, files: resolution.files } : { pattern, files: resolution.files, error: resolution.error },
    );
    this.record(use);
    if (depth + 1 > this.fs.limits.maxIncludeDepth) {
      this.problem(
        'TL0006',
        'error',
        `Exceeded maximum include depth of ${this.fs.limits.maxIncludeDepth}, There appears to be a recursion`,
        base.file,
        base.range,
      );
      return;
    }
    for (const serverPath of resolution.files) {
      const hostPath = this.fs.locate(serverPath);
      const real = this.fs.resolve(hostPath);
      if (this.includeStack.includes(real)) {
        const cycle = [...this.includeStack.slice(this.includeStack.indexOf(real)), real].map((p) => this.fs.display(p)).join(' -> ');
        this.problem(
          'TL0006',
          'error',
          `include cycle ${cycle}; httpd would recurse until "Exceeded maximum include depth of 128"`,
          base.file,
          base.range,
        );
        continue;
      }
      if (this.budget.exhausted) return;
      let source: SourceFile;
      try {
        source = this.fs.read(hostPath, this.displayOf(serverPath, hostPath));
      } catch (error) {
        const message = error instanceof FileAccessError ? error.message : String(error);
        this.problem('TL0002', 'error', `${base.node.name} ${pattern}: ${message}`, base.file, base.range);
        continue;
      }
      const overBudget = this.budget.charge(source);
      if (overBudget !== undefined) {
        if (overBudget !== '') this.problem('TL0006', 'error', overBudget, base.file, base.range);
        return;
      }
      this.readFile(source, depth + 1, use, base.parent);
    }
    if (resolution.error !== undefined) {
      this.problem('TL0002', 'error', `${base.node.name} ${pattern}: ${resolution.error}`, base.file, base.range);
    }
  }

  private displayOf(serverPath: string, hostPath: string): string {
    return this.fs.sysroot === undefined ? this.fs.display(hostPath) : this.fs.display(this.fs.locate(serverPath));
  }

  private evaluate(section: ApacheSectionUse): ConditionalEvaluation {
    const { evaluation, problem } = evaluateConditional(section, {
      httpd: this.httpd,
      hasModule: (name) => this.hasModule(name),
      defined: (name) => this.defines.has(name),
      exists: (file) => this.fs.kind(this.fs.locate(file, this.serverRoot)) !== 'missing',
    });
    if (problem !== undefined) this.problem(problem.ruleId, problem.severity, problem.message, section.file, section.range);
    return evaluation;
  }

  /**
   * `${NAME}` from Define, then the environment; unknown names stay literal as
   * httpd leaves them. What expansions add is bounded per run (by the file
   * size limit): defines that each repeat the one before grow exponentially,
   * and a config of a few lines would otherwise take all memory.
   */
  private expand(text: string, file: SourceFile, range: Range): { text: string; unresolved: string[] } {
    if (!text.includes('${')) return { text, unresolved: [] };
    const unresolved: string[] = [];
    let stopped = false;
    const expanded = text.replace(DEFINE_IN_VALUE, (whole, name: string) => {
      const value = this.defines.get(name) ?? this.env.get(name);
      if (value === undefined) {
        if (!name.includes(':')) unresolved.push(name);
        return whole;
      }
      if (stopped || this.expandedBytes + value.length > this.fs.limits.maxFileBytes) {
        stopped = true;
        return whole;
      }
      this.expandedBytes += value.length;
      return value;
    });
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by the replacer above
    if (stopped) {
      const message = `\${...} expansion stopped here: the expanded values add up to more than ${this.fs.limits.maxFileBytes} bytes (--max-file-size), as defines that repeat each other do; the rest is left unexpanded`;
      this.problem('TL0006', 'error', message, file, range);
    }
    return { text: expanded, unresolved };
  }

  private problem(ruleId: string, severity: Severity, message: string, file: SourceFile, range: Range): void {
    this.problems.push({ ruleId, severity, message, file, range });
  }
}

/** Directives whose arguments change how httpd reads the lines after them. */
const STEERING_DIRECTIVES = new Set(['include', 'includeoptional', 'serverroot', 'define', 'undefine', 'loadmodule']);

/**
 * The file's document, parsed once per file: the fix passes of a run read
 * the files they did not change as the same SourceFile (ConfigFileSystem
 * remembers them), and the text is not parsed again.
 */
function parsedDocument(source: SourceFile, maxNesting: number): ApacheDocument {
  const earlier = source.parsed;
  if (earlier instanceof ApacheParse && earlier.maxNesting === maxNesting) return earlier.document;
  const document = parseApache(source.text, { maxNesting });
  if (earlier === undefined) source.parsed = new ApacheParse(maxNesting, document);
  return document;
}

/** Two lists of sections, each in read order, as one. */
function mergeByOrder(a: readonly ApacheSectionUse[], b: readonly ApacheSectionUse[]): ApacheSectionUse[] {
  const merged: ApacheSectionUse[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && (a[i] as ApacheSectionUse).order < (b[j] as ApacheSectionUse).order) ? a[i++] : b[j++];
    merged.push(next as ApacheSectionUse);
  }
  return merged;
}

function sameFile(a: SourceFile, b: SourceFile): boolean {
  return (
    a === b ||
    (a.text === b.text &&
      a.path === b.path &&
      a.displayPath === b.displayPath &&
      a.encoding === b.encoding &&
      a.patchPath === b.patchPath &&
      a.realPath === b.realPath)
  );
}

function sameEntries<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value || !b.has(key)) return false;
  return true;
}

/**
 * Whether httpd walks two versions of a file's nodes alike: the same
 * directives and sections in the same places, sections with the same
 * arguments, and directives that differ only in values that do not steer
 * the walk. Pairs each old node with its new one.
 */
function sameWalk(before: readonly ApacheNode[], after: readonly ApacheNode[], pairs: Map<ApacheNode, ApacheNode>): boolean {
  const walked = (nodes: readonly ApacheNode[]) => nodes.filter((node) => node.kind === 'directive' || node.kind === 'section');
  const old = walked(before);
  const replaced = walked(after);
  if (old.length !== replaced.length) return false;
  for (let index = 0; index < old.length; index++) {
    const a = old[index] as DirectiveNode | SectionNode;
    const b = replaced[index] as DirectiveNode | SectionNode;
    if (a.nameLower !== b.nameLower) return false;
    if (a.kind === 'section') {
      if (b.kind !== 'section' || a.argsText !== b.argsText || !sameWalk(a.children, b.children, pairs)) return false;
    } else {
      if (b.kind !== 'directive') return false;
      const same = a.line.text === b.line.text;
      if (!same && (STEERING_DIRECTIVES.has(a.nameLower) || a.line.text.includes('${') || b.line.text.includes('${'))) return false;
    }
    pairs.set(a, b);
  }
  return true;
}

/**
 * httpd's compiled-in ServerRoot differs per build; guess it from the layout:
 * Debian's `apache2.conf` lives in it, `conf/httpd.conf` lives one below it.
 */
function defaultServerRoot(rootServerPath: string): string {
  const dir = path.posix.dirname(rootServerPath);
  if (path.posix.basename(rootServerPath) === 'httpd.conf' && path.posix.basename(dir) === 'conf') return path.posix.dirname(dir);
  return dir;
}

function defaultStaticModules(httpd: string, start: StartLayout | undefined): readonly string[] {
  if (start?.staticMpm !== undefined) return [...DEBIAN_STATIC_MODULES, `mpm_${start.staticMpm}_module`];
  // httpd 2.2 has its MPM compiled in; prefork was the distributions' default.
  return versionAtLeast(httpd, '2.4') ? DEBIAN_STATIC_MODULES : [...DEBIAN_STATIC_MODULES, 'mpm_prefork_module'];
}

export function loadApache(hostPath: string, options: ApacheLoadOptions): ApacheConfig {
  const absolute = path.resolve(options.fs.cwd, hostPath);
  const config = new ApacheConfig(options, options.fs.serverPath(absolute));
  config.load(absolute, options.before);
  return config;
}

export type {
  ApacheDirectiveUse,
  ApacheFileEntry,
  ApacheSectionUse,
  ConditionalEvaluation,
  LoadedModule,
  ReferencingLines,
} from './uses.js';
export { sectionLabel } from './uses.js';
