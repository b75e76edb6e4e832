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
    readonly consumers: readonly Consumer[];
    readonly consumersAfterPatch?: readonly Consumer[];
  };
  readonly results: readonly { readonly file: string; readonly diagnostics: readonly ReportDiagnostic[]; readonly patch?: string }[];
}

interface Consumer {
  readonly label: string;
  readonly kind: string;
  readonly bytes: number;
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
  readonly consumers: readonly Consumer[];
  /** The same after the host's patch; undefined when the patch changes none. */
  readonly consumersAfterPatch: readonly Consumer[] | undefined;
  /** The host's patch, every file's part of it. */
  readonly patch: string;
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
  const { hosts, newest } = readReports(dir);
  hosts.sort(byOvercommit);
  const rules = rulesAcross(hosts);
  if (options.format === 'json') {
    const shown = hosts.map(({ diagnostics: _diagnostics, patch: _patch, ...host }) => host);
    stdout.write(`${JSON.stringify({ version: 1, hosts: shown, rules }, null, 2)}\n`);
  } else if (options.format === 'html') stdout.write(fleetHtml(hosts, rules, newest));
  else if (options.format === 'sarif') stdout.write(`${JSON.stringify(fleetSarif(hosts), null, 2)}\n`);
  else stdout.write(fleetStylish(hosts, rules));
  return hosts.some((host) => host.errors > 0 || host.unreadable !== undefined) ? 1 : 0;
}

/**
 * Every `<host>.json` of the directory, and `newest`: the day the newest
 * report read was written (`2026-12-06`), which is how old the figures are
 * at least.
 */
function readReports(dir: string): { hosts: HostLine[]; newest: string } {
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
  let modified = 0;
  const hosts = names.map((name): HostLine => {
    const host = name.slice(0, -'.json'.length);
    const report = readReport(path.join(dir, name), real, (stat) => (modified = Math.max(modified, stat.mtimeMs)));
    if (typeof report === 'string') return unreadableHost(host, report);
    const diagnostics = report.results.flatMap((result) => result.diagnostics);
    return {
      name: host,
      ram: report.budget?.ram,
      peak: report.budget?.peak,
      peakAfterPatch: report.budget?.peakAfterPatch,
      consumers: report.budget?.consumers ?? [],
      consumersAfterPatch: changedConsumers(report.budget?.consumers, report.budget?.consumersAfterPatch),
      patch: report.results.map((result) => (typeof result.patch === 'string' ? result.patch : '')).join(''),
      errors: diagnostics.filter((entry) => entry.severity === 'error').length,
      warnings: diagnostics.filter((entry) => entry.severity === 'warn').length,
      notInEffect: diagnostics.filter((entry) => DRIFT_RULES.has(entry.ruleId)).length,
      diagnostics,
    };
  });
  return { hosts, newest: modified === 0 ? 'an unknown date' : new Date(modified).toISOString().slice(0, 10) };
}

function changedConsumers(
  before: readonly Consumer[] | undefined,
  after: readonly Consumer[] | undefined,
): readonly Consumer[] | undefined {
  if (before === undefined || after === undefined) return undefined;
  const same = after.length === before.length && after.every((consumer, index) => consumer.bytes === before[index]?.bytes);
  return same ? undefined : after;
}

