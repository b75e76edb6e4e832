import type { Visitors } from './types.js';

/** ESLint's reading of TIMING: at least 10 rows, `all` for every rule. */
const MINIMUM_ROWS = 10;

/**
 * How many rules `TIMING` asks to see, as ESLint reads the variable: unset
 * or empty means no timing; `all` every rule; a number above 10 that many;
 * anything else (`1`, `true`) the 10 slowest.
 */
export function timingRows(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.toLowerCase() === 'all') return Number.POSITIVE_INFINITY;
  const rows = Number.parseInt(value, 10);
  return rows > MINIMUM_ROWS ? rows : MINIMUM_ROWS;
}

/**
 * Where a lint's time went: each rule's own time (its create, its handlers
 * and its end, summed over the first pass and the fix passes), and the time
 * spent reading the configs, which no rule sees but which is most of a lint
 * of a large tree. Wall time from performance.now(); a rule's first calls
 * include V8 compiling it, and what the model works out once on first
 * request is counted to the rule that asked first.
 */
export class LintTimer {
  /** Time and handler calls by rule id, in a holder per rule so that a handler's wrapper adds to fields, not a Map. */
  private readonly rules = new Map<string, RuleTime>();
  private readingMs = 0;

  reading<T>(work: () => T): T {
    const start = performance.now();
    try {
      return work();
    } finally {
      this.readingMs += performance.now() - start;
    }
  }

  rule<T>(ruleId: string, work: () => T): T {
    const total = this.totalOf(ruleId);
    const start = performance.now();
    try {
      return work();
    } finally {
      total.ms += performance.now() - start;
    }
  }

  /**
   * The same visitors, each handler timed as the rule's, as ESLint times
   * each listener. Reading the clock costs about as much as a handler that
   * returns at once (most lines are not what a rule looks for); the table
   * takes that cost, measured on a handler that does nothing, off each call.
   */
  visitors(ruleId: string, visitors: Visitors): Visitors {
    const total = this.totalOf(ruleId);
    // Each group of handlers its language dispatches (Apache's `directive`, my.cnf's `option`), whatever the language.
    const timed = Object.entries(visitors).map(([group, handlers]: [string, unknown]) => {
      if (group === 'end') return [group, () => this.rule(ruleId, handlers as () => void)];
      const each = Object.entries(handlers as Readonly<Record<string, (use: unknown) => void>>);
      return [group, Object.fromEntries(each.map(([name, handler]) => [name, timedHandler(total, handler)]))];
    });
    return Object.fromEntries(timed) as Visitors;
  }

  private totalOf(ruleId: string): RuleTime {
    let total = this.rules.get(ruleId);
    if (total === undefined) {
      total = { ms: 0, calls: 0 };
      this.rules.set(ruleId, total);
    }
    return total;
  }

  /**
   * ESLint's TIMING table (rule, time in ms, share of the rules' time), the
   * slowest first, `names` giving each id its name; then the totals.
   */
  table(rows: number, names: ReadonlyMap<string, string>): string {
    const bias = clockCostPerCall();
    const times = [...this.rules].map(([id, rule]): [string, number] => [id, Math.max(0, rule.ms - rule.calls * bias)]);
    const total = times.reduce((sum, [, ms]) => sum + ms, 0);
    const slowest = times
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, rows)
      .map(([id, ms]) => ({
        label: names.has(id) ? `${id} ${names.get(id)}` : id,
        time: ms.toFixed(3),
        share: `${total === 0 ? '0.0' : ((ms * 100) / total).toFixed(1)}%`,
      }));
    const labelWidth = Math.max(4, ...slowest.map((row) => row.label.length));
    const timeWidth = Math.max(9, ...slowest.map((row) => row.time.length));
    const lines = [
      `${'Rule'.padEnd(labelWidth)} | ${'Time (ms)'.padStart(timeWidth)} | Relative`,
      `:${'-'.repeat(labelWidth)}|${'-'.repeat(timeWidth + 1)}:|${'-'.repeat(8)}:`,
      ...slowest.map((row) => `${row.label.padEnd(labelWidth)} | ${row.time.padStart(timeWidth)} | ${row.share.padStart(8)}`),
    ];
    return `${lines.join('\n')}\n\nReading the configs: ${this.readingMs.toFixed(3)} ms; rules: ${total.toFixed(3)} ms (${this.rules.size} rules, every pass)\n`;
  }
}

interface RuleTime {
  ms: number;
  calls: number;
}

function timedHandler<Use>(total: RuleTime, handler: (use: Use) => void): (use: Use) => void {
  return (use: Use) => {
    const start = performance.now();
    handler(use);
    total.ms += performance.now() - start;
    total.calls++;
  };
}

/** What timedHandler adds to each call by itself: its time for a handler that does nothing, once V8 has optimised it as it has the real ones by now. */
function clockCostPerCall(): number {
  const calls = 50_000;
  const probe: RuleTime = { ms: 0, calls: 0 };
  const nothing = timedHandler(probe, () => undefined);
  for (let call = 0; call < calls; call++) nothing(undefined);
  return probe.ms / calls;
}
