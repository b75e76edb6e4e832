import type { Sizing } from '../analysis/sizing.js';
import { lineOf } from '../core/located.js';
import { printable } from '../util/printable.js';
import { formatBytes, formatPercent } from '../util/units.js';

/** Columns of one bar: wide enough to read a share of a few percent, narrow enough for an 80-column log with its labels. */
export const BAR_WIDTH = 40;

export type BarKind = 'apache' | 'mysql' | 'os' | 'free' | 'over';

/** Colour for a bar's cells; identity when colour is off, so the characters alone must carry the meaning. */
export type PaintBar = (kind: BarKind, cells: string) => string;

export interface Consumer {
  readonly label: string;
  readonly kind: 'apache' | 'mysql' | 'os';
  readonly bytes: number;
  /** The arithmetic behind the figure, in the words of the config. */
  readonly detail: string;
}

/**
 * The memory budget as bars, one per consumer (Apache at peak, MySQL's worst
 * case, the OS reserve) and what is left free, laid end to end against RAM:
 * `#` is memory used within RAM, `=` the OS reserve, `.` free memory, `!`
 * memory beyond RAM, `|` where RAM ends. An over-committed host draws bars
 * past the `|`. Before and after the patch when the patch changes a figure;
 * nothing without RAM or anything to size.
 */
export function budgetPicture(before: Sizing, after: Sizing | undefined, paint: PaintBar): string[] {
  const ram = before.ram?.value;
  if (ram === undefined || before.osReserve === undefined) return [];
  const first = consumersOf(before);
  if (first.length === 1) return [];
  const second = after === undefined ? undefined : consumersOf(after);
  const changed = second?.some((consumer, i) => {
    const earlier = first[i];
    return earlier?.bytes !== consumer.bytes || earlier.detail !== consumer.detail;
  });
  const labelWidth = Math.max(...first.map((consumer) => consumer.label.length), 'free'.length);
  const lines = [`Memory at peak against ${formatBytes(ram)} RAM (${printable(before.ram?.source ?? '')}):`];
  lines.push(...picture(changed ? 'before the patch' : undefined, first, ram, labelWidth, paint));
  if (changed && second !== undefined) lines.push(...picture('after the patch', second, ram, labelWidth, paint));
  for (const apache of before.apache) {
    if (apache.fastCgi === undefined || before.pools.length > 0) continue;
    const handOff = `${apache.fastCgi.node.name} ${apache.fastCgi.argsText} (${lineOf(apache.fastCgi)})`;
    lines.push(
      `  FastCGI server not counted: ${printable(handOff)} passes requests to it; its processes (php-fpm: pm.max_children x one worker) come on top`,
    );
  }
  if (!before.dbLocal.value) lines.push(`  no database counted: ${printable(before.dbLocal.reason)}`);
  else if (before.mysql === undefined)
    lines.push(`  MySQL not counted: ${printable(before.dbLocal.reason)}, but no my.cnf was linted with it`);
  return lines;
}

export function consumersOf(sizing: Sizing): Consumer[] {
  const consumers: Consumer[] = sizing.apache.map((apache, index) => {
    const perChild = formatBytes(apache.perChild.value.median);
    const processes =
      apache.mpm === 'prefork'
        ? `${apache.limitName} ${apache.maxRequestWorkers} x ${perChild} per child`
        : `${apache.limitName} ${apache.maxRequestWorkers} / ThreadsPerChild ${apache.threadsPerChild} = ${apache.processes} processes x ${perChild}`;
    const budget = sizing.apacheBudget === undefined ? '' : `; budget ${formatBytes(sizing.apacheBudget)}`;
    return {
      label: sizing.apache.length === 1 ? 'Apache' : `Apache ${index + 1}`,
      kind: 'apache',
      bytes: apache.peak,
      detail: `${processes}${budget}${sizing.apache.length === 1 ? '' : ` (${printable(apache.config.root.displayPath)})`}`,
    };
  });
  for (const pool of sizing.pools) {
    const children = pool.maxChildren === undefined ? 'pm.max_children not set' : `pm.max_children ${pool.maxChildren}`;
    consumers.push({
      label: `php-fpm ${pool.pool.name}`,
      kind: 'apache',
      bytes: pool.peak,
      detail: `${children} x ${formatBytes(pool.perChild.value)} per child${pool.config.pools.length === 1 ? '' : ` (${printable(pool.config.root.displayPath)})`}`,
    });
  }
  const mysql = sizing.mysql;
  if (mysql !== undefined) {
    consumers.push({
      label: 'MySQL',
      kind: 'mysql',
      bytes: mysql.peak,
      detail: `${formatBytes(mysql.globalBytes)} global buffers + max_connections ${mysql.maxConnections.value} x ${formatBytes(mysql.perConnectionBytes)}`,
    });
  }
  const reserve = sizing.osReserve ?? 0;
  const { osReserveShare, osReserveMin, osReserveMax } = sizing.budget;
  const ram = sizing.ram?.value ?? 0;
  const clamp =
    ram * osReserveShare < osReserveMin
      ? `, at least ${formatBytes(osReserveMin)}`
      : ram * osReserveShare > osReserveMax
        ? `, at most ${formatBytes(osReserveMax)}`
        : '';
  consumers.push({ label: 'OS reserve', kind: 'os', bytes: reserve, detail: `${formatPercent(osReserveShare)} of RAM${clamp}` });
  return consumers;
}

