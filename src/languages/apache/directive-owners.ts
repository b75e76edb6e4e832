import type { LoadedModule } from './model.js';
import { COMPILED_IN, DIRECTIVE_OWNERS, MODULE_DIRECTIVES, SHIPPED_MODULES } from './module-directives.js';

/** The MPMs' own source files: their directives are AP1008's (foreign-mpm-directive) business. */
export const MPM_SOURCES: ReadonlySet<string> = new Set(['event.c', 'prefork.c', 'worker.c']);

/** The source files of the httpd 2.4 modules that register a directive (lower-case name; a section's with its `<`); undefined for a name none does. */
export function directiveOwners(lowerName: string): readonly string[] | undefined {
  const owners = DIRECTIVE_OWNERS[lowerName];
  return owners === undefined ? undefined : owners.includes(' ') ? owners.split(' ') : [owners];
}

let spelled: Map<string, string> | undefined;

/** httpd's spelling of every directive, by lower-case name: only a report needs it. */
function spellings(): Map<string, string> {
  if (spelled !== undefined) return spelled;
  const spelling = new Map<string, string>();
  for (const line of MODULE_DIRECTIVES.trim().split('\n')) {
    for (const name of (line.split(': ')[1] as string).split(' ')) spelling.set(name.toLowerCase(), name);
  }
  spelled = spelling;
  return spelling;
}

/** httpd's spelling of a directive (lower-case name; a section's with its `<`), as its messages write it. */
export function directiveSpelling(lowerName: string): string | undefined {
  return spellings().get(lowerName);
}

let shipped: ReadonlySet<string> | undefined;
const compiledIn: ReadonlySet<string> = new Set(COMPILED_IN.split(' '));

/** Whether the table knows every directive of a loaded module: one httpd 2.4 compiles in or ships to load. */
export function isShippedModule(module: LoadedModule): boolean {
  if (module.path === undefined) return compiledIn.has(module.sourceName);
  shipped ??= new Set(SHIPPED_MODULES.trim().split(' '));
  return shipped.has(module.identifier);
}

/**
 * The directive a misspelt name most likely means: the known name nearest by
 * edit distance, when that is at most 2 and less than a third of the name,
 * and no other name is as near.
 */
export function likelyDirective(lowerName: string): string | undefined {
  const limit = Math.min(2, Math.floor((lowerName.length - 1) / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  let tied = false;
  for (const [candidate, spelling] of spellings()) {
    // A directive is not a section: `<` starts the names of sections only.
    if (Math.abs(candidate.length - lowerName.length) > limit || candidate.startsWith('<') !== lowerName.startsWith('<')) continue;
    const distance = editDistance(lowerName, candidate, limit);
    if (distance < bestDistance) {
      best = spelling;
      bestDistance = distance;
      tied = false;
    } else if (distance === bestDistance) {
      tied = true;
    }
  }
  return best !== undefined && !tied ? best : undefined;
}

/** Levenshtein distance (an adjacent swap counts as one edit) when it is at most `limit`, else `limit + 1`. */
function editDistance(a: string, b: string, limit: number): number {
  const ceiling = limit + 1;
  let before = Array.from({ length: b.length + 1 }, (_, index) => index);
  let previous = before;
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let cost = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cost = Math.min(cost, (before[j - 2] as number) + 1);
      row.push(cost);
      rowMinimum = Math.min(rowMinimum, cost);
    }
    if (rowMinimum >= ceiling) return ceiling;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length] as number, ceiling);
}
