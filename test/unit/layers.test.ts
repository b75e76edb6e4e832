import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { repoPath } from '../helpers/paths.js';

/*
 * The layers of the source, bottom up, and the rules between them: a module
 * imports only from its own layer or the layers below, type-only imports
 * included; no two units, and no two files, import each other, however far
 * round; and the layers above the languages reach them only through the
 * registry (src/languages/index.ts) and the contract (src/core/language.ts).
 * The README's module map shows the same order.
 */

/** Each layer's units: a directory (every file below it) or a file, relative to the repository. */
const LAYERS: readonly (readonly string[])[] = [
  ['src/util'],
  ['src/core'],
  ['src/languages', 'src/host'],
  ['src/live'],
  ['src/analysis'],
  ['src/engine'],
  ['rules'],
  ['src/fix', 'src/verify', 'src/lint.ts'],
  ['src/config', 'src/formatters', 'src/testing', 'src/docs-url.ts', 'src/index.ts'],
  ['src/commands', 'src/lsp', 'src/program.ts', 'src/cli.ts'],
];

/** The unit a file belongs to: a language of its own, a rule family, or the layer entry that holds it. */
function unitOf(file: string): string {
  const language = /^src\/languages\/([^/]+)\//.exec(file);
  if (language !== null) return `src/languages/${language[1]}`;
  const family = /^rules\/([^/]+)\//.exec(file);
  if (family !== null) return `rules/${family[1]}`;
  const entry = LAYERS.flat().find((candidate) => file === candidate || file.startsWith(`${candidate}/`));
  if (entry === undefined) throw new Error(`${file} is in no layer: add its directory to LAYERS and to the README's module map`);
  return entry;
}

function layerOf(file: string): number {
  return LAYERS.findIndex((layer) => layer.some((entry) => file === entry || file.startsWith(`${entry}/`)));
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(repoPath(dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(repoPath(), path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** Every relative import and re-export of a file, type-only ones included, as repository paths of .ts files. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(repoPath(file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)].map(
    (match) => match[1] ?? match[2],
  );
  return specifiers.map((specifier) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), (specifier as string).replace(/\.js$/, '.ts'))),
  );
}

const files = [...sourceFiles('src'), ...sourceFiles('rules')];
const edges = files.flatMap((from) => importsOf(from).map((to) => ({ from, to })));

describe('layers', () => {
  it('every import and re-export reaches a file that exists', () => {
    assert.deepEqual(
      edges.filter(({ to }) => !files.includes(to)).map(({ from, to }) => `${from} -> ${to}`),
      [],
    );
  });

  it('no module imports from a layer above its own', () => {
    const upward = edges
      .filter(({ from, to }) => layerOf(to) > layerOf(from))
      .map(({ from, to }) => `${from} (${unitOf(from)}) -> ${to} (${unitOf(to)})`);
    assert.deepEqual(upward, []);
  });

  it("no cycle between units (languages, rule families, layers' directories), type-only imports included", () => {
    const graph = new Map<string, Set<string>>();
    for (const { from, to } of edges) {
      const [a, b] = [unitOf(from), unitOf(to)];
      if (a === b) continue;
      graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
    assert.deepEqual(cycles(graph), []);
  });

  it('no cycle between files either, not even inside one folder', () => {
    const graph = new Map<string, Set<string>>();
    for (const { from, to } of edges) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    assert.deepEqual(cycles(graph), []);
  });

  it('the engine, the linter, the commands, the formatters, the config, the fixes and the public API name no language', () => {
    const languageBlind = ['src/engine/', 'src/lint.ts', 'src/commands/', 'src/formatters/', 'src/config/', 'src/fix/', 'src/index.ts'];
    const naming = edges
      .filter(({ from }) => languageBlind.some((entry) => from === entry || from.startsWith(entry)))
      .filter(({ to }) => /^src\/languages\/[^/]+\//.test(to))
      .map(({ from, to }) => `${from} -> ${to}`);
    assert.deepEqual(naming, [], 'they reach the languages through src/languages/index.ts, the registry, and core/language.ts');
  });

  it('the check itself finds an upward import and a cycle', () => {
    assert.ok(layerOf('src/engine/linter.ts') > layerOf('src/core/types.ts'));
    assert.deepEqual(
      cycles(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['c'])],
          ['c', new Set(['a'])],
          ['d', new Set(['a'])],
        ]),
      ),
      ['units that import each other: a, b, c'],
    );
  });
});

/** Every strongly connected component of more than one unit, its units sorted (Tarjan). */
function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === node ? undefined : stack.pop()) component.push(member);
    if (component.length > 1) found.push(`units that import each other: ${component.sort().join(', ')}`);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}
