import { versionAtLeast, type DatabaseTarget } from '../../core/targets.js';

/**
 * What the line can become on the target, when there is an exact equivalent:
 * - `rename`: the same value under another name (`table_cache` -> `table_open_cache`);
 * - `split`: a switch and a file name, as `log-slow-queries=F` became
 *   `slow_query_log = 1` + `slow_query_log_file = F` (without a value: the switch only);
 * - `drop`: the option does nothing on the target, so the line can go;
 * - `map`: a new name with the old values translated (`log_warnings` 2 -> `log_error_verbosity` 3).
 */
export type Replacement =
  | { readonly kind: 'rename'; readonly to: string }
  | { readonly kind: 'split'; readonly flag: string; readonly file: string }
  | { readonly kind: 'drop' }
  | { readonly kind: 'map'; readonly to: string; readonly values: (value: string) => string | undefined };

export interface RemovedOption {
  /** Normalised option names as written, prefixes stripped (`skip-locking` is `locking`). */
  readonly names: readonly string[];
  /** MySQL history: deprecated in (warning at start), removed in (unknown option, the server does not start). */
  readonly mysql?: { readonly deprecated?: string; readonly removed: string };
  /**
   * MariaDB history after 10.11 (10.11's own options are the installed
   * binary's): from `removed` on the server refuses the option, or, with
   * `noop`, accepts it only to warn at every start that it does nothing.
   */
  readonly mariadb?: { readonly removed: string; readonly noop: boolean };
  /** What to use instead, in words, for the message. */
  readonly instead: string;
  /** The exact equivalent, when there is one (the fix); undefined: only advice. */
  readonly replacement?: Replacement;
  /** Where this history is written down. */
  readonly source: string;
}

const WL5154 = 'WL#5154 https://dev.mysql.com/worklog/task/?id=5154';
const WL5182 = 'WL#5182 https://dev.mysql.com/worklog/task/?id=5182';
const NOTES_561 = 'MySQL 5.6.1 release notes https://dev.mysql.com/doc/relnotes/mysql/5.6/en/news-5-6-1.html';
const WL10824 = 'WL#10824 https://dev.mysql.com/worklog/task/?id=10824';
const OPTVAR_80 = 'https://dev.mysql.com/doc/mysqld-version-reference/en/optvar-changes-8-0.html';
/**
 * MariaDB's upgrade notes ("Options That Have Been Removed or Renamed", one
 * page per release from 10.11 to 11.0 through 11.8 to 12.3) give the release;
 * the 10.6 to 11.8 upgrade guide's table of removed options says which ones
 * 11.8 refuses ("Fatal error ... unknown variable") and which it only warns
 * about ("'x' was removed. It does nothing now ...").
 */
const MARIADB_UPGRADES = 'https://mariadb.com/docs/server/server-management/install-and-upgrade-mariadb/upgrading';

/**
 * Server options MySQL removed, from MySQL's own change lists (the worklogs and
 * release notes cited per row). MariaDB forked from MySQL 5.5, so most of
 * these are unknown to it too; what a MariaDB target does with each name is
 * not taken from this table but from MariaDB's own option list (see
 * `mariadbStatus` in the rule), which is verified against mariadbd 10.11.
 */
