import { HOST_FACT_NAMES, type HostFactName, type HostFacts } from '../host/facts.js';

/**
 * Host facts as JSON in a fixed order (the order people read them, notes
 * last), each `{ value, source }`, whatever order the sources filled them in.
 */
export function factsJson(facts: HostFacts): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of HOST_FACT_NAMES) {
    const fact = facts[name];
    if (fact !== undefined) out[name] = { value: valueJson(name, facts), source: fact.source };
  }
  if (facts.notes !== undefined && facts.notes.length > 0) out.notes = [...facts.notes];
  return out;
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
