import { lineOf } from '../core/located.js';
import { perChildLine } from '../host/format.js';
import { formatBytes, formatPercent } from '../util/units.js';
import type { Sizing } from './sizing.js';

/** One row of the memory picture: a consumer at its peak, or the OS reserve. */
export interface BudgetRow {
  readonly label: string;
  /** What the bar is coloured as: the web tier (Apache and PHP), the database, the OS reserve. */
  readonly kind: 'apache' | 'mysql' | 'os';
  readonly bytes: number;
  /** The arithmetic behind the figure, in the words of the config. */
  readonly detail: string;
}

/**
 * The memory picture of a host, as numbers: RAM, each consumer at its peak
 * and the OS reserve, before the patch and after it, and what was left out
 * of it. The report draws it as bars, JSON writes it as `budget`, and
 * `tune-lint fleet` sorts hosts by it.
 */
export interface BudgetPicture {
  readonly ram: number;
  readonly ramSource: string;
  readonly before: readonly BudgetRow[];
  /** The rows over the patched configs; the same rows when the patch changes no figure. */
  readonly after: readonly BudgetRow[];
  /** Whether the patch changes any row. */
  readonly changed: boolean;
  /** What is not in the picture and why: a FastCGI server no config says the size of, a database not linted. */
  readonly notes: readonly string[];
  /**
   * Per-child sizes that nobody measured or gave, with their reasoning: the
   * picture and the sizing rules rest on them, so the report lists them with
   * the host facts whether or not a rule reported on them.
   */
  readonly estimates: readonly string[];
}

/** The picture, or undefined without RAM. */
export function budgetPicture(before: Sizing, after: Sizing | undefined): BudgetPicture | undefined {
  const ram = before.ram;
  if (ram === undefined || before.osReserve === undefined) return undefined;
  const first = rowsOf(before);
  const second = after === undefined ? first : rowsOf(after);
  const changed = second.some((row, index) => {
    const earlier = first[index];
    return earlier?.bytes !== row.bytes || earlier.detail !== row.detail;
  });
  return {
    ram: ram.value,
    ramSource: ram.source,
    before: first,
    after: second,
    changed,
    notes: [...notesOf(before), ...before.plan.notes],
    estimates: estimatesOf(before),
  };
}

function estimatesOf(sizing: Sizing): string[] {
  const apache = sizing.apache
    .filter((entry) => entry.perChild.source.startsWith('estimate'))
    .map((entry) => `${perChildLine(entry.perChild)}${sizing.apache.length === 1 ? '' : ` for ${entry.config.root.displayPath}`}`);
  const php = sizing.pools
    .filter((pool) => pool.perChild.source.startsWith('estimate'))
    .map((pool) => `php-fpm child ${formatBytes(pool.perChild.value)} (${pool.perChild.source})`);
  return [...apache, ...new Set(php)];
}

function rowsOf(sizing: Sizing): BudgetRow[] {
  const web = sizing.consumers.filter((consumer) => consumer.role === 'web');
  const rows: BudgetRow[] = sizing.consumers.map((consumer) => {
    if (consumer.role !== 'web')
      return {
        label: consumer.label,
        kind: consumer.role === 'database' ? 'mysql' : 'apache',
        bytes: consumer.bytes,
        detail: consumer.detail,
      };
    const webBudget = sizing.plan.memory?.webBudget.bytes;
    const budget = webBudget === undefined ? '' : `; budget ${formatBytes(webBudget)}`;
    const several = web.length > 1;
    return {
      label: several ? `${consumer.label} ${web.indexOf(consumer) + 1}` : consumer.label,
      kind: 'apache',
      bytes: consumer.bytes,
      detail: `${consumer.detail}${budget}${several ? ` (${consumer.config.root.displayPath})` : ''}`,
    };
  });
  rows.push(osReserveRow(sizing));
  return rows;
}

function osReserveRow(sizing: Sizing): BudgetRow {
  const { osReserveShare, osReserveMin, osReserveMax } = sizing.budget;
  const ram = sizing.ram?.value ?? 0;
  const clamp =
    ram * osReserveShare < osReserveMin
      ? `, at least ${formatBytes(osReserveMin)}`
      : ram * osReserveShare > osReserveMax
        ? `, at most ${formatBytes(osReserveMax)}`
        : '';
  const others = sizing.budget.otherServices;
  const detail = `${formatPercent(osReserveShare)} of RAM${clamp}${others > 0 ? `, + ${formatBytes(others)} for other services (budget otherServices)` : ''}`;
  return { label: 'OS reserve', kind: 'os', bytes: sizing.osReserve ?? 0, detail };
}

function notesOf(sizing: Sizing): string[] {
  const notes: string[] = [];
  for (const apache of sizing.apache) {
    if (apache.fastCgi === undefined || sizing.pools.length > 0) continue;
    const handOff = `${apache.fastCgi.node.name} ${apache.fastCgi.argsText} (${lineOf(apache.fastCgi)})`;
    notes.push(
      `FastCGI server not counted: ${handOff} passes requests to it; its processes (php-fpm: pm.max_children x one worker) come on top`,
    );
  }
  if (!sizing.dbLocal.value) notes.push(`no database counted: ${sizing.dbLocal.reason}`);
  else if (sizing.mysql === undefined) notes.push(`MySQL not counted: ${sizing.dbLocal.reason}, but no my.cnf was linted with it`);
  return notes;
}
