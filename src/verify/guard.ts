import * as fs from 'node:fs';
import * as path from 'node:path';
import { visitApacheNodes, type ApacheNode } from '../languages/apache/cst.js';
import { parseApache } from '../languages/apache/parser.js';
import { legacySetVariable, normaliseOptionName } from '../languages/mycnf/names.js';
import { parsePhpFpm } from '../languages/phpfpm/parser.js';
import { parseMyCnf } from '../languages/mycnf/parser.js';
import { loadedPlugins } from '../languages/mycnf/plugins.js';
import { LineIndex } from '../core/line-index.js';
import { underSystemDirs } from './sandbox.js';
import { appendAll } from '../util/arrays.js';

/**
 * The second line of `--verify`, after the sandbox: what in the files a
 * server check would read makes the server load code or open files the
 * configuration chooses. It reads the files as they will be in the check
 * (patched), every line of them: inactive `<IfVersion>`/`<IfModule>`
 * branches, `<Macro>` bodies and option groups of any product or version
 * alike, since the installed server need not be the target. Paths are
 * expanded with the environment the server gets, as the server expands them;
 * what the guard cannot resolve is a hazard.
 */

/** A file as the check will see it. */
export interface GuardedFile {
  readonly displayPath: string;
  readonly text: string;
}

/** Where distributions install shared libraries and server modules; only root-owned files there may be loaded. */
const SYSTEM_LIBRARY_DIRS = ['/usr/lib/', '/usr/lib64/', '/lib/', '/lib64/', '/usr/local/lib/'];

/**
 * mod_security opens these files while httpd reads the config, even under
 * `apache2 -t` (a piped one starts its program).
 */
const OPENED_WHILE_READING = new Set(['secauditlog', 'secauditlog2', 'secdebuglog', 'secguardianlog']);

/** mod_perl runs Perl while httpd reads the config: these directives and `<Perl>` sections. */
const RUNS_CODE_WHILE_READING = new Set([
  'perlrequire',
  'perlmodule',
  'perlloadmodule',
  'perlconfigrequire',
  'perlpostconfigrequire',
  'perl',
]);

/** Options by which mariadbd loads plugins (shared libraries) while it reads its options, even for --help. */
const PLUGIN_OPTIONS = ['plugin_load', 'plugin_load_add', 'plugin_dir', 'early_plugin_load'];

/**
 * The plugin_dir MariaDB and MySQL packages are built with (Debian, RHEL).
 * Without a plugin_dir in the files, plugin_load_add loads a bare library
 * name from there (the server refuses a name with a path), so a package's
 * own `plugin_load_add = provider_bzip2` loads system code.
 */
const SYSTEM_PLUGIN_DIRS = ['/usr/lib/mysql/plugin', '/usr/lib64/mysql/plugin', '/usr/lib/mariadb/plugin', '/usr/lib64/mariadb/plugin'];

export interface ApacheGuardContext {
  /** The environment the server runs with: `${NAME}` resolves from it unless a `Define` anywhere names it. */
  readonly env: Readonly<Record<string, string>>;
  /** The ServerRoot the server starts with (`-d`); every `ServerRoot` line is another that relative paths may resolve against. */
  readonly serverRoot: string;
  /** Under --sysroot: whether the sysroot has something at a server path, which the check then sees instead of the host's file. */
  readonly inSysroot?: ((serverPath: string) => boolean) | undefined;
}

/** A library the server will load, as a server path the guard resolved and trusts. */
export interface TrustedLibrary {
  readonly serverPath: string;
  /** The system file it is on this host (a symlink's target, for `/etc/httpd/modules -> /usr/lib64/httpd/modules`). */
  readonly systemPath: string;
}

export interface ApacheGuardResult {
  readonly hazards: string[];
  readonly libraries: TrustedLibrary[];
}

/**
 * What in these Apache files would make `apache2 -t` run code or write files
 * the config chooses: a module or library that is not a root-owned file of
 * the system's library directories, a piped program anywhere, mod_security's
 * logs, mod_perl's code. Also the libraries it does trust, which the check
 * must be able to reach.
 */
