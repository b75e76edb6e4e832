import { DEFAULT_TARGETS, parseTargetSpec } from '../core/targets.js';
import type { HostFacts } from '../host/facts.js';
import { describeHostFacts, describeLive } from '../host/format.js';
import { probeHost } from '../host/probe.js';
import { hostFactsToProfileYaml } from '../host/profile.js';
import { stdout } from '../util/stdio.js';
import { mainPaths, systemConfigs } from './paths.js';

export interface ProbeCommandOptions {
  readonly yaml: boolean;
  readonly live: boolean;
  readonly mysqlDefaultsFile?: string;
}

/**
 * `tune-lint probe [paths...]`: this machine's facts, and what its running
 * servers say (the configs given, or the system's, tell where to ask); with
 * --yaml a profile to commit to a config repository, so it can be linted
 * later with production's figures.
 */
export async function runProbe(paths: readonly string[], options: ProbeCommandOptions): Promise<number> {
  // The configs given, or the system's: where several servers of a kind run, the one started with them is measured.
  const configs = paths.length > 0 ? mainPaths(paths, {}, process.cwd()) : systemConfigs(undefined, undefined);
  const probed = await probeHost({ linted: configs });
  const facts = options.live ? await withLiveFacts(probed, configs, options) : probed;
  if (options.yaml) stdout.write(await hostFactsToProfileYaml({ ...facts, notes: [...(facts.notes ?? []), ...(facts.liveNotes ?? [])] }));
  else stdout.write(`${[...describeHostFacts(facts), ...describeLive(facts)].join('\n')}\n`);
  return 0;
}

async function withLiveFacts(probed: HostFacts, configs: readonly string[], options: ProbeCommandOptions): Promise<HostFacts> {
  const [{ lint }, { askServers }] = await Promise.all([import('../lint.js'), import('../live/index.js')]);
  const db = probed.databaseServer === undefined ? DEFAULT_TARGETS.db : parseTargetSpec(probed.databaseServer.value).db;
  const live = options.mysqlDefaultsFile === undefined ? {} : { mysqlDefaultsFile: options.mysqlDefaultsFile };
  const result = await lint({
    paths: configs,
    host: probed,
    targets: { ...DEFAULT_TARGETS, db },
    rules: { rules: [], setting: () => ({ severity: 'off', options: {}, explicit: false }) },
    fixType: 'none',
    askServers: (loaded) => askServers(probed, loaded, db, live),
  });
  return result.host;
}
