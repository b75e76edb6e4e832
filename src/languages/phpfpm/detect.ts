/**
 * Configs whose names look like Apache's or an option file's but are PHP's:
 * php-fpm's `php-fpm.conf` and pool files (`www.conf`, a `.conf` that Apache
 * would refuse at its `[www]`), read as php-fpm, and `php.ini` (an `.ini`),
 * which tune-lint does not read and refuses rather than lint as my.cnf.
 */

/** php-fpm's own keys: the process manager's and the [global] section's. */
const PHP_FPM_KEY =
  /^(pm(\.[a-z_]+)?|listen(\.[a-z_]+)?|process_control_timeout|daemonize|emergency_restart_threshold|request_terminate_timeout|slowlog|catch_workers_output)$/;

/** Keys of php-fpm.conf's [global] section, which a stock file has alone: `pid`, `error_log`, `include=pool.d/*.conf`. */
const PHP_FPM_GLOBAL_KEY = /^(pid|error_log|include|syslog\.[a-z_]+|log_level)$/;

/** Directives only php.ini has. */
const PHP_INI_KEY =
  /^(engine|short_open_tag|memory_limit|max_execution_time|display_errors|error_reporting|upload_max_filesize|post_max_size|zend_extension|extension|opcache\.[a-z_]+|session\.[a-z_]+|date\.timezone)$/;

/**
 * A line that may be a `[section]` or a `key =` once trimmed (`\s` is the
 * whitespace trim() takes off): the lines phpConfigKind acts on. An Apache
 * config or an option file without `key =` lines has none, and one native
 * search says so instead of a loop over every line in a short run's
 * interpreter (0.16 M of the stock Debian lint's instructions).
 */
const SECTION_OR_KEY_LINE = /^\s*(?:\[|[A-Za-z_][\w.]*\s*=)/m;

/** What a main file is when it is php-fpm's or PHP's, from its first lines; undefined for anything else. */
export function phpConfigKind(text: string): { readonly language: 'phpfpm' } | { readonly refused: string } | undefined {
  if (!SECTION_OR_KEY_LINE.test(text)) return undefined;
  let group: string | undefined;
  let fpmKeys = 0;
  let iniKeys = 0;
  for (const raw of text.split('\n', 2_000)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header !== null) {
      const name = header[1] ?? '';
      group = name;
      if (name.toLowerCase() === 'php') return { refused: 'php.ini (its [PHP] section)' };
      continue;
    }
    const key = /^([A-Za-z_][\w.]*)\s*=/.exec(line)?.[1]?.toLowerCase();
    if (key === undefined) continue;
    if (PHP_FPM_KEY.test(key) || (group?.toLowerCase() === 'global' && PHP_FPM_GLOBAL_KEY.test(key))) fpmKeys++;
    if (PHP_INI_KEY.test(key)) iniKeys++;
  }
  if (fpmKeys > 0 && group !== undefined) return { language: 'phpfpm' };
  if (iniKeys >= 2) return { refused: 'php.ini (PHP directives)' };
  return undefined;
}
