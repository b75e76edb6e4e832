import type { ApacheNode } from './cst.js';

/**
 * Prints a document from its nodes. Nodes are views over the original text,
 * so this is the concatenation of their slices in order; the round-trip tests
 * check that the parser left no byte out and took none twice.
 */
export function printApache(document: { readonly text: string; readonly nodes: readonly ApacheNode[] }): string {
  const parts: string[] = [];
  const text = document.text;
  const visit = (nodes: readonly ApacheNode[]): void => {
    for (const node of nodes) {
      if (node.kind === 'section') {
        parts.push(text.slice(node.open.start, node.open.end));
        visit(node.children);
        if (node.close !== undefined) parts.push(text.slice(node.close.range[0], node.close.range[1]));
      } else {
        parts.push(text.slice(node.range[0], node.range[1]));
      }
    }
  };
  visit(document.nodes);
  return parts.join('');
}