export function apacheVerifyHazards(files: readonly GuardedFile[], context: ApacheGuardContext): ApacheGuardResult {
  const hazards: string[] = [];
  const libraries: TrustedLibrary[] = [];
  const located: { file: GuardedFile; lines: LineIndex | undefined; node: Extract<ApacheNode, { kind: 'directive' | 'section' }> }[] = [];
  for (const file of files) {
    const entry = { file, lines: undefined as LineIndex | undefined };
    visitApacheNodes(parseApache(file.text).nodes, (node) => located.push({ ...entry, node }));
  }
  const expand = expanderOf(located, context);
  const serverRoots = new Set([context.serverRoot]);
  for (const { node } of located) {
    if (node.kind === 'directive' && node.nameLower === 'serverroot' && node.args[0] !== undefined) {
      const root = expand(node.args[0].value);
      if (root !== undefined) serverRoots.add(path.posix.resolve(context.serverRoot, root));
    }
  }
  for (const item of located) {
    const { node, file } = item;
    const where = (): string => {
      item.lines ??= new LineIndex(file.text);
      return `${file.displayPath}:${item.lines.lineOf(node.range[0])}`;
    };
    const libraryArgs =
      node.kind !== 'directive'
        ? []
        : node.nameLower === 'loadmodule'
          ? node.args.slice(1, 2)
          : node.nameLower === 'loadfile'
            ? node.args
            : [];
    for (const arg of libraryArgs) {
      const verdict = judgeLibrary(arg.value, expand, context, [...serverRoots]);
      if (typeof verdict === 'string') hazards.push(`${node.name} ${arg.value} (${where()}): ${verdict}`);
      else appendAll(libraries, verdict);
    }
    if (OPENED_WHILE_READING.has(node.nameLower))
      hazards.push(`${node.name} ${node.args[0]?.value ?? ''} (${where()}): mod_security opens it while the config is read`);
    if (RUNS_CODE_WHILE_READING.has(node.nameLower))
      hazards.push(`${node.kind === 'section' ? `<${node.name}>` : node.name} (${where()}): mod_perl runs code while the config is read`);
    if (node.args.some((arg) => arg.value.startsWith('|'))) hazards.push(`${node.name} ${node.argsText} (${where()}): a piped program`);
  }
  return { hazards, libraries };
}

/**
 * `${NAME}` as the server expands it, from the environment it starts with;
 * undefined for a value with a name that a Define may set (the guard cannot
 * know to what) or that nothing sets.
 */
function expanderOf(located: readonly { node: ApacheNode }[], context: ApacheGuardContext): (value: string) => string | undefined {
  const defined = new Set<string>();
  for (const { node } of located) {
    if (node.kind === 'directive' && node.nameLower === 'define' && node.args[0] !== undefined) defined.add(node.args[0].value);
  }
  return (value) => {
    let unresolved = false;
    const expanded = value.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
      const known = defined.has(name) ? undefined : context.env[name];
      if (known === undefined) unresolved = true;
      return known ?? whole;
    });
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by the replacer above
    return unresolved ? undefined : expanded;
  };
}

/**
 * What in option files would make `mariadbd --help --verbose` load a library
 * the files choose, in any group: a plugin_dir, or a plugin_load_add naming
 * a library that is not a root-owned one of the system plugin directories.
 */
export function mycnfVerifyHazards(files: readonly GuardedFile[]): string[] {
  const hazards: string[] = [];
  const options = files.flatMap((file) =>
    parseMyCnf(file.text).lines.flatMap((line) =>
      line.kind === 'option' ? [{ file, line, set: optionSet(line.rawName, line.value) }] : [],
    ),
  );
  const choosesPluginDir = options.some(({ set }) => 'plugin_dir'.startsWith(set.key));
  for (const { file, line, set } of options) {
    if (!namesPluginOption(set.key)) continue;
    const written = `${line.rawName}${line.value === undefined ? '' : `=${line.value}`} (${file.displayPath}:${line.number})`;
    if (choosesPluginDir || (set.key !== 'plugin_load' && set.key !== 'plugin_load_add')) {
      hazards.push(`${written}: mariadbd loads plugins while it reads its options`);
      continue;
    }
    const untrusted = untrustedLibraries(set.value);
    if (untrusted.length > 0)
      hazards.push(`${written}: ${untrusted.join(', ')} is not a root-owned library of ${SYSTEM_PLUGIN_DIRS.join(', ')}`);
  }
  return hazards;
}

/**
 * Why php-fpm must not read these files, if anything: a pool entry that
 * names an extension (`php_admin_value[extension]`, `zend_extension`) is
 * loaded by the workers, not by `-t`, as php-fpm 8.2 does it; the check is
 * not run on such a pool all the same, so no later php-fpm that loads them
 * sooner runs a library the repository chose.
 */
