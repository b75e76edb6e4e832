import { formatBytes } from '../util/units.js';
import type { ChildMemory, Fact, HostFacts, MountEntry } from './facts.js';
import { isNetworkFilesystem } from './facts.js';

/** `(from .tune-lint.yaml)`, or for probe and estimate sources the detail: `(probe: cgroup v1 limit)`. */
function origin(source: string): string {
  const detailed = /^(probe|estimate) \((.*)\)$/s.exec(source);
  if (detailed !== null) return `(${detailed[1]}: ${detailed[2]})`;
  return `(from ${source})`;
}

/** `per child 20 MiB (from flag --per-child)`, `per child 64 MiB (estimate: prefork with mod_php: ...)`. */
export function perChildLine(fact: Fact<ChildMemory>): string {
  const child = fact.value;
  if (child.count === 0) return `per child ${formatBytes(child.median)} ${origin(fact.source)}`;
  const spread = child.count === 1 ? 'one process' : `median of ${child.count} processes, max ${formatBytes(child.max)}`;
  const source = /^probe \((.*)\)$/s.exec(fact.source);
  const provenance = source === null ? `from ${fact.source}` : `probe: ${source[1]}`;
  return `per child ${formatBytes(child.median)} ${child.metric.toUpperCase()} (${spread}; ${provenance})`;
}

function mountLines(fact: Fact<readonly MountEntry[]>): string[] {
  const network = fact.value.filter((mount) => isNetworkFilesystem(mount.fsType));
  const lines = [`mounts: ${fact.value.length} ${origin(fact.source)}`];
  for (const mount of network) lines.push(`  network filesystem ${mount.fsType} at ${mount.mountPoint} (${mount.source})`);
  return lines;
}

/**
 * The facts as people read them, one per line, each with where it came from:
 * `RAM 500 MiB (from .tune-lint.yaml)`,
 * `per child 20 MiB PSS (median of 9 processes, max 23 MiB; probe: apache2 children)`.
 * Notes come last, as `note: ...`.
 */
export function describeHostFacts(facts: HostFacts): string[] {
  const lines: string[] = [];
  if (facts.ram) lines.push(`RAM ${formatBytes(facts.ram.value)} ${origin(facts.ram.source)}`);
  if (facts.cpus) lines.push(`CPUs ${facts.cpus.value} ${origin(facts.cpus.source)}`);
  if (facts.swap) lines.push(`swap ${formatBytes(facts.swap.value)} ${origin(facts.swap.source)}`);
  if (facts.perChild) lines.push(perChildLine(facts.perChild));
  if (facts.apacheRunning)
    lines.push(`Apache ${facts.apacheRunning.value ? 'running' : 'not running'} ${origin(facts.apacheRunning.source)}`);
  if (facts.mysqlRunning) lines.push(`MySQL ${facts.mysqlRunning.value ? 'running' : 'not running'} ${origin(facts.mysqlRunning.source)}`);
  if (facts.mysqlRss) lines.push(`MySQL RSS ${formatBytes(facts.mysqlRss.value)} ${origin(facts.mysqlRss.source)}`);
  if (facts.somaxconn) lines.push(`net.core.somaxconn ${facts.somaxconn.value} ${origin(facts.somaxconn.source)}`);
  if (facts.httpdVersion) lines.push(`httpd ${facts.httpdVersion.value} ${origin(facts.httpdVersion.source)}`);
  if (facts.databaseServer) lines.push(`database server ${facts.databaseServer.value} ${origin(facts.databaseServer.source)}`);
  if (facts.mounts) lines.push(...mountLines(facts.mounts));
  for (const note of facts.notes ?? []) lines.push(`note: ${note}`);
  return lines;
}
