import * as path from 'node:path';
import type { ApacheConfig } from '../../src/languages/apache/model.js';
import { EXEC_ON_READ_DIRECTIVES } from '../../src/languages/apache/names.js';

export interface FlatDirective {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly args: string;
  readonly depth: number;
}

/**
 * tune-lint's reading in the shape of httpd's `-D DUMP_CONFIG`: directives
 * and containers in effect, in read order, EXEC_ON_READ directives and the
 * conditional wrappers left out, a section's arguments with their `>`, the
 * line of the last physical line, names lower-cased (httpd prints its own
 * spelling). `file` maps a path to what the oracle reports.
 */
export function flattenLikeDumpConfig(config: ApacheConfig, file: (serverPath: string) => string): FlatDirective[] {
  const entries: { order: number; entry: FlatDirective }[] = [];
  const depthOf = (use: { readonly parent: ApacheConfig['sections'][number]['parent'] }): number => {
    let depth = 0;
    for (let parent = use.parent; parent !== undefined; parent = parent.parent) if (!parent.conditional) depth++;
    return depth;
  };
  const inert = (use: { readonly parent: ApacheConfig['sections'][number]['parent'] }): boolean => {
    for (let parent = use.parent; parent !== undefined; parent = parent.parent) if (parent.name === 'macro') return true;
    return false;
  };
  for (const use of config.uses) {
    if (use.file.path === '-C' || EXEC_ON_READ_DIRECTIVES.has(use.name) || inert(use)) continue;
    entries.push({
      order: use.order,
      entry: {
        file: file(config.fs.serverPath(use.file.path)),
        line: use.file.position(use.node.line.end - 1).line,
        name: use.node.name.toLowerCase(),
        args: use.argsText,
        depth: depthOf(use),
      },
    });
  }
  for (const section of config.sections) {
    if (inert(section)) continue;
    entries.push({
      order: section.order,
      entry: {
        file: file(config.fs.serverPath(section.file.path)),
        line: section.file.position(section.node.open.end - 1).line,
        name: `<${section.node.name.toLowerCase()}`,
        args: `${section.argsText}>${section.node.afterClose}`,
        depth: depthOf(section),
      },
    });
  }
  return entries.sort((a, b) => a.order - b.order).map((item) => item.entry);
}

export function relativeTo(dir: string): (file: string) => string {
  return (file) => path.relative(dir, file).split(path.sep).join('/');
}