function unreadableHost(name: string, unreadable: string): HostLine {
  return {
    name,
    ram: undefined,
    peak: undefined,
    peakAfterPatch: undefined,
    consumers: [],
    consumersAfterPatch: undefined,
    patch: '',
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
 * file's bytes. `read` gets the file's stat once its bytes are read.
 */
function readReport(file: string, directory: string, read: (stat: fs.Stats) => void): HostReport | string {
  let text: string;
  try {
    const target = fs.realpathSync(file);
    if (path.dirname(target) !== directory && !target.startsWith(`${directory}${path.sep}`))
      return 'a symlink to a file outside the directory, not followed';
    const stat = fs.statSync(target);
    if (!stat.isFile()) return 'not a regular file';
    if (stat.size > MAX_REPORT_BYTES) return `${stat.size} bytes, more than a report`;
    text = fs.readFileSync(target, 'utf8');
    read(stat);
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
  for (const key of ['consumers', 'consumersAfterPatch'] as const) {
    if (key === 'consumersAfterPatch' && budget[key] === undefined) continue;
    if (!Array.isArray(budget[key])) return `budget.${key} is not a list`;
    const bad = (budget[key] as unknown[]).findIndex(
      (consumer) =>
        !isObject(consumer) ||
        typeof consumer.label !== 'string' ||
        typeof consumer.kind !== 'string' ||
        typeof consumer.bytes !== 'number',
    );
    if (bad !== -1) return `budget.${key}[${bad}] is not a consumer`;
  }
  return undefined;
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

/** Apache, PHP, the database and the OS reserve each in a colour of their own (PHP's pools are web-tier consumers, told by name). */
const KIND_COLOUR: Readonly<Record<string, string>> = { apache: '#3b7dd8', php: '#8e5bd6', mysql: '#d8873b', os: '#8a8a8a' };

function colourOf(consumer: Consumer): string {
  const kind = consumer.kind === 'apache' && /^php/i.test(consumer.label) ? 'php' : consumer.kind;
  return KIND_COLOUR[kind] ?? '#5a5';
}

/** One bar: its consumers as segments on the host's own scale, and the RAM mark. */
function track(consumers: readonly Consumer[], ram: number | undefined, scale: number, after: boolean): string {
  const percent = (bytes: number): string => `${((bytes / scale) * 100).toFixed(2)}%`;
  const segments = consumers
    .map(
      (consumer) =>
        `<span class="${after ? 'aseg' : 'seg'}" style="width:${percent(consumer.bytes)};background:${colourOf(consumer)}">${escapeHtml(`${consumer.label} ${formatBytes(consumer.bytes)}`)}</span>`,
    )
    .join('');
  const mark =
    ram === undefined
      ? ''
      : `<span class="${after ? 'aram' : 'ram'}" style="left:${percent(ram)}" title="RAM ${escapeHtml(formatBytes(ram))}"></span>`;
  return `<div class="${after ? 'track-after' : 'track'}">${segments}${mark}</div>`;
}

/** The host's findings and patch, folded under its verdict. */
function hostDetails(host: HostLine): string {
  if (host.diagnostics.length === 0 && host.patch === '') return '';
  const findings = host.diagnostics
    .map((entry) => escapeHtml(`${entry.file}:${entry.line}:${entry.column} ${entry.severity} ${entry.message} ${entry.ruleId}`))
    .join('\n');
  const patch = host.patch === '' ? '' : `<pre class="patch">${escapeHtml(host.patch)}</pre>`;
  return `<details><summary>${count(host.diagnostics.length, 'finding')}${host.patch === '' ? '' : ', the patch'}</summary><pre>${findings}</pre>${patch}</details>`;
}

/**
 * One page, no server and no external asset: each host's memory as a bar of
 * its consumers against a RAM mark, on the host's own scale (a 1 GiB host
 * beside a 64 GiB one is read as clearly), the bar after its patch under it,
 * every consumer named with its size under the bars (a segment is labelled
 * inside only where the label fits), and the host's findings and patch
 * folded under its verdict. Dated by the newest report.
 */
function fleetHtml(hosts: readonly HostLine[], rules: readonly RuleLine[], dated: string): string {
  const rows = hosts.map((host) => {
    const scale = Math.max(1, host.ram ?? 0, host.peak ?? 0, host.peakAfterPatch ?? 0);
    const parts = host.consumers
      .map(
        (consumer) =>
          `<span class="part"><i style="background:${colourOf(consumer)}"></i>${escapeHtml(`${consumer.label} ${formatBytes(consumer.bytes)}`)}</span>`,
      )
      .join(' ');
    const after = host.consumersAfterPatch === undefined ? '' : track(host.consumersAfterPatch, host.ram, scale, true);
    const said = escapeHtml(host.unreadable === undefined ? verdict(host) : `unreadable: ${host.unreadable}`);
    return `<tr><th>${escapeHtml(host.name)}</th><td class="memory">${track(host.consumers, host.ram, scale, false)}${after}<div class="parts">${parts}</div></td><td>${said}${hostDetails(host)}</td><td>${host.errors}</td><td>${host.warnings}</td><td>${host.notInEffect}</td></tr>`;
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
th, td { padding: 4px 8px; text-align: left; border-bottom: 1px solid #ddd; vertical-align: top; }
th { white-space: nowrap; }
.track, .track-after { position: relative; width: 480px; height: 22px; margin-top: 3px; white-space: nowrap; }
.track-after { height: 10px; opacity: 0.75; }
.seg, .aseg { display: inline-block; height: 100%; overflow: hidden; white-space: nowrap; color: #fff; font-size: 11px; line-height: 22px; text-indent: 3px; vertical-align: top; }
.aseg { font-size: 0; }
.seg + .seg, .aseg + .aseg { box-shadow: inset 1px 0 #fff; }
.ram, .aram { position: absolute; top: -3px; bottom: -3px; width: 2px; background: #c00; }
.parts { width: 480px; font-size: 12px; color: #444; margin: 4px 0 2px; }
.part { white-space: nowrap; margin-right: 10px; }
.part i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
details { font-size: 12px; }
pre { white-space: pre-wrap; max-width: 560px; margin: 4px 0; }
</style></head><body>
<h1>tune-lint fleet</h1>
<p>Reports of ${escapeHtml(dated)}: ${count(hosts.length, 'host')}. Each host's bar is on its own scale, RAM at the red line; the thin bar under it is after its patch.</p>
<h2>Memory at peak against RAM, most over-committed first</h2>
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
