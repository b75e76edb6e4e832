import { seriesOf, versionAtLeast, type DatabaseTarget } from '../../core/targets.js';
import { MARIADB_BINARY_OPTION_LISTS } from './mariadb-binary-options.js';
import { mariadbOptionNames, isMariadbOption } from './mariadb-options.js';
import { isMariadbOnlyOption, mysqlOptionList } from './mysql-names.js';
import { OptionList } from './option-list.js';
import { normaliseKey, normaliseOptionName, OPTION_PREFIXES, withPrefixes, type OptionName, type OptionPrefix } from './names.js';
import { lookupTable } from '../../util/lookup.js';

/**
 * What the target's option parser makes of a name:
 * - `exact`: an option of the target;
 * - `abbreviation`: a unique prefix the target expands (MariaDB; MySQL <= 5.6 with a deprecation warning);
 * - `ambiguous`: a prefix of several options, a startup error;
 * - `unknown`: no such option, a startup error (a warning with `loose-`);
 * - `abbreviation-refused`: MySQL >= 5.7 would have to expand a prefix and refuses (unknown option);
 * - `unverified`: MySQL, whose option list we do not have; the name was normalised without it;
 * - `plugin`: an option of a plugin library the option files load (MariaDB), known once the plugin is.
 */
export type OptionStatus = 'exact' | 'abbreviation' | 'ambiguous' | 'unknown' | 'abbreviation-refused' | 'unverified' | 'plugin';

export interface ResolvedOption {
  readonly name: OptionName;
  readonly status: OptionStatus;
  /** The full names a prefix matched (one for an abbreviation, several when ambiguous). */
  readonly candidates: readonly string[];
}

/**
 * MariaDB 10.11 options that set another variable, mapped to the name the
 * reference and most configs use for it (`mariadbd --help --verbose` says
 * "Alias for ..." or "Deprecated; use ... instead"; setting one changes the
 * value printed for the other).
 */
const MARIADB_ALIASES: Readonly<Record<string, string>> = lookupTable({
  table_cache: 'table_open_cache',
  tmp_memory_table_size: 'tmp_table_size',
  log_slow_query_time: 'long_query_time',
  log_slow_min_examined_row_limit: 'min_examined_row_limit',
  log_slow_query: 'slow_query_log',
  log_slow_query_file: 'slow_query_log_file',
  slave_parallel_workers: 'slave_parallel_threads',
});

const mariadbLists = new Map<string, OptionList>();

/** The MariaDB series whose real mariadbd was asked for its names (11.8), newest first. */
const ASKED_SERIES = Object.keys(MARIADB_BINARY_OPTION_LISTS).sort((a, b) => (versionAtLeast(a, b) ? -1 : 1));

/** The list a series' mariadbd was asked for; '10.11' is the installed binary's (mariadb-options.ts). */
function mariadbListOf(series: string): OptionList {
  let list = mariadbLists.get(series);
  if (list === undefined) {
    const asked = MARIADB_BINARY_OPTION_LISTS[series];
    list = new OptionList(asked === undefined ? mariadbOptionNames() : asked.names.trim().split(/\s+/));
    mariadbLists.set(series, list);
  }
  return list;
}

/** The names a MariaDB target reads options with: those of the newest series at or below it that was asked, else 10.11's. */
function mariadbOptions(target: DatabaseTarget): OptionList {
  return mariadbListOf(ASKED_SERIES.find((series) => versionAtLeast(target.version, series)) ?? '10.11');
}

/** The option names of a MariaDB target's own series, when tune-lint has them: 10.11's (the installed mariadbd) and 11.8's (Debian 13's). */
export function mariadbSeriesNames(target: DatabaseTarget): readonly string[] | undefined {
  const series = seriesOf(target.version);
  return series === '10.11' || MARIADB_BINARY_OPTION_LISTS[series] !== undefined ? mariadbListOf(series).all() : undefined;
}

/**
 * A name 10.11 does not take and a later series' mariadbd does, on a target
 * between them (11.0 to 11.7): added in a release whose list tune-lint does
 * not have, so neither known nor refused.
 */
function addedSince1011(key: string, target: DatabaseTarget): boolean {
  return (
    versionAtLeast(target.version, '11.0') &&
    mariadbOptions(target) === mariadbListOf('10.11') &&
    ASKED_SERIES.some((series) => mariadbListOf(series).has(key))
  );
}

