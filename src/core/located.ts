import type { Located } from './types.js';

/** `file:line` of a located thing, for messages. */
export function lineOf(at: Located): string {
  return `${at.file.displayPath}:${at.file.position(at.range[0]).line}`;
}
