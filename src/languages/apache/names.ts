import { lookupTable } from '../../util/lookup.js';
export type MpmName = 'prefork' | 'worker' | 'event';

export const MPM_MODULES: Readonly<Record<string, MpmName>> = lookupTable({
  mpm_prefork_module: 'prefork',
  mpm_worker_module: 'worker',
  mpm_event_module: 'event',
});

/**
 * Modules httpd 2.2 shipped and 2.4 does not (httpd's "Upgrading to 2.4":
 * mod_authn_alias went into mod_authn_core, mod_authn_default and
 * mod_authz_default were dropped with the new authorization, mod_mem_cache was
 * removed and mod_disk_cache renamed mod_cache_disk; SUSE's apache-22-24-upgrade
 * script disables the same): a LoadModule of one is a 2.2 configuration.
 */
export const MODULES_ONLY_IN_22: ReadonlySet<string> = new Set([
  'authn_alias_module',
  'authn_default_module',
  'authz_default_module',
  'disk_cache_module',
  'mem_cache_module',
]);

/**
 * Modules compiled into Debian's apache2 2.4 (`apache2 -l`); `<IfModule>` on
 * them is true without a LoadModule. Other builds can pass their own list.
 */
export const DEBIAN_STATIC_MODULES: readonly string[] = [
  'core_module',
  'so_module',
  'watchdog_module',
  'http_module',
  'log_config_module',
  'logio_module',
  'version_module',
  'unixd_module',
];

/**
 * The C source name httpd records for a module (`module->name`), which
 * `<IfModule mod_rewrite.c>` compares against: `rewrite_module` is
 * `mod_rewrite.c`, the MPMs are `prefork.c`/`worker.c`/`event.c`, the core
 * parts have their own file names.
 */
export function moduleSourceName(identifier: string, file?: string): string {
  const mpm = MPM_MODULES[identifier];
  if (mpm !== undefined) return `${mpm}.c`;
  const special = SPECIAL_SOURCE_NAMES[identifier];
  if (special !== undefined) return special;
  const base = file?.split('/').pop();
  const fromFile = base === undefined ? undefined : /^(mod_[A-Za-z0-9_]+)\.so$/.exec(base)?.[1];
  if (fromFile !== undefined) return `${fromFile}.c`;
  return `mod_${identifier.replace(/_module$/, '')}.c`;
}

const SPECIAL_SOURCE_NAMES: Readonly<Record<string, string>> = lookupTable({
  core_module: 'core.c',
  http_module: 'http_core.c',
  so_module: 'mod_so.c',
  watchdog_module: 'mod_watchdog.c',
  log_config_module: 'mod_log_config.c',
  logio_module: 'mod_logio.c',
  version_module: 'mod_version.c',
  unixd_module: 'mod_unixd.c',
  ldap_module: 'util_ldap.c',
  php_module: 'mod_php.c',
  php7_module: 'mod_php7.c',
  php5_module: 'mod_php5.c',
});

/** Modules that are not thread-safe and tie httpd to prefork. */
export function isNonThreadSafeModule(identifier: string): boolean {
  return (
    /^php\d*_module$/.test(identifier) ||
    identifier === 'python_module' ||
    identifier === 'ruid2_module' ||
    identifier === 'itk_module' ||
    identifier === 'mpm_itk_module'
  );
}

/**
 * True for mod_php in any of the spellings a loaded-module list can carry:
 * the module identifier (`php_module`, `php7_module`), the source name
 * (`mod_php7.c`) or the shared object (`libphp8.2.so`, `mod_php5.so`).
 */
export function isPhpModule(module: string): boolean {
  const name = module.toLowerCase().replace(/^.*\//, '');
  return /^php\d*_module$/.test(name) || /^mod_php[\d.]*\.(c|so)$/.test(name) || /^libphp[\d.]*\.so$/.test(name);
}

/**
 * Directives httpd runs while it reads the config (EXEC_ON_READ): they shape
 * what is read and do not appear in `-D DUMP_CONFIG`.
 */
export const EXEC_ON_READ_DIRECTIVES: ReadonlySet<string> = new Set([
  'serverroot',
  'defaultruntimedir',
  'define',
  'undefine',
  'include',
  'includeoptional',
  'loadmodule',
  'loadfile',
  'use',
  'undefmacro',
]);

/** Conditional sections evaluated while reading; their wrappers vanish from the effective config. */
export const CONDITIONAL_SECTIONS: ReadonlySet<string> = new Set([
  'ifmodule',
  'ifdefine',
  'ifversion',
  'iffile',
  'ifdirective',
  'ifsection',
]);

/** Sections whose body is a template or foreign code, not configuration applied as it stands. */
export const INERT_SECTIONS: ReadonlySet<string> = new Set(['macro', 'perl']);