export const REMOVED_OPTIONS: readonly RemovedOption[] = [
  {
    names: ['default_character_set'],
    mysql: { deprecated: '5.0', removed: '5.5' },
    instead: 'character-set-server',
    replacement: { kind: 'rename', to: 'character_set_server' },
    source: WL5154,
  },
  {
    names: ['default_collation'],
    mysql: { deprecated: '5.0', removed: '5.5' },
    instead: 'collation-server',
    replacement: { kind: 'rename', to: 'collation_server' },
    source: WL5154,
  },
  {
    names: ['log_bin_trust_routine_creators'],
    mysql: { deprecated: '5.0', removed: '5.5' },
    instead: 'log-bin-trust-function-creators',
    replacement: { kind: 'rename', to: 'log_bin_trust_function_creators' },
    source: WL5154,
  },
  {
    names: ['log_long_format'],
    mysql: { deprecated: '4.1', removed: '5.5' },
    instead: 'nothing: the long format has been the only one since 4.1 (log-short-format turns it off)',
    replacement: { kind: 'drop' },
    source: WL5154,
  },
  {
    names: ['safe_show_database'],
    mysql: { deprecated: '4.0.2', removed: '5.5' },
    instead: 'the SHOW DATABASES privilege (or skip-show-database)',
    source: WL5154,
  },
  {
    // skip-locking / enable-locking: the prefix stays, the name becomes external-locking.
    names: ['locking'],
    mysql: { deprecated: '4.0.3', removed: '5.5' },
    instead: 'skip-external-locking (external-locking to turn it on)',
    replacement: { kind: 'rename', to: 'external_locking' },
    source: WL5182,
  },
  {
    names: [
      'master_host',
      'master_user',
      'master_password',
      'master_port',
      'master_connect_retry',
      'master_ssl',
      'master_ssl_ca',
      'master_ssl_capath',
      'master_ssl_cert',
      'master_ssl_cipher',
      'master_ssl_key',
    ],
    mysql: { deprecated: '5.1.17', removed: '5.5.3' },
    instead: 'CHANGE MASTER TO (the values live in master.info)',
    source: 'WL#5265 https://dev.mysql.com/worklog/task/?id=5265',
  },
  {
    names: ['table_type', 'default_table_type'],
    mysql: { deprecated: '5.0', removed: '5.5.3' },
    instead: 'default-storage-engine',
    replacement: { kind: 'rename', to: 'default_storage_engine' },
    source: WL5154,
  },
  {
    names: ['storage_engine'],
    mysql: { deprecated: '5.5.3', removed: '5.7.5' },
    instead: 'default_storage_engine',
    replacement: { kind: 'rename', to: 'default_storage_engine' },
    source: 'WL#7148 https://dev.mysql.com/worklog/task/?id=7148',
  },
  {
    names: ['table_cache'],
    mysql: { deprecated: '5.1.3', removed: '5.6.1' },
    instead: 'table_open_cache',
    replacement: { kind: 'rename', to: 'table_open_cache' },
    source: 'MySQL bug #68315 https://bugs.mysql.com/bug.php?id=68315',
  },
  {
    names: ['log'],
    mysql: { deprecated: '5.1.29', removed: '5.6.1' },
    instead: 'general_log = 1 with general_log_file',
    replacement: { kind: 'split', flag: 'general_log', file: 'general_log_file' },
    source: NOTES_561,
  },
  {
    names: ['log_slow_queries'],
    mysql: { deprecated: '5.1.29', removed: '5.6.1' },
    instead: 'slow_query_log = 1 with slow_query_log_file',
    replacement: { kind: 'split', flag: 'slow_query_log', file: 'slow_query_log_file' },
    source: NOTES_561,
  },
  {
    names: ['one_thread'],
    mysql: { deprecated: '5.1', removed: '5.6.1' },
    instead: 'thread_handling = no-threads',
    source: NOTES_561,
  },
  {
    names: ['engine_condition_pushdown'],
    mysql: { deprecated: '5.5.3', removed: '5.6.1' },
    instead: 'the engine_condition_pushdown flag of optimizer_switch',
    source: NOTES_561,
  },
  {
    names: ['thread_concurrency'],
    mysql: { deprecated: '5.6.1', removed: '5.7.2' },
    instead: 'nothing: it only ever had an effect on Solaris (innodb_thread_concurrency is a different setting)',
    replacement: { kind: 'drop' },
    source: 'WL#5265 https://dev.mysql.com/worklog/task/?id=5265',
  },
  {
    names: ['innodb_additional_mem_pool_size', 'innodb_use_sys_malloc'],
    mysql: { deprecated: '5.6.3', removed: '5.7.4' },
    instead: 'nothing: InnoDB uses the system allocator',
    replacement: { kind: 'drop' },
    source: 'MySQL 5.7 option changes https://dev.mysql.com/doc/refman/5.7/en/added-deprecated-removed.html',
  },
  {
    names: ['innodb_file_io_threads'],
    mysql: { removed: '5.5' },
    instead: 'innodb_read_io_threads and innodb_write_io_threads',
    source: 'WL#7149 https://dev.mysql.com/worklog/task/?id=7149',
  },
  {
    names: ['query_cache_type', 'query_cache_size', 'query_cache_limit', 'query_cache_min_res_unit', 'query_cache_wlock_invalidate'],
    mysql: { deprecated: '5.7.20', removed: '8.0.3' },
    instead: 'nothing: MySQL 8.0 has no query cache',
    replacement: { kind: 'drop' },
    source: WL10824,
  },
  {
    names: ['innodb_file_format', 'innodb_file_format_check', 'innodb_file_format_max', 'innodb_large_prefix'],
    mysql: { deprecated: '5.7.7', removed: '8.0.0' },
    instead: 'nothing: the Barracuda format and large index prefixes are always on',
    replacement: { kind: 'drop' },
    source: 'WL#7704 https://dev.mysql.com/worklog/task/?id=7704',
  },
  {
    names: ['innodb_support_xa'],
    mysql: { deprecated: '5.7.10', removed: '8.0.0' },
    instead: 'nothing: two-phase commit in XA transactions is always on',
    source: 'WL#8843 https://dev.mysql.com/worklog/task/?id=8843',
  },
  {
    names: ['innodb_locks_unsafe_for_binlog'],
    mysql: { deprecated: '5.6.3', removed: '8.0.0' },
    instead: 'transaction_isolation = READ-COMMITTED',
    source: OPTVAR_80,
  },
  {
    names: ['sync_frm'],
    mysql: { deprecated: '5.7.22', removed: '8.0.0' },
    instead: 'nothing: MySQL 8.0 has no .frm files',
    replacement: { kind: 'drop' },
    source: OPTVAR_80,
  },
  {
    names: ['log_warnings'],
    mysql: { deprecated: '5.7.2', removed: '8.0.3' },
    instead: 'log_error_verbosity (log_warnings 0, 1, 2 or more are 1, 2, 3)',
    replacement: { kind: 'map', to: 'log_error_verbosity', values: logWarningsToVerbosity },
    source: 'WL#9676 https://dev.mysql.com/worklog/task/?id=9676',
  },
  {
    names: ['tx_isolation'],
    mysql: { deprecated: '5.7.20', removed: '8.0.3' },
    instead: 'transaction_isolation',
    replacement: { kind: 'rename', to: 'transaction_isolation' },
    source: OPTVAR_80,
  },
  {
    names: ['tx_read_only'],
    mysql: { deprecated: '5.7.20', removed: '8.0.3' },
    instead: 'transaction_read_only',
    replacement: { kind: 'rename', to: 'transaction_read_only' },
    source: OPTVAR_80,
  },
  {
    names: ['date_format', 'datetime_format', 'time_format'],
    mysql: { removed: '8.0.3' },
    instead: 'nothing: these variables were never used',
    replacement: { kind: 'drop' },
    source: OPTVAR_80,
  },
  {
    names: ['des_key_file'],
    mysql: { deprecated: '5.7.6', removed: '8.0.3' },
    instead: 'AES_ENCRYPT() with a key of your own',
    source: OPTVAR_80,
  },
  {
    names: ['secure_auth'],
    mysql: { deprecated: '5.7.5', removed: '8.0.3' },
    instead: 'nothing: old-style passwords are gone',
    source: OPTVAR_80,
  },
  {
    names: ['old_passwords'],
    mysql: { deprecated: '5.7.6', removed: '8.0.11' },
    instead: 'nothing: old-style passwords are gone',
    source: OPTVAR_80,
  },
  {
    names: ['ignore_builtin_innodb'],
    mysql: { deprecated: '5.5.22', removed: '8.0.3' },
    instead: 'nothing: InnoDB is always built in',
    source: OPTVAR_80,
  },
  {
    names: ['log_syslog', 'log_syslog_facility', 'log_syslog_include_pid', 'log_syslog_tag'],
    mysql: { deprecated: '8.0.2', removed: '8.0.13' },
    instead: 'the log_sink_syseventlog component and its syseventlog.* variables',
    source: OPTVAR_80,
  },
  {
    names: ['default_authentication_plugin'],
    mysql: { deprecated: '8.0.27', removed: '8.4.0' },
    instead: 'authentication_policy',
    source: 'https://dev.mysql.com/doc/mysqld-version-reference/en/optvar-changes-8-4.html',
  },
  {
    names: ['innodb_change_buffering'],
    mariadb: { removed: '11.0', noop: true },
    instead: 'nothing: MariaDB 11.0 removed the InnoDB change buffer (MDEV-29694)',
    replacement: { kind: 'drop' },
    source: MARIADB_UPGRADES,
  },
  {
    names: ['innodb_change_buffer_max_size'],
    mariadb: { removed: '11.0', noop: false },
    instead: 'nothing: MariaDB 11.0 removed the InnoDB change buffer (MDEV-29694)',
    replacement: { kind: 'drop' },
    source: MARIADB_UPGRADES,
  },
  {
    names: [
      'innodb_defragment',
      'innodb_defragment_fill_factor',
      'innodb_defragment_fill_factor_n_recs',
      'innodb_defragment_frequency',
      'innodb_defragment_n_pages',
      'innodb_defragment_stats_accuracy',
    ],
    mariadb: { removed: '11.1', noop: true },
    instead: 'nothing: MariaDB 11.1 removed InnoDB defragmentation (OPTIMIZE TABLE rebuilds a table)',
    replacement: { kind: 'drop' },
    source: MARIADB_UPGRADES,
  },
  {
    names: ['old_alter_table'],
    mariadb: { removed: '11.2', noop: false },
    instead: 'alter_algorithm',
    source: MARIADB_UPGRADES,
  },
  {
    names: ['date_format', 'datetime_format', 'time_format'],
    mariadb: { removed: '11.3', noop: true },
    instead: 'nothing: the server never used it',
    replacement: { kind: 'drop' },
    source: MARIADB_UPGRADES,
  },
  {
    names: ['max_tmp_tables'],
    mariadb: { removed: '11.3', noop: false },
    instead: 'nothing: the server never used it',
    replacement: { kind: 'drop' },
    source: MARIADB_UPGRADES,
  },
  {
    names: ['wsrep_causal_reads'],
    mariadb: { removed: '11.3', noop: true },
    instead: 'wsrep_sync_wait = 1',
    source: MARIADB_UPGRADES,
  },
  {
    names: ['debug_no_thread_alarm'],
    mariadb: { removed: '11.4', noop: false },
    instead: 'nothing: the code it switched is gone',
    replacement: { kind: 'drop' },
    source: MARIADB_UPGRADES,
  },
  {
    // The 11.4 to 11.8 notes list it without the release between them. Debian 13's mariadbd 11.8.9 takes it with
    // "'wsrep-load-data-splitting' was removed. It does nothing now" (test/oracle/mariadb118-oracle.test.ts).
    names: ['wsrep_load_data_splitting'],
    mariadb: { removed: '11.8', noop: true },
    instead: 'nothing: LOAD DATA is not split into transactions any more',
    replacement: { kind: 'drop' },
    source: MARIADB_UPGRADES,
  },
  {
    names: ['big_tables'],
    mariadb: { removed: '12.0', noop: true },
    instead: 'nothing: the server moves large temporary results to disk by itself',
    replacement: { kind: 'drop' },
    source: MARIADB_UPGRADES,
  },
];

