import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/types.js';
import { docsUrl } from '../docs-url.js';
import { readVersion } from './version.js';
import { printable } from '../util/printable.js';
import { stdout } from '../util/stdio.js';
import { formatBytes } from '../util/units.js';

/** What `tune-lint --format json` wrote for one host, as far as the overview reads it. */
interface HostReport {
  readonly budget?: {
    readonly ram: number;
    readonly peak: number;
    readonly peakAfterPatch: number;
    readonly consumers: readonly { readonly label: string; readonly kind: string; readonly bytes: number }[];
  };
  readonly results: readonly { readonly file: string; readonly diagnostics: readonly ReportDiagnostic[] }[];
}

interface ReportDiagnostic {
  readonly ruleId: string;
  readonly ruleName: string;
  readonly severity: string;
  readonly message: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

interface HostLine {
  readonly name: string;
  readonly ram: number | undefined;
  readonly peak: number | undefined;
  readonly peakAfterPatch: number | undefined;
  readonly consumers: readonly { readonly label: string; readonly kind: string; readonly bytes: number }[];
  readonly errors: number;
  readonly warnings: number;
  /** MY1010 and AP1017 findings: the files say something the running servers do not do. */
  readonly notInEffect: number;
  /** Every finding of the host: the per-rule counts and SARIF read them. */
  readonly diagnostics: readonly ReportDiagnostic[];
  /** Why the host's report could not be read; the host is listed with it, and the others are shown. */
  readonly unreadable?: string;
}

/** Rules whose findings mean the files and the running servers differ. */
const DRIFT_RULES = new Set(['MY1010', 'MY1011', 'AP1017']);

export interface FleetOptions {
  readonly format: 'stylish' | 'json' | 'sarif' | 'html';
}

/**
 * `tune-lint fleet DIR`: one overview of the per-host JSON reports in DIR
 * (`<host>.json`, as the Ansible role fetches them, or any other way): hosts
 * by how far their peak memory goes past RAM, errors per rule across the
 * fleet, and the hosts whose files differ from their running servers.
 * Exit 1 when any host has an error, as the lint itself, or a report that
 * cannot be read (it is listed as unreadable, and the rest are shown).
 */
export function runFleet(dir: string, options: FleetOptions): number {
  const hosts = readReports(dir).sort(byOvercommit);
  const rules = rulesAcross(hosts);
  if (options.format === 'json') {
    const shown = hosts.map(({ diagnostics: _diagnostics, ...host }) => host);
    stdout.write(`${JSON.stringify({ version: 1, hosts: shown, rules }, null, 2)}\n`);
  } else if (options.format === 'html') stdout.write(fleetHtml(hosts, rules));
  else if (options.format === 'sarif') stdout.write(`${JSON.stringify(fleetSarif(hosts), null, 2)}\n`);
  else stdout.write(fleetStylish(hosts, rules));
  return hosts.some((host) => host.errors > 0 || host.unreadable !== undefined) ? 1 : 0;
}

function readReports(dir: string): HostLine[] {
  let names: string[];
  let real: string;
  try {
    real = fs.realpathSync(dir);
    names = fs
      .readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch (error) {
    throw new ConfigError(`fleet ${dir}: cannot read the directory (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (names.length === 0) throw new ConfigError(`fleet ${dir}: no <host>.json reports (tune-lint --format json > <host>.json)`);
  return names.map((name) => {
    const host = name.slice(0, -'.json'.length);
    const report = readReport(path.join(dir, name), real);
    if (typeof report === 'string') return unreadableHost(host, report);
    const diagnostics = report.results.flatMap((result) => result.diagnostics);
    return {
      name: host,
      ram: report.budget?.ram,
      peak: report.budget?.peak,
      peakAfterPatch: report.budget?.peakAfterPatch,
      consumers: report.budget?.consumers ?? [],
      errors: diagnostics.filter((entry) => entry.severity === 'error').length,
      warnings: diagnostics.filter((entry) => entry.severity === 'warn').length,
      notInEffect: diagnostics.filter((entry) => DRIFT_RULES.has(entry.ruleId)).length,
      diagnostics,
    };
  });
}

function unreadableHost(name: string, unreadable: string): HostLine {
  return {
    name,
    ram: undefined,
    peak: undefined,
    peakAfterPatch: undefined,
    consumers: [],
    errors: 0,
    warnings: 0,
    notInEffect: 0,
    diagnostics: [],
    unreadable,
  };
}

/** Reports larger than this are not a host's lint: no file of 10,000 vhosts' findings comes near it. */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

/**
 * One host's report, or why it cannot be read. A symlink is followed only to
 * a file inside the directory (the reports may come from many hosts; none
 * of them chooses what else the controller reads), and no reason quotes the
 * file's bytes.
 */
function readReport(file: string, directory: string): HostReport | string {
  let text: string;
  try {
    const target = fs.realpathSync(file);
    if (path.dirname(target) !== directory && !target.startsWith(`${directory}${path.sep}`))
      return 'a symlink to a file outside the directory, not followed';
    const stat = fs.statSync(target);
    if (!stat.isFile()) return 'not a regular file';
    if (stat.size > MAX_REPORT_BYTES) return `${stat.size} bytes, more than a report`;
    text = fs.readFileSync(target, 'utf8');
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    return `not JSON${position === undefined ? '' : ` (at byte ${position})`}`;
  }
  const problem = reportProblem(report);
  return problem === undefined ? (report as HostReport) : `not a tune-lint JSON report (${problem})`;
}

const DIAGNOSTIC_STRINGS = ['ruleId', 'ruleName', 'severity', 'message', 'file'] as const;
const DIAGNOSTIC_NUMBERS = ['line', 'column', 'endLine', 'endColumn'] as const;

/** What in a parsed report is not as `--format json` writes it, if anything: the overview reads exactly these fields. */
function reportProblem(value: unknown): string | undefined {
  if (!isObject(value) || !Array.isArray(value.results)) return 'no results';
  for (const [index, result] of value.results.entries()) {
    if (!isObject(result) || !Array.isArray(result.diagnostics)) return `results[${index}] has no diagnostics`;
    for (const diagnostic of result.diagnostics as unknown[]) {
      if (!isObject(diagnostic)) return `results[${index}] holds a diagnostic that is not an object`;
      const field =
        DIAGNOSTIC_STRINGS.find((key) => typeof diagnostic[key] !== 'string') ??
        DIAGNOSTIC_NUMBERS.find((key) => typeof diagnostic[key] !== 'number');
      if (field !== undefined) return `a diagnostic of results[${index}] has no ${field}`;
    }
  }
  if (value.budget === undefined) return undefined;
  const budget = value.budget;
  if (!isObject(budget)) return 'budget is not an object';
  const number = (['ram', 'peak', 'peakAfterPatch'] as const).find((key) => typeof budget[key] !== 'number');
  if (number !== undefined) return `budget has no ${number}`;
  if (!Array.isArray(budget.consumers)) return 'budget.consumers is not a list';
  const consumers = budget.consumers as unknown[];
  const bad = consumers.findIndex(
    (consumer) =>
      !isObject(consumer) || typeof consumer.label !== 'string' || typeof consumer.kind !== 'string' || typeof consumer.bytes !== 'number',
  );
  return bad === -1 ? undefined : `budget.consumers[${bad}] is not a consumer`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Peak over RAM, worst first; hosts without a budget last, by name. */
function byOvercommit(a: HostLine, b: HostLine): number {
  const share = (host: HostLine): number => (host.ram === undefined || host.peak === undefined ? -1 : host.peak / host.ram);
  return share(b) - share(a) || a.name.localeCompare(b.name);
}

interface RuleLine {
  readonly ruleId: string;
  readonly ruleName: string;
  readonly hosts: number;
  readonly findings: number;
}

function rulesAcross(hosts: readonly HostLine[]): RuleLine[] {
  const byRule = new Map<string, { ruleName: string; hosts: Set<string>; findings: number }>();
  for (const host of hosts) {
    for (const entry of host.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')) {
      const line = byRule.get(entry.ruleId) ?? { ruleName: entry.ruleName, hosts: new Set<string>(), findings: 0 };
      line.hosts.add(host.name);
      line.findings++;
      byRule.set(entry.ruleId, line);
    }
  }
  return [...byRule]
    .map(([ruleId, line]) => ({ ruleId, ruleName: line.ruleName, hosts: line.hosts.size, findings: line.findings }))
    .sort((a, b) => b.hosts - a.hosts || a.ruleId.localeCompare(b.ruleId));
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? '' : 's'}`;
}

function overText(host: HostLine): string {
  if (host.ram === undefined || host.peak === undefined) return 'no RAM known';
  return host.peak > host.ram ? `${formatBytes(host.peak - host.ram)} over RAM` : `${formatBytes(host.ram - host.peak)} free`;
}

/** `peak 3 GiB of 500 MiB, 2.5 GiB over RAM (484 MiB after the patch)`: the verdict in numbers, for both the text and the page. */
function verdict(host: HostLine): string {
  const peak = host.peak === undefined || host.ram === undefined ? '' : `peak ${formatBytes(host.peak)} of ${formatBytes(host.ram)}, `;
  // A patch that moves the peak by less than the rounding would read "peak 1.1 GiB ... (1.1 GiB after the patch)".
  const after =
    host.peakAfterPatch !== undefined && host.peak !== undefined && formatBytes(host.peakAfterPatch) !== formatBytes(host.peak)
      ? ` (${formatBytes(host.peakAfterPatch)} after the patch)`
      : '';
  return `${peak}${overText(host)}${after}`;
}

function fleetStylish(hosts: readonly HostLine[], rules: readonly RuleLine[]): string {
  const width = Math.max(4, ...hosts.map((host) => printable(host.name).length));
  const lines = ['Hosts, most over-committed first:'];
  for (const host of hosts) {
    const said =
      host.unreadable === undefined
        ? `${verdict(host)}; ${count(host.errors, 'error')}, ${count(host.warnings, 'warning')}`
        : `unreadable: ${host.unreadable}`;
    lines.push(`  ${printable(host.name).padEnd(width)}  ${said}`);
  }
  lines.push('', 'Errors per rule across the fleet:');
  if (rules.length === 0) lines.push('  none');
  for (const rule of rules)
    lines.push(`  ${rule.ruleId} ${rule.ruleName}: ${count(rule.hosts, 'host')}, ${count(rule.findings, 'finding')}`);
  const drifting = hosts.filter((host) => host.notInEffect > 0);
  lines.push('', 'Files that differ from the running servers (MY1010, MY1011, AP1017):');
  if (drifting.length === 0) lines.push('  none');
  for (const host of drifting) lines.push(`  ${printable(host.name)}: ${count(host.notInEffect, 'setting')}`);
  return `${lines.join('\n')}\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const KIND_COLOUR: Readonly<Record<string, string>> = { apache: '#3b7dd8', mysql: '#d8873b', os: '#8a8a8a' };

/**
 * One page, no server and no external asset: each host's memory as a bar of
 * its consumers against a RAM mark, every consumer named with its size under
 * the bar (a segment is labelled inside only where the label fits).
 */
function fleetHtml(hosts: readonly HostLine[], rules: readonly RuleLine[]): string {
  const scale = Math.max(1, ...hosts.map((host) => Math.max(host.ram ?? 0, host.peak ?? 0)));
  const percent = (bytes: number): string => `${((bytes / scale) * 100).toFixed(2)}%`;
  const colour = (kind: string): string => KIND_COLOUR[kind] ?? '#5a5';
  const rows = hosts.map((host) => {
    const named = host.consumers.map((consumer) => escapeHtml(`${consumer.label} ${formatBytes(consumer.bytes)}`));
    const segments = host.consumers
      .map(
        (consumer, index) =>
          `<span class="seg" style="width:${percent(consumer.bytes)};background:${colour(consumer.kind)}">${named[index] ?? ''}</span>`,
      )
      .join('');
    const mark =
      host.ram === undefined
        ? ''
        : `<span class="ram" style="left:${percent(host.ram)}" title="RAM ${escapeHtml(formatBytes(host.ram))}"></span>`;
    const parts = host.consumers
      .map((consumer, index) => `<span class="part"><i style="background:${colour(consumer.kind)}"></i>${named[index] ?? ''}</span>`)
      .join(' ');
    return `<tr><th>${escapeHtml(host.name)}</th><td class="memory"><div class="track">${segments}${mark}</div><div class="parts">${parts}</div></td><td>${escapeHtml(host.unreadable === undefined ? verdict(host) : `unreadable: ${host.unreadable}`)}</td><td>${host.errors}</td><td>${host.warnings}</td><td>${host.notInEffect}</td></tr>`;
  });
  const ruleRows = rules.map(
    (rule) =>
      `<tr><td>${escapeHtml(rule.ruleId)}</td><td>${escapeHtml(rule.ruleName)}</td><td>${rule.hosts}</td><td>${rule.findings}</td></tr>`,
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tune-lint fleet</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin-bottom: 2em; }
th, td { padding: 4px 8px; text-align: left; border-bottom: 1px solid #ddd; }
th { vertical-align: top; white-space: nowrap; }
.track { position: relative; width: 480px; height: 22px; margin-top: 3px; white-space: nowrap; }
.seg { display: inline-block; height: 22px; overflow: hidden; white-space: nowrap; color: #fff; font-size: 11px; line-height: 22px; text-indent: 3px; vertical-align: top; }
.seg + .seg { box-shadow: inset 1px 0 #fff; }
.ram { position: absolute; top: -3px; bottom: -3px; width: 2px; background: #c00; }
.parts { width: 480px; font-size: 12px; color: #444; margin: 4px 0 2px; }
.part { white-space: nowrap; margin-right: 10px; }
.part i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
</style></head><body>
<h1>tune-lint fleet</h1>
<h2>Memory at peak against RAM (red line), most over-committed first</h2>
<table><tr><th>host</th><th>memory</th><th>verdict</th><th>errors</th><th>warnings</th><th>not in effect</th></tr>
${rows.join('\n')}
</table>
<h2>Errors per rule across the fleet</h2>
<table><tr><th>rule</th><th>name</th><th>hosts</th><th>findings</th></tr>
${ruleRows.join('\n')}
</table>
</body></html>
`;
}

const SARIF_LEVEL: Readonly<Record<string, string>> = { error: 'error', warn: 'warning', info: 'note' };

/**
 * SARIF 2.1.0 as one run for the whole fleet (`automationDetails.id`
 * `tune-lint/fleet/`): GitHub takes at most 20 runs per file, and a fleet
 * has more hosts than that. Each result names its host in its message and
 * in `properties.host`, and in its fingerprint, so that the same file of two
 * hosts gives two alerts; the driver lists every rule reported, with its
 * page. A report that could not be read is a failed invocation's notice.
 */
function fleetSarif(hosts: readonly HostLine[]): object {
  const version = readVersion();
  const reported = hosts.flatMap((host) => host.diagnostics);
  const rules = [...new Map(reported.map((entry) => [entry.ruleId, entry.ruleName])).entries()].sort(([a], [b]) => a.localeCompare(b));
  const index = new Map(rules.map(([id], i) => [id, i]));
  const unreadable = hosts.filter((host) => host.unreadable !== undefined);
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'tune-lint',
            version,
            informationUri: docsUrl(version),
            rules: rules.map(([id, name]) => ({ id, name, helpUri: docsUrl(version, id) })),
          },
        },
        automationDetails: { id: 'tune-lint/fleet/' },
        invocations: [
          {
            executionSuccessful: unreadable.length === 0,
            toolExecutionNotifications: unreadable.map((host) => ({
              level: 'error',
              message: { text: `${host.name}.json unreadable: ${host.unreadable ?? ''}` },
            })),
          },
        ],
        results: hosts.flatMap((host) =>
          host.diagnostics.map((entry) => ({
            ruleId: entry.ruleId,
            ruleIndex: index.get(entry.ruleId),
            level: SARIF_LEVEL[entry.severity] ?? 'note',
            message: { text: `${host.name}: ${entry.message}` },
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: entry.file.split('/').map(encodeURIComponent).join('/') },
                  region: { startLine: entry.line, startColumn: entry.column, endLine: entry.endLine, endColumn: entry.endColumn },
                },
              },
            ],
            partialFingerprints: { 'tuneLintHost/v1': host.name },
            properties: { host: host.name },
          })),
        ),
      },
    ],
  };
}
