import type { SourceFile } from '../../core/source-file.js';
import type { Located } from '../../core/types.js';
import type { DirectiveNode, SectionNode } from './cst.js';
import type { MpmName } from './names.js';
import type { ApacheDocument } from './parser.js';

/*
 * What a read Apache config is made of: the files, the sections and
 * directives in effect in httpd's read order, the modules loaded. The model
 * (model.ts) builds them; the readings over them (the MPM, the core
 * settings, the dump) and the rules take them from here.
 */

export interface ApacheFileEntry {
  readonly source: SourceFile;
  readonly document: ApacheDocument;
  /** Include nesting: 0 for the main file. */
  readonly depth: number;
  readonly includedFrom: ApacheDirectiveUse | undefined;
}

/** A section that is in effect: a container (`<VirtualHost>`, `<Directory>`…) or a conditional that evaluated true. */
export interface ApacheSectionUse extends Located {
  readonly node: SectionNode;
  /** Lower-case section name without `<`. */
  readonly name: string;
  /** Arguments after `${VAR}` expansion. */
  readonly args: readonly string[];
  /** The argument text after expansion, without the closing `>`. */
  readonly argsText: string;
  readonly parent: ApacheSectionUse | undefined;
  readonly conditional: boolean;
  readonly order: number;
}

/** A directive that is in effect (not inside a false conditional), in the order httpd reads it. */
export interface ApacheDirectiveUse extends Located {
  readonly node: DirectiveNode;
  /** Lower-case directive name. */
  readonly name: string;
  /** Arguments after `${VAR}` expansion. */
  readonly args: readonly string[];
  /** The argument text after expansion, as `-D DUMP_CONFIG` prints it. */
  readonly argsText: string;
  readonly parent: ApacheSectionUse | undefined;
  /** Names of the `${VAR}` references on the line; edits to such lines are declined. */
  readonly variables: readonly string[];
  /** References that neither Define nor the environment resolve (httpd keeps them literally, AH00111). */
  readonly unresolved: readonly string[];
  readonly order: number;
  /** For Include/IncludeOptional: what the pattern matched. */
  readonly include?: IncludeOutcome;
}

export interface IncludeOutcome {
  readonly pattern: string;
  readonly files: readonly string[];
  /** httpd's own error when the include is fatal (no match for Include, unreadable file). */
  readonly error?: string;
}

/** Every conditional section httpd evaluated, true or false, for rules about ordering and names. */
export interface ConditionalEvaluation {
  readonly section: ApacheSectionUse;
  readonly subject: string;
  readonly negated: boolean;
  readonly result: boolean;
  /** True when the condition cannot be known statically and was assumed true. */
  readonly assumed: boolean;
}

export interface LoadedModule {
  readonly identifier: string;
  readonly sourceName: string;
  readonly path: string | undefined;
  readonly use: ApacheDirectiveUse | undefined;
}

/** The lines whose text has a `${`, in read order: the few a config has, found as the walk reads them. */
export interface ReferencingLines {
  /** Directives with a `${NAME}` reference. */
  readonly uses: ApacheDirectiveUse[];
  /** Sections and conditional sections whose arguments have a `${`. */
  readonly sections: ApacheSectionUse[];
}

export function sectionLabel(node: SectionNode): string {
  const text = node.argsText === '' ? `<${node.name}>` : `<${node.name} ${node.argsText}>`;
  return text.length > 80 ? `${text.slice(0, 77)}...>` : text;
}

/** What the readings over the directives in effect (the MPM, the core settings) ask of a config. */
export interface DirectiveIndex {
  /** Target httpd version, e.g. `2.4` or `2.4.62`. */
  readonly httpd: string;
  /** Directives in effect with this lower-case name, in read order. */
  named(name: string): readonly ApacheDirectiveUse[];
  /** The innermost enclosing container of a use (conditionals skipped), e.g. its `<VirtualHost>`. */
  container(use: { readonly parent: ApacheSectionUse | undefined }): ApacheSectionUse | undefined;
  /** The MPM loaded by LoadModule (or compiled in for 2.2), and how many were loaded. */
  loadedMpms(): { name: MpmName; module: LoadedModule }[];
}
