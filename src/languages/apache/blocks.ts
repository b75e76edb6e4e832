import type { ApacheNode } from './cst.js';

/** `3 directives`: what a block holds, a nested section counted as one plus its contents. */
export function directiveCount(nodes: readonly ApacheNode[]): string {
  const count = countDirectives(nodes);
  return `${count} directive${count === 1 ? '' : 's'}`;
}

function countDirectives(nodes: readonly ApacheNode[]): number {
  let count = 0;
  for (const node of nodes) {
    if (node.kind === 'directive') count++;
    else if (node.kind === 'section') count += 1 + countDirectives(node.children);
  }
  return count;
}
