import * as fs from 'node:fs';
import * as path from 'node:path';

/** The prefork numbers of a server tree, as written in mods-enabled/mpm_prefork.conf. */
export interface PreforkSettings {
  startServers: number;
  minSpareServers: number;
  maxSpareServers: number;
  maxRequestWorkers: number;
  maxConnectionsPerChild: number;
}

/** Debian 12's /etc/apache2/mods-available/mpm_prefork.conf. */
export const DEBIAN_PREFORK: PreforkSettings = {
  startServers: 5,
  minSpareServers: 5,
  maxSpareServers: 10,
  maxRequestWorkers: 150,
  maxConnectionsPerChild: 0,
};

/** The php-fpm part of a tree (event stack): its own master config, one pool, a private socket. */
export interface PhpFpmTree {
  configFile: string;
  poolFile: string;
  pidFile: string;
  socket: string;
  errorLog: string;
}

export interface ServerTree {
  root: string;
  configFile: string;
  pidFile: string;
  errorLog: string;
  port: number;
  /** Every Apache config file of the tree, relative to the root, in the order Apache reads them. */
  configFiles: string[];
  /** Set for the event + php-fpm stack. */
  fpm?: PhpFpmTree;
}

/**
 * What a tree runs PHP with: Debian's prefork + mod_php with these numbers, or
 * Debian's event + proxy_fcgi + php-fpm with the stock pool or the pool as
 * tutorials write it (`pm = static`, `pm.max_children = 50`).
 */
export type Stack = { kind: 'prefork'; prefork: PreforkSettings } | { kind: 'fpm'; pool: 'stock' | 'tutorial' };

/** Debian's own files the event stack starts from, copied with only their paths moved into the tree. */
export const DEBIAN_FPM_FILES = {
  fpmConf: '/etc/php/8.2/fpm/php-fpm.conf',
  pool: '/etc/php/8.2/fpm/pool.d/www.conf',
  eventConf: '/etc/apache2/mods-available/mpm_event.conf',
  apacheFpmConf: '/etc/apache2/conf-available/php8.2-fpm.conf',
} as const;

const MODULES_DIR = '/usr/lib/apache2/modules';

function preforkConf(settings: PreforkSettings): string {
  return `# prefork MPM
# StartServers: number of server processes to start
# MinSpareServers: minimum number of server processes which are kept spare
# MaxSpareServers: maximum number of server processes which are kept spare
# MaxRequestWorkers: maximum number of server processes allowed to start
# MaxConnectionsPerChild: maximum number of requests a server process serves

StartServers            ${settings.startServers}
MinSpareServers         ${settings.minSpareServers}
MaxSpareServers         ${settings.maxSpareServers}
MaxRequestWorkers       ${settings.maxRequestWorkers}
MaxConnectionsPerChild  ${settings.maxConnectionsPerChild}

# vim: syntax=apache ts=4 sw=4 sts=4 sr noet
`;
}

/** Apache's main file with Debian's stock numbers and every path inside the private root. */
function apacheConf(root: string, confEnabled: boolean): string {
  return `# Private ServerRoot of tune-lint's proof (bench/proof): Debian's stock
# apache2.conf settings, every path inside this directory, loopback only.
ServerRoot "${root}"
DefaultRuntimeDir ${root}/run
PidFile ${root}/run/apache2.pid
Mutex file:${root}/run default

Timeout 300
KeepAlive On
MaxKeepAliveRequests 100
KeepAliveTimeout 5

User www-data
Group www-data

HostnameLookups Off
ErrorLog ${root}/logs/error.log
LogLevel warn

IncludeOptional mods-enabled/*.load
IncludeOptional mods-enabled/*.conf

Include ports.conf
${confEnabled ? '\nIncludeOptional conf-enabled/*.conf\n' : ''}
ServerName 127.0.0.1

<Directory />
	Options FollowSymLinks
	AllowOverride None
	Require all denied
</Directory>

<Directory ${root}/htdocs/>
	Options FollowSymLinks
	AllowOverride None
	Require all granted
</Directory>

DocumentRoot ${root}/htdocs

AccessFileName .htaccess
<FilesMatch "^\\.ht">
	Require all denied
</FilesMatch>

# vim: syntax=apache ts=4 sw=4 sts=4 sr noet
`;
}

