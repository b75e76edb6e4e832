import { HOST_FACT_NAMES, type HostFactName, type HostFacts } from '../host/facts.js';
import { isLiveFact } from '../host/format.js';

/**
 * Host facts as JSON in a fixed order (the order people read them, notes
 * last), each `{ value, source }`, whatever order the sources filled them in.
 */
export function factsJson(facts: HostFacts): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of HOST_FACT_NAMES) {
    const fact = facts[name];
    if (fact !== undefined && !isLiveFact(name)) out[name] = { value: valueJson(name, facts), source: fact.source };
  }
  if (facts.notes !== undefined && facts.notes.length > 0) out.notes = [...facts.notes];
  return out;
}

/**
 * The `live` block: what the running servers said (`mysql`, `apache`), the
 * kernel's OOM kills, and `notes` on what could not be asked; undefined when
 * nothing was asked.
 */
export function liveJson(facts: HostFacts): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (facts.mysqlLive !== undefined) out.mysql = { value: facts.mysqlLive.value, source: facts.mysqlLive.source };
  if (facts.apacheLive !== undefined) out.apache = { value: facts.apacheLive.value, source: facts.apacheLive.source };
  if (facts.oomKills !== undefined) out.oomKills = { value: facts.oomKills.value, source: facts.oomKills.source };
  if (facts.liveNotes !== undefined && facts.liveNotes.length > 0) out.notes = [...facts.liveNotes];
  return Object.keys(out).length === 0 ? undefined : out;
}

function valueJson(name: HostFactName, facts: HostFacts): unknown {
  if (name === 'perChild' && facts.perChild !== undefined) {
    const { median, max, count, metric } = facts.perChild.value;
    return { median, max, count, metric };
  }
  if (name === 'mounts' && facts.mounts !== undefined) {
    return facts.mounts.value.map(({ mountPoint, fsType, source }) => ({ mountPoint, fsType, source }));
  }
  return facts[name]?.value;
}
