import type { BudgetPicture, BudgetRow } from '../analysis/budget.js';
import { printable } from '../util/printable.js';
import { formatBytes } from '../util/units.js';

/** Columns of one bar: wide enough to read a share of a few percent, narrow enough for an 80-column log with its labels. */
export const BAR_WIDTH = 40;
/** On a narrow terminal the bars shrink to leave the words after them this many columns, down to this narrowest bar. */
const WORDS_ROOM = 24;
const NARROWEST_BAR = 10;

export type BarKind = 'apache' | 'mysql' | 'os' | 'free' | 'over';

/** Colour for a bar's cells; identity when colour is off, so the characters alone must carry the meaning. */
export type PaintBar = (kind: BarKind, cells: string) => string;

/**
 * The memory budget as bars, one per consumer (Apache at peak, each PHP
 * pool, MySQL's worst case, the OS reserve) and what is left free, laid end
 * to end against RAM: `#` is memory used within RAM, `=` the OS reserve,
 * `.` free memory, `!` memory beyond RAM, `|` where RAM ends. An
 * over-committed host draws bars past the `|`. Before and after the patch
 * when the patch changes a figure; nothing without a picture.
 */
export function budgetLines(budget: BudgetPicture | undefined, paint: PaintBar, terminalWidth?: number): string[] {
  // With the OS reserve alone there is nothing to picture.
  if (budget === undefined || budget.before.length === 1) return [];
  const { ram, before, after, changed } = budget;
  const labelWidth = Math.max(...before.map((row) => printable(row.label).length), 'free'.length);
  // Indent, label, bar and RAM mark, the figure: what stands before the words of each row.
  const fixed = 4 + labelWidth + 1 + 1 + 1 + 9 + 2;
  const width = terminalWidth === undefined ? BAR_WIDTH : Math.min(BAR_WIDTH, Math.max(NARROWEST_BAR, terminalWidth - fixed - WORDS_ROOM));
  const lines = [`Memory at peak against ${formatBytes(ram)} RAM (${printable(budget.ramSource)}):`];
  lines.push(...picture(changed ? 'before the patch' : undefined, before, { ram, labelWidth, width }, paint));
  if (changed) lines.push(...picture('after the patch', after, { ram, labelWidth, width }, paint));
  for (const note of budget.notes) lines.push(`  ${printable(note)}`);
  return lines;
}

interface Frame {
  readonly ram: number;
  readonly labelWidth: number;
  /** Columns of each bar. */
  readonly width: number;
}

function picture(title: string | undefined, consumers: readonly BudgetRow[], frame: Frame, paint: PaintBar): string[] {
  const { ram, labelWidth, width } = frame;
  const total = consumers.reduce((sum, consumer) => sum + consumer.bytes, 0);
  const scale = Math.max(ram, total);
  const column = (bytes: number): number => Math.round((bytes / scale) * width);
  const ramColumn = column(ram);
  const verdict = total > ram ? `${formatBytes(total - ram)} more than RAM` : `${formatBytes(ram - total)} free`;
  const lines = [
    `  ${title === undefined ? '' : `${title}: `}${formatBytes(total)} at peak, ${verdict} (one column = ${formatBytes(scale / width)})`,
  ];
  const row = (label: string, cells: string, bytes: number, detail: string): string =>
    `    ${label.padEnd(labelWidth)} ${cells} ${formatBytes(bytes).padStart(9)}  ${detail}`.trimEnd();
  let used = 0;
  for (const consumer of consumers) {
    used += consumer.bytes;
    // Anything above zero gets at least one cell, even when rounding puts it past the last column.
    const end = consumer.bytes > 0 ? Math.max(column(used), Math.min(column(used - consumer.bytes) + 1, width)) : column(used);
    const start = consumer.bytes > 0 ? Math.min(column(used - consumer.bytes), end - 1) : end;
    lines.push(
      row(
        printable(consumer.label),
        bar({ start, end, ramColumn, width }, consumer.kind, paint),
        consumer.bytes,
        printable(consumer.detail),
      ),
    );
  }
  const free = Math.max(0, ram - total);
  const freeDetail = total > ram ? `none: the peak is over RAM by ${formatBytes(total - ram)}` : `RAM less the above`;
  const freeCells = { start: column(total), end: total > ram ? column(total) : ramColumn, ramColumn, width };
  lines.push(row('free', bar(freeCells, 'free', paint), free, freeDetail));
  return lines;
}

/** Cells [start, end) of the bar filled and the RAM mark drawn at its column: always width + 1 characters. */
function bar(
  cells: { readonly start: number; readonly end: number; readonly ramColumn: number; readonly width: number },
  kind: 'apache' | 'mysql' | 'os' | 'free',
  paint: PaintBar,
): string {
  const { start, end, ramColumn, width } = cells;
  const fill = kind === 'free' ? '.' : kind === 'os' ? '=' : '#';
  const runs: { kind: BarKind | 'mark' | 'empty'; text: string }[] = [];
  const push = (cellKind: BarKind | 'mark' | 'empty', char: string): void => {
    const last = runs[runs.length - 1];
    if (last?.kind === cellKind) last.text += char;
    else runs.push({ kind: cellKind, text: char });
  };
  for (let cell = 0; cell <= width; cell++) {
    if (cell === ramColumn) push('mark', '|');
    if (cell === width) break;
    if (cell < start || cell >= end) push('empty', ' ');
    else if (cell >= ramColumn) push('over', '!');
    else push(kind, fill);
  }
  return runs.map((run) => (run.kind === 'mark' || run.kind === 'empty' ? run.text : paint(run.kind, run.text))).join('');
}
