import { describeHostFacts } from '../host/format.js';
import { probeHost } from '../host/probe.js';
import { hostFactsToProfileYaml } from '../host/profile.js';
import { stdout } from '../util/stdio.js';

/** `tune-lint probe`: this machine's facts, or with --yaml a profile to commit to a config repo. */
export async function runProbe(options: { yaml: boolean }): Promise<number> {
  const facts = await probeHost();
  stdout.write(options.yaml ? hostFactsToProfileYaml(facts) : `${describeHostFacts(facts).join('\n')}\n`);
  return 0;
}
