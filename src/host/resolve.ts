import { loadAnsibleFacts } from './ansible.js';
import type { HostFlags } from './cli-facts.js';
import { hostFactsFromFlags } from './cli-facts.js';
import type { Fact, HostFacts } from './facts.js';
import { HOST_FACT_NAMES, type HostFactName } from './facts.js';
import { loadHostProfile } from './profile.js';
import type { Located } from './values.js';
import { hostFactsFromLocated } from './values.js';

export { HostFactsError } from './facts.js';

export interface HostSources {
  /** Raw CLI strings: `--host-ram 512M`, `--host-cpus 1`, `--per-child 20M`. */
  readonly flags?: HostFlags;
  /** `--profile host.yaml` */
  readonly profilePath?: string;
  /** `--facts web01.json`: Ansible facts. */
  readonly factsPath?: string;
  /** The `host:` section of .tune-lint.yaml with positions, parsed by the config loader; `source` names the file. */
  readonly config?: { readonly located: Located; readonly source: string };
  /** false with --no-probe: this machine is never looked at. */
  readonly probe: boolean;
  /** Starts a spinner and returns its stop function; called only when probing takes longer than SLOW_PROBE_MS. */
  readonly onSlowProbe?: () => () => void;
  /** Shares one probe among the calls of a run (one per host unit of .tune-lint.yaml overrides). */
  readonly probeCache?: ProbeCache;
  /** The main configs linted, absolute: where several servers of a kind run, the probe measures the one started with them. */
  readonly linted?: readonly string[];
}

/**
 * One probe per run: every host unit that needs this machine's facts gets the
 * same probe result, merged under its own flags, files and config, so the
 * facts of one unit never leak into another.
 */
export class ProbeCache {
  /** By the main configs the servers are matched to: one probe for the hosts of a run that lint the same ones. */
  private readonly probed = new Map<string, Promise<HostFacts>>();

  facts(onSlowProbe?: () => () => void, linted: readonly string[] = []): Promise<HostFacts> {
    const key = JSON.stringify([...linted].sort());
    let facts = this.probed.get(key);
    if (facts === undefined) {
      // Imported here: the probe's modules (node:os among them) are for runs that look at this machine.
      facts = withSlowNotice(async () => (await import('./probe.js')).probeHost({ linted }), onSlowProbe);
      this.probed.set(key, facts);
    }
    return facts;
  }
}

/** A probe usually takes 60-100 ms (half of it loading systeminformation); a spinner for less would only flicker. */
const SLOW_PROBE_MS = 150;

/** Facts the running servers give once the configs say where to ask (src/live), not the probe. */
const ASKED_AFTER_READING: ReadonlySet<HostFactName> = new Set(['mysqlLive', 'apacheLive']);

type MutableFacts = { -readonly [K in keyof HostFacts]: HostFacts[K] };

/**
 * The host facts of a run, each from the first source that has it:
 * flag > profile > Ansible facts > .tune-lint.yaml > probe. A profile or facts
 * file describes the machine the config is for, which is not this one, so
 * with either of them this machine is not probed: its RAM may be missing from
 * the file, but its Apache children, its mysqld and its mounts would be wrong.
 * Bad input throws HostFactsError; the probe itself never throws.
 */
export async function resolveHostFacts(sources: HostSources): Promise<HostFacts> {
  const layers: HostFacts[] = [];
  if (sources.flags !== undefined) layers.push(hostFactsFromFlags(sources.flags));
  if (sources.profilePath !== undefined) layers.push(await loadHostProfile(sources.profilePath));
  if (sources.factsPath !== undefined) layers.push(loadAnsibleFacts(sources.factsPath));
  if (sources.config !== undefined) layers.push(hostFactsFromLocated(sources.config.located, sources.config.source, 'host.'));
  const merged = mergeHostFacts(layers);
  const missing = HOST_FACT_NAMES.some((name) => merged[name] === undefined && !ASKED_AFTER_READING.has(name));
  if (!sources.probe || !missing) return merged;
  const otherMachine = sources.profilePath !== undefined ? `--profile ${sources.profilePath}` : `--facts ${sources.factsPath}`;
  if (sources.profilePath !== undefined || sources.factsPath !== undefined) {
    return mergeHostFacts([merged, { notes: [`this machine was not probed: ${otherMachine} describes the host the config is for`] }]);
  }
  const probeCache = sources.probeCache ?? new ProbeCache();
  return mergeHostFacts([merged, await probeCache.facts(sources.onSlowProbe, sources.linted)]);
}

/** Each fact from the first layer that has it; notes from every layer. */
function mergeHostFacts(layers: readonly HostFacts[]): HostFacts {
  const merged: MutableFacts = {};
  const target = merged as Record<string, Fact<unknown> | undefined>;
  for (const name of HOST_FACT_NAMES) {
    const found = layers.find((layer) => layer[name] !== undefined);
    if (found !== undefined) target[name] = found[name];
  }
  const notes = layers.flatMap((layer) => layer.notes ?? []);
  if (notes.length > 0) merged.notes = notes;
  return merged;
}

/** Runs `work`; if it is still running after `delay` ms, calls `onSlow` and, when the work ends either way, the stop function it returned. */
export async function withSlowNotice<T>(work: () => Promise<T>, onSlow: (() => () => void) | undefined, delay = SLOW_PROBE_MS): Promise<T> {
  let stop: (() => void) | undefined;
  const timer = onSlow === undefined ? undefined : setTimeout(() => (stop = onSlow()), delay);
  try {
    return await work();
  } finally {
    clearTimeout(timer);
    stop?.();
  }
}