const PHP_CONF = `<FilesMatch ".+\\.ph(?:ar|p|tml)$">
    SetHandler application/x-httpd-php
</FilesMatch>
<FilesMatch ".+\\.phps$">
    SetHandler application/x-httpd-php-source
    Require all denied
</FilesMatch>
<FilesMatch "^\\.ph(?:ar|p|ps|tml)$">
    Require all denied
</FilesMatch>
`;

function phpArray(values: Record<string, string>): string {
  const quote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `[${Object.entries(values)
    .map(([key, value]) => `${quote(key)} => ${quote(value)}`)
    .join(', ')}]`;
}

/** A Debian file with `from` replaced by `to` in it; a file that no longer holds `from` stops the run. */
function moved(file: string, replacements: readonly (readonly [RegExp, string])[]): string {
  let text = fs.readFileSync(file, 'utf8');
  for (const [from, to] of replacements) {
    if (!from.test(text)) throw new Error(`${file} has no line matching ${String(from)}: Debian's file changed, update the proof`);
    text = text.replace(from, to);
  }
  return text;
}

/** The files of the PHP side of a tree: mod_php under prefork, or proxy_fcgi to a private php-fpm under event. */
function phpFiles(root: string, stack: Stack): Map<string, string> {
  if (stack.kind === 'prefork') {
    return new Map([
      ['mods-enabled/mpm_prefork.load', `LoadModule mpm_prefork_module ${MODULES_DIR}/mod_mpm_prefork.so\n`],
      ['mods-enabled/mpm_prefork.conf', preforkConf(stack.prefork)],
      ['mods-enabled/php8.2.load', `LoadModule php_module ${MODULES_DIR}/libphp8.2.so\n`],
      ['mods-enabled/php8.2.conf', PHP_CONF],
    ]);
  }
  const socket = path.join(root, 'run', 'php-fpm.sock');
  const pool: (readonly [RegExp, string])[] = [[/^listen = .*$/m, `listen = ${socket}`]];
  if (stack.pool === 'tutorial') pool.push([/^pm = dynamic$/m, 'pm = static'], [/^pm\.max_children = 5$/m, 'pm.max_children = 50']);
  return new Map([
    ['mods-enabled/mpm_event.load', `LoadModule mpm_event_module ${MODULES_DIR}/mod_mpm_event.so\n`],
    ['mods-enabled/mpm_event.conf', fs.readFileSync(DEBIAN_FPM_FILES.eventConf, 'utf8')],
    ...['proxy', 'proxy_fcgi', 'setenvif'].map((name): [string, string] => [
      `mods-enabled/${name}.load`,
      `LoadModule ${name}_module ${MODULES_DIR}/mod_${name}.so\n`,
    ]),
    ['conf-enabled/php8.2-fpm.conf', moved(DEBIAN_FPM_FILES.apacheFpmConf, [[/\/run\/php\/php8\.2-fpm\.sock/g, socket]])],
    [
      'php/php-fpm.conf',
      moved(DEBIAN_FPM_FILES.fpmConf, [
        [/^pid = .*$/m, `pid = ${path.join(root, 'run', 'php-fpm.pid')}`],
        [/^error_log = .*$/m, `error_log = ${path.join(root, 'logs', 'php-fpm.log')}`],
        [/^include=.*$/m, `include=${path.join(root, 'php', 'pool.d')}/*.conf`],
      ]),
    ],
    ['php/pool.d/www.conf', moved(DEBIAN_FPM_FILES.pool, pool)],
  ]);
}

/**
 * Writes a Debian-like ServerRoot (apache2.conf, ports.conf, mods-enabled/*.load
 * and *.conf as real files, never symlinks into /etc, so a `--fix` can only
 * touch this tree) serving `pageSource` as /page.php; with `database`, the
 * page's database.php names the socket and account it reads articles with.
 */