function logWarningsToVerbosity(value: string): string | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  const level = Number(value);
  return level === 0 ? '1' : level === 1 ? '2' : '3';
}

const BY_NAME = new Map(REMOVED_OPTIONS.flatMap((entry) => entry.names.map((name) => [name, entry] as const)));

export function removedOption(name: string): RemovedOption | undefined {
  return BY_NAME.get(name);
}

/** Whether a MariaDB target is at or past the release that removed the option, and what that release does with it. */
export function mariadbRemoval(
  entry: RemovedOption,
  target: DatabaseTarget,
): { readonly removed: string; readonly noop: boolean } | undefined {
  const history = entry.mariadb;
  if (history === undefined || target.product !== 'mariadb' || !versionAtLeast(target.version, history.removed)) return undefined;
  return history;
}

/** Where a MySQL target stands with a removed option: `removed` (the server refuses it), `deprecated` (a warning at start), or neither. */
export function mysqlStatus(entry: RemovedOption, target: DatabaseTarget): 'removed' | 'deprecated' | undefined {
  const history = entry.mysql;
  if (history === undefined || target.product !== 'mysql') return undefined;
  if (versionAtLeast(target.version, history.removed)) return 'removed';
  if (history.deprecated !== undefined && versionAtLeast(target.version, history.deprecated)) return 'deprecated';
  return undefined;
}

