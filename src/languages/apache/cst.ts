import type { Range } from '../../core/types.js';
import type { LogicalLine } from './lexer.js';

/** An argument of a directive or section, with where it is written. */
export interface ApacheArg {
  /** After quote removal and unescaping, before `${VAR}` expansion. */
  readonly value: string;
  /** Source range, quotes included (may span a continuation). */
  readonly range: Range;
  readonly quote: '"' | "'" | undefined;
  readonly unterminated: boolean;
}

interface LineNodeBase {
  readonly line: LogicalLine;
  /** Whole physical lines, line break included. */
  readonly range: Range;
}

export interface DirectiveNode extends LineNodeBase {
  readonly kind: 'directive';
  /** As written; compare with `nameLower`. */
  readonly name: string;
  readonly nameLower: string;
  readonly nameRange: Range;
  readonly args: readonly ApacheArg[];
  /** The logical text after the name, trimmed (what httpd hands a RAW_ARGS handler). */
  readonly argsText: string;
}

export interface SectionNode {
  readonly kind: 'section';
  /** Without the `<`, as written. */
  readonly name: string;
  readonly nameLower: string;
  readonly nameRange: Range;
  readonly args: readonly ApacheArg[];
  /** Text between the name and the last `>`, trimmed. */
  readonly argsText: string;
  /** Text after the last `>` on the open line, which httpd drops silently (normally empty). */
  readonly afterClose: string;
  readonly open: LogicalLine;
  readonly children: readonly ApacheNode[];
  readonly close: CloseTag | undefined;
  readonly range: Range;
}

export interface CloseTag {
  readonly line: LogicalLine;
  readonly name: string;
  readonly range: Range;
}

export interface CommentNode extends LineNodeBase {
  readonly kind: 'comment';
}

export interface BlankNode extends LineNodeBase {
  readonly kind: 'blank';
}

/** A close tag that matches no open section, or text the parser gave up on (nesting limit). */
export interface ErrorNode extends LineNodeBase {
  readonly kind: 'error';
  readonly message: string;
}

export type ApacheNode = DirectiveNode | SectionNode | CommentNode | BlankNode | ErrorNode;

export interface ParseProblem {
  readonly message: string;
  readonly range: Range;
}

/** Every directive and section of a file, inside every section, whatever its condition. */
export function visitApacheNodes(
  nodes: readonly ApacheNode[],
  visit: (node: Extract<ApacheNode, { kind: 'directive' | 'section' }>) => void,
): void {
  for (const node of nodes) {
    if (node.kind === 'directive') visit(node);
    else if (node.kind === 'section') {
      visit(node);
      visitApacheNodes(node.children, visit);
    }
  }
}
