import * as path from 'node:path';

/**
 * The directories distributions keep the files a main httpd.conf or
 * apache2.conf includes in: RHEL's conf.d and conf.modules.d, Debian's
 * *-available and *-enabled, openSUSE's vhosts.d, FreeBSD's Includes and
 * modules.d, the extra/ of httpd's own layout.
 */
const INCLUDED_DIRS: ReadonlySet<string> = new Set([
  'conf.d',
  'conf.modules.d',
  'sites-available',
  'sites-enabled',
  'conf-available',
  'conf-enabled',
  'mods-available',
  'mods-enabled',
  'vhosts.d',
  'includes',
  'modules.d',
  'extra',
]);

/** The names distributions give a main config. */
const MAIN_NAMES: ReadonlySet<string> = new Set(['httpd.conf', 'apache2.conf']);

/**
 * The modules every distribution's httpd 2.4 loads as installed: Debian's
 * apache2 enables these on a fresh install (enable_default_modules in its
 * postinst, with the authn_core and authz_core they depend on) and RHEL's
 * conf.modules.d/00-base.conf loads them all. A fragment is judged with them
 * loaded, as the main config it belongs to has them; its MPM is not known.
 */
export const STOCK_MODULES: readonly string[] = [
  'access_compat_module',
  'alias_module',
  'auth_basic_module',
  'authn_core_module',
  'authn_file_module',
  'authz_core_module',
  'authz_host_module',
  'authz_user_module',
  'autoindex_module',
  'deflate_module',
  'dir_module',
  'env_module',
  'filter_module',
  'mime_module',
  'negotiation_module',
  'reqtimeout_module',
  'setenvif_module',
  'status_module',
];

/**
 * Why a main file given is a fragment by where it is: in a directory a main
 * config includes files from (conf.d), or an .htaccess file, which httpd
 * reads within a main config's <Directory>. Undefined otherwise.
 */
export function fragmentByPath(serverPath: string): string | undefined {
  if (path.posix.basename(serverPath).toLowerCase() === '.htaccess')
    return "it is an .htaccess file, read within a main config's <Directory>";
  const dir = path.posix.basename(path.posix.dirname(serverPath));
  return INCLUDED_DIRS.has(dir.toLowerCase()) ? `it is in ${dir}/, where a main config includes files from` : undefined;
}

/**
 * Why the main file given is a fragment of a configuration rather than a
 * whole one: it sits where a main config includes files from, or it loads
 * and includes nothing and is not named as a main config is (.htaccess, a
 * vhost kept elsewhere). Undefined for a whole configuration. In a fragment the
 * MPM, the modules beyond the stock ones and the variables the main config
 * and the service's environment define are not known.
 */
export function fragmentReason(
  rootServerPath: string,
  config: { named(name: string): readonly unknown[]; loadedMpms(): readonly unknown[] },
): string | undefined {
  const byPath = fragmentByPath(rootServerPath);
  if (byPath !== undefined) return byPath;
  // A main config whose module includes are missing is no fragment: it says where its modules would come from.
  const reads = ['loadmodule', 'include', 'includeoptional'].some((name) => config.named(name).length > 0);
  if (!reads && config.loadedMpms().length === 0 && !MAIN_NAMES.has(path.posix.basename(rootServerPath)))
    return 'it loads no module and includes no file';
  return undefined;
}