/**
 * Options MariaDB 10.11 still accepts but ignores, each with the startup
 * warning mariadbd 10.11 prints for it (verified: every name offered to the
 * binary): "'x' was removed. It does nothing now and exists only for
 * compatibility with old my.cnf files."; "'x' is MySQL 5.6 / 5.7 compatible
 * option. Not used or needed in MariaDB." or "... To be implemented in later
 * versions.".
 */
const MARIADB_REMOVED_NOOPS = `
innodb_adaptive_max_sleep_delay innodb_background_scrub_data_check_interval innodb_background_scrub_data_compressed
innodb_background_scrub_data_interval innodb_background_scrub_data_uncompressed innodb_buffer_pool_instances
innodb_commit_concurrency innodb_concurrency_tickets innodb_file_format innodb_force_load_corrupted
innodb_idle_flush_pct innodb_large_prefix innodb_lock_schedule_algorithm innodb_locks_unsafe_for_binlog
innodb_log_checksums innodb_log_compressed_pages innodb_log_files_in_group innodb_log_optimize_ddl
innodb_lru_flush_size innodb_page_cleaners innodb_purge_rseg_truncate_frequency innodb_replication_delay
innodb_rollback_segments innodb_scrub_log innodb_scrub_log_speed innodb_stats_sample_pages innodb_sync_array_size
innodb_thread_concurrency innodb_thread_sleep_delay innodb_undo_logs max_long_data_size multi_range_count
skip_bdb super_large_pages thread_concurrency timed_mutexes
`;

