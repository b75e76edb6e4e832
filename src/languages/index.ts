import type { AnyLanguageDefinition } from '../core/language.js';
import { apacheLanguage } from './apache/language.js';
import { mycnfLanguage } from './mycnf/language.js';
import { phpFpmLanguage } from './phpfpm/language.js';

/*
 * The registry: the built-in languages, in the order the linter runs their
 * rules and the reports go through them. Adding a language is a folder that
 * implements core/language.ts and a line here; nothing else names it.
 */
export const builtinLanguages: readonly AnyLanguageDefinition[] = [apacheLanguage, mycnfLanguage, phpFpmLanguage];

/** What the package exports of each language: every definition's `api`, by the names given there. */
export { ApacheDocument, parseApache } from './apache/parser.js';
export type { ApacheArg, ApacheNode, BlankNode, CloseTag, CommentNode, DirectiveNode, ErrorNode, SectionNode } from './apache/cst.js';
export { loadApache } from './apache/model.js';
export type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from './apache/model.js';
export type { ApacheReaderOptions } from './apache/language.js';
export { parseMyCnf } from './mycnf/parser.js';
export type {
  Eol,
  MycnfBlankLine,
  MycnfCommentLine,
  MycnfDocument,
  MycnfGroupLine,
  MycnfIncludeLine,
  MycnfLine,
  MycnfOptionLine,
  MycnfOtherLine,
} from './mycnf/parser.js';
export { loadMycnf } from './mycnf/model.js';
export type { MycnfConfig, MycnfOptionUse } from './mycnf/model.js';
export type { MycnfReaderOptions } from './mycnf/language.js';
export { parsePhpFpm } from './phpfpm/parser.js';
export type { PhpFpmLine, EntryLine } from './phpfpm/parser.js';
export { loadPhpFpm } from './phpfpm/model.js';
export type { PhpFpmConfig, PhpFpmEntryUse, PhpFpmPool } from './phpfpm/model.js';
