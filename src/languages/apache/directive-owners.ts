import type { LoadedModule } from './model.js';
import { NearestName } from '../../util/nearest-name.js';
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

let nearestDirective: NearestName | undefined;

/**
 * The directive a misspelt name most likely means: the known name nearest by
 * edit distance, when that is at most 2 and less than a third of the name,
 * and no other name is as near.
 */
export function likelyDirective(lowerName: string): string | undefined {
  nearestDirective ??= new NearestName(
    [...spellings().keys()],
    (name) => Math.min(2, Math.floor((name.length - 1) / 3)),
    // A directive is not a section: `<` starts the names of sections only.
    (name, candidate) => candidate.startsWith('<') === name.startsWith('<'),
  );
  const nearest = nearestDirective.find(lowerName);
  return nearest === undefined ? undefined : spellings().get(nearest);
}