function picture(title: string | undefined, consumers: readonly Consumer[], ram: number, labelWidth: number, paint: PaintBar): string[] {
  const total = consumers.reduce((sum, consumer) => sum + consumer.bytes, 0);
  const scale = Math.max(ram, total);
  const column = (bytes: number): number => Math.round((bytes / scale) * BAR_WIDTH);
  const ramColumn = column(ram);
  const verdict = total > ram ? `${formatBytes(total - ram)} more than RAM` : `${formatBytes(ram - total)} free`;
  const lines = [
    `  ${title === undefined ? '' : `${title}: `}${formatBytes(total)} at peak, ${verdict} (one column = ${formatBytes(scale / BAR_WIDTH)})`,
  ];
  const row = (label: string, cells: string, bytes: number, detail: string): string =>
    `    ${label.padEnd(labelWidth)} ${cells} ${formatBytes(bytes).padStart(9)}  ${detail}`.trimEnd();
  let used = 0;
  for (const consumer of consumers) {
    used += consumer.bytes;
    // Anything above zero gets at least one cell, even when rounding puts it past the last column.
    const end = consumer.bytes > 0 ? Math.max(column(used), Math.min(column(used - consumer.bytes) + 1, BAR_WIDTH)) : column(used);
    const start = consumer.bytes > 0 ? Math.min(column(used - consumer.bytes), end - 1) : end;
    lines.push(row(consumer.label, bar(start, end, ramColumn, consumer.kind, paint), consumer.bytes, consumer.detail));
  }
  const free = Math.max(0, ram - total);
  const freeDetail = total > ram ? `none: the peak is over RAM by ${formatBytes(total - ram)}` : `RAM less the above`;
  lines.push(row('free', bar(column(total), total > ram ? column(total) : ramColumn, ramColumn, 'free', paint), free, freeDetail));
  return lines;
}

/** Cells [start, end) of the bar filled and the RAM mark drawn at its column: always BAR_WIDTH + 1 characters. */
function bar(start: number, end: number, ramColumn: number, kind: 'apache' | 'mysql' | 'os' | 'free', paint: PaintBar): string {
  const fill = kind === 'free' ? '.' : kind === 'os' ? '=' : '#';
  const runs: { kind: BarKind | 'mark' | 'empty'; text: string }[] = [];
  const push = (cellKind: BarKind | 'mark' | 'empty', char: string): void => {
    const last = runs[runs.length - 1];
    if (last?.kind === cellKind) last.text += char;
    else runs.push({ kind: cellKind, text: char });
  };
  for (let cell = 0; cell <= BAR_WIDTH; cell++) {
    if (cell === ramColumn) push('mark', '|');
    if (cell === BAR_WIDTH) break;
    if (cell < start || cell >= end) push('empty', ' ');
    else if (cell >= ramColumn) push('over', '!');
    else push(kind, fill);
  }
  return runs.map((run) => (run.kind === 'mark' || run.kind === 'empty' ? run.text : paint(run.kind, run.text))).join('');
}
