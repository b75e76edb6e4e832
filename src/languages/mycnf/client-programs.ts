import { CLIENT_PROGRAM_OPTIONS } from './client-options.js';
import { groupKey } from './groups.js';
import { normaliseKey, OPTION_PREFIXES } from './names.js';
import { OptionList } from './option-list.js';

/** A MariaDB client program: the option-file groups it reads and the options it takes. */
export interface ClientProgram {
  readonly program: string;
  readonly groups: ReadonlySet<string>;
  readonly options: OptionList;
}

/** What a client program makes of an option name: my_getopt as the server runs it, prefix matching included. */
export type ClientVerdict = 'known' | 'unknown' | 'ambiguous';

let programs: readonly ClientProgram[] | undefined;
let union: ReadonlySet<string> | undefined;

export function clientPrograms(): readonly ClientProgram[] {
  programs ??= CLIENT_PROGRAM_OPTIONS.map((entry) => ({
    program: entry.program,
    groups: new Set(entry.groups.map(groupKey)),
    options: new OptionList(entry.names.trim().split(/\s+/)),
  }));
  return programs;
}

/** The client programs that read a group, in the table's order (mariadb first). */
export function programsReading(group: string): readonly ClientProgram[] {
  const key = groupKey(group);
  return clientPrograms().filter((program) => program.groups.has(key));
}

function optionUnion(): ReadonlySet<string> {
  union ??= new Set(clientPrograms().flatMap((program) => program.options.all()));
  return union;
}

/** True when some client program takes the option (normalised key). */
export function isClientOption(key: string): boolean {
  return optionUnion().has(key);
}

/** Every option some client program takes, sorted. */
export function clientOptionNames(): readonly string[] {
  return [...optionUnion()].sort();
}

/** How a program reads an option name as written: the whole name, a unique prefix of one, then without skip-/enable-/... */
export function clientVerdict(program: ClientProgram, rawName: string): ClientVerdict {
  let key = normaliseKey(rawName);
  for (;;) {
    const found = program.options.find(key);
    if (found.length === 1) return 'known';
    if (found.length > 1) return 'ambiguous';
    const prefix = OPTION_PREFIXES.find((candidate) => key.startsWith(`${candidate}_`));
    if (prefix === undefined) return 'unknown';
    key = key.slice(prefix.length + 1);
  }
}