export function phpFpmVerifyHazards(files: readonly GuardedFile[]): string[] {
  const hazards: string[] = [];
  for (const file of files) {
    for (const line of parsePhpFpm(file.text)) {
      if (line.kind !== 'entry') continue;
      const ini = /^php_(?:admin_)?(?:value|flag)\[\s*(zend_extension|extension)\s*\]$/i.exec(line.key.trim());
      if (ini !== null)
        hazards.push(`${line.key} = ${line.value} (${file.displayPath}:${line.number}): php-fpm loads the library it names`);
    }
  }
  return hazards;
}

/** The option a line sets and its value: for set-variable, the one inside. */
function optionSet(rawName: string, value: string | undefined): { key: string; value: string | undefined } {
  const name = normaliseOptionName(rawName);
  const inner = legacySetVariable(name, value);
  return inner === undefined ? { key: name.key, value } : { key: inner.name.key, value: inner.value };
}

/** The libraries of a plugin_load(_add) value that the system plugin directories do not vouch for. */
function untrustedLibraries(value: string | undefined): string[] {
  return loadedPlugins([{ key: 'plugin_load_add', value }])
    .map((plugin) => plugin.library)
    .filter((library) => library.includes('/') || !SYSTEM_PLUGIN_DIRS.some((dir) => rootOwnedFile(path.posix.join(dir, `${library}.so`))));
}

function rootOwnedFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile() && rootOnly(fs.realpathSync(file)) === undefined;
  } catch {
    return false;
  }
}

/** The server takes a unique prefix of an option's name for the option, so a prefix counts. */
function namesPluginOption(key: string): boolean {
  return PLUGIN_OPTIONS.some((option) => option.startsWith(key));
}

/**
 * The server paths a library argument may load, each trusted with the system
 * file it is, or why it is not trusted: a `${NAME}` the guard cannot resolve
 * as the server would, a `..`, a file that is not a root-owned one of the
 * system library directories.
 */
function judgeLibrary(
  written: string,
  expand: (value: string) => string | undefined,
  context: ApacheGuardContext,
  serverRoots: readonly string[],
): TrustedLibrary[] | string {
  const expanded = expand(written);
  if (expanded === undefined) return 'a ${NAME} in a library path that the server environment does not settle';
  if (expanded.split('/').includes('..')) return "a '..' in a library path";
  const candidates = path.posix.isAbsolute(expanded)
    ? [path.posix.normalize(expanded)]
    : serverRoots.map((root) => path.posix.join(root, expanded));
  const trusted: TrustedLibrary[] = [];
  for (const serverPath of candidates) {
    const verdict = systemLibrary(serverPath, context);
    if (verdict === undefined) continue;
    if ('hazard' in verdict) return verdict.hazard;
    trusted.push({ serverPath, systemPath: verdict.systemPath });
  }
  return trusted;
}

/**
 * The system file a server path loads on this host; undefined when nothing
 * is there for the check (the load fails in the sandbox as it fails on the
 * host). A path under the system directories is the host's own in the
 * sandbox. Any other is the configuration's: under --sysroot a file of the
 * repository, which is never trusted; without one, trusted only when it leads
 * by symlinks to a system library.
 */
function systemLibrary(serverPath: string, context: ApacheGuardContext): { hazard: string } | { systemPath: string } | undefined {
  if (!underSystemDirs(serverPath) && context.inSysroot !== undefined) {
    return context.inSysroot(serverPath) ? { hazard: 'a file of the repository, not a system library' } : undefined;
  }
  let real: string;
  try {
    real = fs.realpathSync(serverPath);
  } catch {
    if (!underSystemDirs(serverPath)) return undefined;
    const hazard = rootOnly(nearestExisting(serverPath));
    return hazard === undefined ? undefined : { hazard };
  }
  if (!SYSTEM_LIBRARY_DIRS.some((dir) => real.startsWith(dir))) return { hazard: `${real} is outside ${SYSTEM_LIBRARY_DIRS.join(', ')}` };
  const hazard = rootOnly(real);
  return hazard === undefined ? { systemPath: real } : { hazard };
}

function rootOnly(file: string): string | undefined {
  for (let current = file; current !== path.dirname(current); current = path.dirname(current)) {
    const stat = fs.statSync(current);
    if (stat.uid !== 0 || (stat.mode & 0o022) !== 0) return `${current} may be changed by someone other than root`;
  }
  return undefined;
}

function nearestExisting(file: string): string {
  let current = file;
  while (!fs.existsSync(current)) current = path.dirname(current);
  return current;
}
