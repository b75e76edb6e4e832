/**
 * The entries php-fpm takes, as fpm_conf.c lists them (ini_fpm_global_options
 * and ini_fpm_pool_options, php-src 7.0 to 8.4; fpm_conf_ini_parser_array for
 * the `name[key]` entries). php-fpm compares a plain entry's name with
 * strcasecmp and refuses any other ("unknown entry"), an array entry's name
 * as written ("unknown directive"), and `include` as written.
 *
 * Which PHP version and build a file is for is not known, so these are every
 * entry some php-fpm takes: a name none of them takes is refused by all.
 * `test/oracle/phpfpm-oracle.test.ts` holds the lists to the installed
 * php-fpm: every entry its `-tt` prints is here, and it takes every entry here
 * but those of BUILD_DEPENDENT.
 */

/** The `[global]` section's entries. */
export const GLOBAL_ENTRIES: readonly string[] = [
  'pid',
  'error_log',
  'syslog.ident',
  'syslog.facility',
  'log_buffering',
  'log_level',
  'log_limit',
  'emergency_restart_threshold',
  'emergency_restart_interval',
  'process_control_timeout',
  'process.max',
  'process.priority',
  'daemonize',
  'rlimit_files',
  'rlimit_core',
  'events.mechanism',
  'systemd_interval',
];

/** A pool's entries. */
export const POOL_ENTRIES: readonly string[] = [
  'prefix',
  'user',
  'group',
  'listen',
  'listen.backlog',
  'listen.acl_users',
  'listen.acl_groups',
  'listen.owner',
  'listen.group',
  'listen.mode',
  'listen.allowed_clients',
  'listen.setfib',
  'process.priority',
  'process.dumpable',
  'pm',
  'pm.max_children',
  'pm.start_servers',
  'pm.min_spare_servers',
  'pm.max_spare_servers',
  'pm.max_spawn_rate',
  'pm.process_idle_timeout',
  'pm.max_requests',
  'pm.status_path',
  'pm.status_listen',
  'ping.path',
  'ping.response',
  'access.log',
  'access.format',
  'slowlog',
  'request_slowlog_timeout',
  'request_slowlog_trace_depth',
  'request_terminate_timeout',
  'request_terminate_timeout_track_finished',
  'rlimit_files',
  'rlimit_core',
  'chroot',
  'chdir',
  'catch_workers_output',
  'decorate_workers_output',
  'clear_env',
  'security.limit_extensions',
  'apparmor_hat',
];

/** The names of a pool's `name[key] = value` entries, compared as written. */
export const ARRAY_ENTRIES: readonly string[] = [
  'env',
  'php_value',
  'php_admin_value',
  'php_flag',
  'php_admin_flag',
  'access.suppress_path',
];

/**
 * Entries only some builds take: `listen.setfib` where the system has
 * SO_SETFIB (FreeBSD), `listen.acl_*` with libacl, `apparmor_hat` with
 * AppArmor, `syslog.*` with syslog.h, `systemd_interval` with systemd.
 */
export const BUILD_DEPENDENT: readonly string[] = [
  'listen.setfib',
  'listen.acl_users',
  'listen.acl_groups',
  'apparmor_hat',
  'syslog.ident',
  'syslog.facility',
  'systemd_interval',
];

/**
 * What a pool has for the entries it does not set, as `php-fpm8.2 -tt`
 * prints them (fpm_conf.c's fpm_worker_pool_config_alloc and
 * fpm_conf_process_all_pools, PHP 8.2); entries without a default (printed
 * `undefined`) are not here, nor `pm.start_servers`, which php-fpm works out
 * from the spare servers (poolStartServers). `test/oracle/phpfpm-oracle.test.ts`
 * holds them to the installed php-fpm.
 */
export const POOL_DEFAULTS: Readonly<Record<string, string>> = {
  'listen.backlog': '-1',
  'process.dumpable': 'no',
  'pm.max_spawn_rate': '32',
  'pm.process_idle_timeout': '10',
  'pm.max_requests': '0',
  request_slowlog_timeout: '0s',
  request_slowlog_trace_depth: '20',
  request_terminate_timeout: '0s',
  request_terminate_timeout_track_finished: 'no',
  rlimit_files: '0',
  rlimit_core: '0',
  catch_workers_output: 'no',
  decorate_workers_output: 'yes',
  clear_env: 'yes',
  'security.limit_extensions': '.php .phar',
};