/**
 * Resolves an option name for a target the way `handle_options` does: the
 * whole name first (with prefix matching where the target has it), then the
 * special prefixes stripped one at a time, from the outside in, retrying after
 * each. MariaDB names compare case-insensitively (verified on 10.11). A
 * MariaDB target uses the list of 11.8 (asked of Debian 13's mariadbd) from
 * 11.8 on, 10.11's below it. MySQL
 * 5.7, 8.0 and 9.7 targets use their own series' list; other MySQL targets
 * use MariaDB's only to recognise abbreviations and MariaDB-only names.
 */
export function resolveOptionName(raw: string, target: DatabaseTarget): ResolvedOption {
  const normalised = normaliseKey(raw);
  if (target.product === 'mysql') return resolveMysql(raw, normalised, target);
  let key = normalised;
  const prefixes: OptionPrefix[] = [];
  for (;;) {
    const found = mariadbOptions(target).find(key);
    if (found.length === 1) {
      const full = found[0] as string;
      const abbreviation = full === key ? undefined : key;
      const canonical = MARIADB_ALIASES[full];
      const name = withPrefixes(raw, normalised, canonical ?? full, prefixes, {
        abbreviation,
        alias: canonical === undefined ? undefined : full,
      });
      return { name, status: abbreviation === undefined ? 'exact' : 'abbreviation', candidates: found };
    }
    if (found.length > 1) return { name: withPrefixes(raw, normalised, key, prefixes), status: 'ambiguous', candidates: found };
    const prefix = OPTION_PREFIXES.find((candidate) => key.startsWith(`${candidate}_`));
    if (prefix === undefined) {
      const status = addedSince1011(key, target) ? 'unverified' : 'unknown';
      return { name: withPrefixes(raw, normalised, key, prefixes), status, candidates: [] };
    }
    prefixes.push(prefix);
    key = key.slice(prefix.length + 1);
  }
}

function resolveMysql(raw: string, normalised: string, target: DatabaseTarget): ResolvedOption {
  const plain = normaliseOptionName(raw);
  const list = mysqlOptionList(target);
  if (list !== undefined) return resolveWithList(raw, normalised, plain, list);
  if (plain.key === '' || plain.key.includes('.')) return { name: plain, status: 'unverified', candidates: [] };
  // After the releases whose lists tune-lint has, a MariaDB-only name is the one thing known to be refused.
  if (isMariadbOnlyOption(plain.key) && versionAtLeast(target.version, '8.1')) return { name: plain, status: 'unknown', candidates: [] };
  if (isMariadbOption(plain.key)) return { name: plain, status: 'unverified', candidates: [] };
  const found = mariadbListOf('10.11').find(plain.key);
  if (found.length !== 1) return { name: plain, status: 'unverified', candidates: [] };
  const full = found[0] as string;
  // WL#6978: unique-prefix matching was deprecated in 5.5/5.6 and removed in 5.7.
  if (versionAtLeast(target.version, '5.7')) return { name: plain, status: 'abbreviation-refused', candidates: found };
  return {
    name: withPrefixes(raw, normalised, full, plain.prefixes, { abbreviation: plain.key }),
    status: 'abbreviation',
    candidates: found,
  };
}

/**
 * A MySQL series whose option list tune-lint has (5.7, 8.0): exact names
 * only, the special prefixes stripped as my_getopt does. A unique prefix of
 * an option is refused (WL#6978) and named as such, a prefix of several is
 * simply unknown; component variables (`x.y`) are not ours to judge.
 */
function resolveWithList(raw: string, normalised: string, plain: OptionName, list: OptionList): ResolvedOption {
  if (plain.key === '' || plain.key.includes('.')) return { name: plain, status: 'unverified', candidates: [] };
  let key = normalised;
  const prefixes: OptionPrefix[] = [];
  for (;;) {
    if (list.has(key)) return { name: withPrefixes(raw, normalised, key, prefixes), status: 'exact', candidates: [key] };
    const found = list.find(key);
    if (found.length === 1)
      return { name: withPrefixes(raw, normalised, key, prefixes), status: 'abbreviation-refused', candidates: found };
    const prefix = OPTION_PREFIXES.find((candidate) => key.startsWith(`${candidate}_`));
    if (prefix === undefined) return { name: withPrefixes(raw, normalised, key, prefixes), status: 'unknown', candidates: [] };
    prefixes.push(prefix);
    key = key.slice(prefix.length + 1);
  }
}
