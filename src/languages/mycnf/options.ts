import { versionAtLeast, type DatabaseTarget } from '../../core/targets.js';
import { mariadbOptionNames, isMariadbOption } from './mariadb-options.js';
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

/** `findopt`: an exact name, else every option the text is a prefix of. */
function findOption(key: string): readonly string[] {
  if (isMariadbOption(key)) return [key];
  const names = mariadbOptionNames();
  let low = 0;
  let high = names.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((names[mid] as string) < key) low = mid + 1;
    else high = mid;
  }
  const found: string[] = [];
  for (let i = low; i < names.length && (names[i] as string).startsWith(key); i++) found.push(names[i] as string);
  return found;
}

/**
 * Resolves an option name for a target the way `handle_options` does: the
 * whole name first (with prefix matching where the target has it), then the
 * special prefixes stripped one at a time, from the outside in, retrying after
 * each. MariaDB names compare case-insensitively (verified on 10.11). The
 * option list is MariaDB 10.11's; other MariaDB versions use it too, and MySQL
 * targets use it only to recognise abbreviations.
 */
export function resolveOptionName(raw: string, target: DatabaseTarget): ResolvedOption {
  const normalised = normaliseKey(raw);
  if (target.product === 'mysql') return resolveMysql(raw, normalised, target);
  let key = normalised;
  const prefixes: OptionPrefix[] = [];
  for (;;) {
    const found = findOption(key);
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
    if (prefix === undefined) return { name: withPrefixes(raw, normalised, key, prefixes), status: 'unknown', candidates: [] };
    prefixes.push(prefix);
    key = key.slice(prefix.length + 1);
  }
}

function resolveMysql(raw: string, normalised: string, target: DatabaseTarget): ResolvedOption {
  const plain = normaliseOptionName(raw);
  if (isMariadbOption(plain.key) || plain.key === '') return { name: plain, status: 'unverified', candidates: [] };
  const found = findOption(plain.key);
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