const MARIADB_MYSQL_NOT_USED = `
abort_slave_event_count binlog_max_flush_queue_time binlog_order_commits binlog_rows_query_log_events
disconnect_slave_event_count log_bin_use_v1_row_events log_raw master_info_repository max_binlog_dump_events
relay_log_info_repository server_id_bits show_compatibility_56 slave_checkpoint_group slave_checkpoint_period
slave_pending_jobs_size_max sporadic_binlog_dump_fail
`;

const MARIADB_MYSQL_NOT_YET = `
default_authentication_plugin end_markers_in_json log_throttle_queries_not_using_indexes optimizer_trace_features
optimizer_trace_limit optimizer_trace_offset rpl_stop_slave_timeout sha256_password_private_key_path
sha256_password_public_key_path slave_allow_batching slave_rows_search_algorithms validate_user_plugins
`;

/** What mariadbd says, after the quoted name, of an option it keeps only to ignore. */
export const REMOVED_WARNING = 'was removed. It does nothing now and exists only for compatibility with old my.cnf files.';

const REMOVED_NOOPS: ReadonlySet<string> = new Set(MARIADB_REMOVED_NOOPS.trim().split(/\s+/));
const NOT_USED: ReadonlySet<string> = new Set(MARIADB_MYSQL_NOT_USED.trim().split(/\s+/));
const NOT_YET: ReadonlySet<string> = new Set(MARIADB_MYSQL_NOT_YET.trim().split(/\s+/));

/** The warning MariaDB prints at start for an option it accepts only to ignore, after the quoted name; the lists are 10.11's, so older targets get undefined. */
export function mariadbNoop(key: string, target: DatabaseTarget): { readonly warning: string; readonly mysqlOnly: boolean } | undefined {
  if (target.product !== 'mariadb' || !versionAtLeast(target.version, '10.11')) return undefined;
  if (REMOVED_NOOPS.has(key)) return { warning: REMOVED_WARNING, mysqlOnly: false };
  if (NOT_USED.has(key)) return { warning: 'is MySQL 5.6 / 5.7 compatible option. Not used or needed in MariaDB.', mysqlOnly: true };
  if (NOT_YET.has(key)) return { warning: 'is MySQL 5.6 / 5.7 compatible option. To be implemented in later versions.', mysqlOnly: true };
  return undefined;
}

export const MARIADB_NOOP_LISTS = {
  removed: [...REMOVED_NOOPS],
  mysql: [...NOT_USED, ...NOT_YET],
} as const;
