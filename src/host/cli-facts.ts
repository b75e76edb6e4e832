import type { HostFacts } from './facts.js';
import { HostFactsError } from './facts.js';
import type { Checked } from './values.js';
import { checkCpus, checkSize } from './values.js';

/** The host flags as commander hands them over: raw strings, undefined when not given. */
export interface HostFlags {
  readonly ram?: string | undefined;
  readonly cpus?: string | undefined;
  readonly perChild?: string | undefined;
  readonly phpPerChild?: string | undefined;
}

const HOST_FLAG_NAMES = { ram: '--host-ram', cpus: '--host-cpus', perChild: '--per-child', phpPerChild: '--php-per-child' } as const;

function fromFlag<T>(flag: string, checked: Checked<T>): T {
  if (!checked.ok) throw new HostFactsError(`${flag}: ${checked.problem}`);
  return checked.value;
}

/** Host facts from `--host-ram 512M --host-cpus 1 --per-child 20M`; a bad value is a HostFactsError naming the flag. */
export function hostFactsFromFlags(flags: HostFlags): HostFacts {
  const facts: { -readonly [K in keyof HostFacts]: HostFacts[K] } = {};
  if (flags.ram !== undefined) {
    facts.ram = { value: fromFlag(HOST_FLAG_NAMES.ram, checkSize(flags.ram, 'RAM')), source: `flag ${HOST_FLAG_NAMES.ram}` };
  }
  if (flags.cpus !== undefined) {
    facts.cpus = { value: fromFlag(HOST_FLAG_NAMES.cpus, checkCpus(flags.cpus)), source: `flag ${HOST_FLAG_NAMES.cpus}` };
  }
  if (flags.perChild !== undefined) {
    const bytes = fromFlag(HOST_FLAG_NAMES.perChild, checkSize(flags.perChild, 'per-child memory'));
    facts.perChild = { value: { median: bytes, max: bytes, count: 0, metric: 'pss' }, source: `flag ${HOST_FLAG_NAMES.perChild}` };
  }
  if (flags.phpPerChild !== undefined) {
    const bytes = fromFlag(HOST_FLAG_NAMES.phpPerChild, checkSize(flags.phpPerChild, 'per-child memory'));
    facts.phpPerChild = { value: { median: bytes, max: bytes, count: 0, metric: 'pss' }, source: `flag ${HOST_FLAG_NAMES.phpPerChild}` };
  }
  return facts;
}