export function writeServerTree(
  root: string,
  port: number,
  stack: Stack,
  pageSource: string,
  database?: { socket: string; user: string; password: string; name: string },
): ServerTree {
  const files = new Map<string, string>([
    ['apache2.conf', apacheConf(root, stack.kind === 'fpm')],
    ['ports.conf', `Listen 127.0.0.1:${port}\n`],
    ['mods-enabled/authz_core.load', `LoadModule authz_core_module ${MODULES_DIR}/mod_authz_core.so\n`],
    ['mods-enabled/dir.load', `LoadModule dir_module ${MODULES_DIR}/mod_dir.so\n`],
    ['mods-enabled/dir.conf', '<IfModule mod_dir.c>\n\tDirectoryIndex index.html index.php\n</IfModule>\n'],
    ['mods-enabled/mime.load', `LoadModule mime_module ${MODULES_DIR}/mod_mime.so\n`],
    ['mods-enabled/mime.conf', '<IfModule mod_mime.c>\n\tTypesConfig /etc/mime.types\n</IfModule>\n'],
    ...phpFiles(root, stack),
  ]);
  for (const name of ['', 'run', 'logs', 'htdocs', ...[...files.keys()].map((file) => path.dirname(file))]) {
    fs.mkdirSync(path.join(root, name), { recursive: true, mode: 0o755 });
    // The children run as www-data and must reach htdocs; mkdtemp makes 0700 directories.
    fs.chmodSync(path.join(root, name), 0o755);
  }
  for (const [name, text] of files) fs.writeFileSync(path.join(root, name), text, { mode: 0o644 });
  fs.writeFileSync(path.join(root, 'htdocs', 'page.php'), pageSource, { mode: 0o644 });
  if (database) {
    fs.writeFileSync(path.join(root, 'htdocs', 'database.php'), `<?php\nreturn ${phpArray(database)};\n`, { mode: 0o644 });
  }
  const apacheFiles = [...files.keys()].filter((name) => !name.startsWith('php/'));
  return {
    root,
    configFile: path.join(root, 'apache2.conf'),
    pidFile: path.join(root, 'run', 'apache2.pid'),
    errorLog: path.join(root, 'logs', 'error.log'),
    port,
    configFiles: [
      'apache2.conf',
      ...apacheFiles.filter((name) => name.endsWith('.load')).sort(),
      ...apacheFiles.filter((name) => name.startsWith('mods-enabled/') && name.endsWith('.conf')).sort(),
      'ports.conf',
      ...apacheFiles.filter((name) => name.startsWith('conf-enabled/')).sort(),
    ],
    ...(stack.kind === 'fpm'
      ? {
          fpm: {
            configFile: path.join(root, 'php', 'php-fpm.conf'),
            poolFile: path.join(root, 'php', 'pool.d', 'www.conf'),
            pidFile: path.join(root, 'run', 'php-fpm.pid'),
            socket: path.join(root, 'run', 'php-fpm.sock'),
            errorLog: path.join(root, 'logs', 'php-fpm.log'),
          },
        }
      : {}),
  };
}

/** Overwrites the MPM block of a tree (only for the dev-only hand-sized check of the pipeline). */
export function rewritePrefork(tree: ServerTree, prefork: PreforkSettings): void {
  fs.writeFileSync(path.join(tree.root, 'mods-enabled', 'mpm_prefork.conf'), preforkConf(prefork));
}

/** Old names Apache still reads for the MPM limits, shown under their 2.4 names. */
const ALIASES = new Map([
  ['maxclients', 'MaxRequestWorkers'],
  ['maxrequestsperchild', 'MaxConnectionsPerChild'],
]);

/**
 * The values a (possibly patched) tree ends up with for these directives, for
 * the report: the last plain `Name value` line wins in Apache's read order.
 * These trees have no conditional sections around them, so a line scan is
 * exact here; it is not a general Apache reader.
 */
export function readDirectives(tree: ServerTree, names: readonly string[]): Record<string, string> {
  const wanted = new Map(names.map((name) => [name.toLowerCase(), name]));
  const values: Record<string, string> = {};
  for (const file of tree.configFiles) {
    for (const line of fs.readFileSync(path.join(tree.root, file), 'utf8').split(/\r?\n/)) {
      const match = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(line);
      const lower = (match?.[1] ?? '').toLowerCase();
      const name = wanted.get(ALIASES.get(lower)?.toLowerCase() ?? lower);
      if (match && name !== undefined) values[name] = match[2] ?? '';
    }
  }
  return values;
}

/** The pool's `key = value` settings, as the pool file of a (possibly patched) tree sets them. */
export function readPool(tree: ServerTree, keys: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  if (tree.fpm === undefined) return values;
  for (const line of fs.readFileSync(tree.fpm.poolFile, 'utf8').split(/\r?\n/)) {
    const match = /^\s*([\w.]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match && keys.includes(match[1] ?? '')) values[match[1] ?? ''] = match[2] ?? '';
  }
  return values;
}
