import { seriesOf, type DatabaseTarget } from '../../core/targets.js';
import { isMariadbOption, mariadbOptionNames } from './mariadb-options.js';
import { MYSQL_BINARY_OPTION_LISTS } from './mysql-binary-options.js';
import { MYSQL_OPTION_LISTS } from './mysql-options.js';
import { OptionList } from './option-list.js';
import { removedOption } from './removed-options.js';

const lists = new Map<string, OptionList>();

/** Every series' names: read from the source (5.7, 8.0) or asked of the real mysqld (9.7). */
const OPTION_LISTS: Readonly<Record<string, { readonly names: string }>> = { ...MYSQL_OPTION_LISTS, ...MYSQL_BINARY_OPTION_LISTS };

/** The series tune-lint has option lists of, oldest first. */
const SERIES = Object.keys(OPTION_LISTS).sort((a, b) => compareMysqlSeries(a, b));

/** A generated table's words: the names, or the plugins, of a series. */
function wordsOf(text: string): string[] {
  return text.trim().split(/\s+/);
}

function listOf(series: string): OptionList | undefined {
  const entry = OPTION_LISTS[series];
  if (entry === undefined) return undefined;
  let list = lists.get(series);
  if (list === undefined) {
    list = new OptionList(wordsOf(entry.names));
    lists.set(series, list);
  }
  return list;
}

/** The option list of a MySQL target's series, when tune-lint has that series' (5.7, 8.0, 9.7). */
export function mysqlOptionList(target: DatabaseTarget): OptionList | undefined {
  return target.product === 'mysql' ? listOf(seriesOf(target.version)) : undefined;
}

/** The series (of those tune-lint has lists of) whose mysqld takes `key`, oldest first: where a name MySQL dropped was last taken. */
export function mysqlSeriesTaking(key: string): readonly string[] {
  return SERIES.filter((series) => listOf(series)?.has(key) === true);
}

/** -1, 0 or 1 as MySQL series `a` is older than, the same as, or newer than `b`. */
export function compareMysqlSeries(a: string, b: string): number {
  const [majorA = 0, minorA = 0] = a.split('.').map(Number);
  const [majorB = 0, minorB = 0] = b.split('.').map(Number);
  return Math.sign(majorA - majorB || minorA - minorB);
}

let declaredPlugins: readonly string[] | undefined;

/**
 * The MySQL plugin (not built in) an option name belongs to, by the
 * `plugin_` its variables are named with: validate_password_length,
 * rpl_semi_sync_master_enabled. Known once the plugin is loaded, which
 * INSTALL PLUGIN does before the options are checked. The plugins of every
 * series count on each: a source tree does not declare every plugin its
 * release ships (5.7 builds group_replication from rapid/, outside the
 * directories the list is read from).
 */
export function mysqlPluginOf(key: string): string | undefined {
  declaredPlugins ??= [...new Set(Object.values(MYSQL_OPTION_LISTS).flatMap((entry) => wordsOf(entry.plugins)))];
  return declaredPlugins.find((plugin) => key.startsWith(`${plugin}_`));
}

let mariadbOnly: ReadonlySet<string> | undefined;

/**
 * Options of MariaDB that no MySQL release tune-lint has a list of (5.7,
 * 8.0, 9.7) takes, nor MySQL's history of removed options names: aria_*,
 * innodb_defragment, wsrep_*... A MySQL target after 8.0 refuses them too.
 */
export function isMariadbOnlyOption(key: string): boolean {
  if (mariadbOnly === undefined) {
    const mysql = SERIES.map((series) => listOf(series));
    mariadbOnly = new Set(
      mariadbOptionNames().filter((name) => mysql.every((list) => list?.has(name) !== true) && removedOption(name)?.mysql === undefined),
    );
  }
  return mariadbOnly.has(key);
}

let mysqlOnly: ReadonlyMap<string, readonly string[]> | undefined;

/**
 * The MySQL series (of those tune-lint has lists of, 5.7, 8.0 and 9.7) whose
 * mysqld takes an option MariaDB 10.11 does not know: mysqlx_bind_address,
 * gtid_mode, log_error_verbosity. Empty for every other name.
 */
export function mysqlOnlySeries(key: string): readonly string[] {
  if (mysqlOnly === undefined) {
    const found = new Map<string, string[]>();
    for (const series of SERIES) {
      for (const name of wordsOf(OPTION_LISTS[series]?.names ?? '')) {
        if (isMariadbOption(name)) continue;
        found.set(name, [...(found.get(name) ?? []), series]);
      }
    }
    mysqlOnly = found;
  }
  return mysqlOnly.get(key) ?? [];
}
