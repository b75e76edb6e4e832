import { variableNumber, type RuntimeCounters } from '../../../src/analysis/mysql-live.js';
import type { MysqlLive } from '../../../src/host/facts.js';
import type { Located, OptionSpec, ReportDescriptor } from '../../../src/engine/types.js';
import type { MycnfConfig } from '../../../src/languages/mycnf/model.js';

/** The option every runtime rule takes: no verdict on counters that cover less than this. */
export const MIN_UPTIME_OPTION: OptionSpec = {
  type: 'seconds',
  default: 86_400,
  description:
    'verdicts on younger counters are early ones, notes without patches (MySQLTuner waits a day too): they describe the start more than the work; --min-uptime sets it for every runtime rule',
};

/** The option of the runtime rules that wait for it: their verdict on a young server would mislead (a cold buffer pool, a busiest moment not yet had). */
export const MIN_UPTIME_WAIT_OPTION: OptionSpec = {
  type: 'seconds',
  default: 86_400,
  description:
    'no verdict before the server has run this long: younger counters describe its start, not its work; --min-uptime sets it for every runtime rule',
};

/** Where a runtime finding about `key` is reported: the line that sets it, else the start of the main option file. */
export function lineOrTop(mycnf: MycnfConfig, key: string): Located {
  return mycnf.effective(key) ?? { file: mycnf.root, range: [0, 0] as const };
}

/**
 * A verdict on counters younger than minUptime is a note without a patch:
 * its span says how young they are, and a rate measured over minutes (or
 * over a restart tune-lint's own patch asked for) is no ground for changing
 * a setting yet.
 */
export function earlyVerdict<Descriptor extends ReportDescriptor<string>>(runtime: RuntimeCounters, descriptor: Descriptor): Descriptor {
  if (!runtime.early) return descriptor;
  return descriptor.fix === undefined ? { ...descriptor, severity: 'info' } : { ...descriptor, severity: 'info', fix: () => null };
}

/** `'app'@'%', ''@'localhost' and 3 more`: the first few of a list, and how many are left out. */
export function someOf(names: readonly string[], count = names.length, shown = 5): string {
  const listed = names.slice(0, shown).join(', ');
  return count > shown ? `${listed} and ${count - shown} more` : listed;
}

/** `'app'@'%'`, as GRANT and DROP USER take an account. */
export function accountName(account: { readonly user: string; readonly host: string }): string {
  return `'${account.user}'@'${account.host}'`;
}

/**
 * The value of `key` a finding judges: the file's, when it sets one (what
 * the server runs after the restart MY1010 asks for: a patch already written
 * is not asked for again), else the running server's.
 */
export function settingToJudge(mycnf: MycnfConfig, live: MysqlLive, key: string): number | undefined {
  const written = mycnf.effective(key) === undefined ? undefined : mycnf.size(key);
  return written?.bytes ?? variableNumber(live, key);
}
