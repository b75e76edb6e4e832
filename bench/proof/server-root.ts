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

export interface ServerTree {
  root: string;
  configFile: string;
  pidFile: string;
  errorLog: string;
  port: number;
  /** Every config file of the tree, relative to the root, in the order Apache reads them. */
  configFiles: string[];
}

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
function apacheConf(root: string): string {
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

/**
 * Writes a Debian-like ServerRoot (apache2.conf, ports.conf, mods-enabled/*.load
 * and *.conf as real files, never symlinks into /etc, so a `--fix` can only
 * touch this tree) serving `pageSource` as /page.php; with `database`, the
 * page's database.php names the socket and account it reads articles with.
 */
export function writeServerTree(
  root: string,
  port: number,
  prefork: PreforkSettings,
  pageSource: string,
  database?: { socket: string; user: string; password: string; name: string },
): ServerTree {
  const files = new Map<string, string>([
    ['apache2.conf', apacheConf(root)],
    ['ports.conf', `Listen 127.0.0.1:${port}\n`],
    ['mods-enabled/authz_core.load', `LoadModule authz_core_module ${MODULES_DIR}/mod_authz_core.so\n`],
    ['mods-enabled/dir.load', `LoadModule dir_module ${MODULES_DIR}/mod_dir.so\n`],
    ['mods-enabled/dir.conf', '<IfModule mod_dir.c>\n\tDirectoryIndex index.html index.php\n</IfModule>\n'],
    ['mods-enabled/mime.load', `LoadModule mime_module ${MODULES_DIR}/mod_mime.so\n`],
    ['mods-enabled/mime.conf', '<IfModule mod_mime.c>\n\tTypesConfig /etc/mime.types\n</IfModule>\n'],
    ['mods-enabled/mpm_prefork.load', `LoadModule mpm_prefork_module ${MODULES_DIR}/mod_mpm_prefork.so\n`],
    ['mods-enabled/mpm_prefork.conf', preforkConf(prefork)],
    ['mods-enabled/php8.2.load', `LoadModule php_module ${MODULES_DIR}/libphp8.2.so\n`],
    ['mods-enabled/php8.2.conf', PHP_CONF],
  ]);
  for (const dir of ['', 'mods-enabled', 'run', 'logs', 'htdocs']) {
    fs.mkdirSync(path.join(root, dir), { recursive: true, mode: 0o755 });
    // The children run as www-data and must reach htdocs; mkdtemp makes 0700 directories.
    fs.chmodSync(path.join(root, dir), 0o755);
  }
  for (const [name, text] of files) fs.writeFileSync(path.join(root, name), text, { mode: 0o644 });
  fs.writeFileSync(path.join(root, 'htdocs', 'page.php'), pageSource, { mode: 0o644 });
  if (database) {
    fs.writeFileSync(path.join(root, 'htdocs', 'database.php'), `<?php\nreturn ${phpArray(database)};\n`, { mode: 0o644 });
  }
  return {
    root,
    configFile: path.join(root, 'apache2.conf'),
    pidFile: path.join(root, 'run', 'apache2.pid'),
    errorLog: path.join(root, 'logs', 'error.log'),
    port,
    configFiles: [
      'apache2.conf',
      ...[...files.keys()].filter((name) => name.endsWith('.load')).sort(),
      ...[...files.keys()].filter((name) => name.startsWith('mods-enabled/') && name.endsWith('.conf')).sort(),
      'ports.conf',
    ],
  };
}

/** Overwrites the MPM block of a tree (only for the dev-only hand-sized check of the pipeline). */
export function rewritePrefork(tree: ServerTree, prefork: PreforkSettings): void {
  fs.writeFileSync(path.join(tree.root, 'mods-enabled', 'mpm_prefork.conf'), preforkConf(prefork));
}

const PREFORK_DIRECTIVES = new Map<string, keyof PreforkSettings>([
  ['startservers', 'startServers'],
  ['minspareservers', 'minSpareServers'],
  ['maxspareservers', 'maxSpareServers'],
  ['maxrequestworkers', 'maxRequestWorkers'],
  ['maxclients', 'maxRequestWorkers'],
  ['maxconnectionsperchild', 'maxConnectionsPerChild'],
  ['maxrequestsperchild', 'maxConnectionsPerChild'],
]);

/**
 * The prefork numbers a (possibly patched) tree ends up with, for the report:
 * the last plain `Name value` line wins in Apache's read order. This tree has
 * no conditional sections around them, so a line scan is exact here; it is not
 * a general Apache reader.
 */
export function readPrefork(tree: ServerTree): PreforkSettings {
  const settings = { ...DEBIAN_PREFORK };
  for (const name of tree.configFiles) {
    const text = fs.readFileSync(path.join(tree.root, name), 'utf8');
    for (const line of text.split(/\r?\n/)) {
      const match = /^\s*([A-Za-z]+)\s+(\d+)\s*$/.exec(line);
      const key = match ? PREFORK_DIRECTIVES.get((match[1] ?? '').toLowerCase()) : undefined;
      if (match && key) settings[key] = Number(match[2]);
    }
  }
  return settings;
}

/** Other top-level numbers tune-lint may change, shown next to the MPM numbers in the report. */
export function readScalar(tree: ServerTree, directive: string): string | undefined {
  let value: string | undefined;
  for (const name of tree.configFiles) {
    const text = fs.readFileSync(path.join(tree.root, name), 'utf8');
    for (const line of text.split(/\r?\n/)) {
      const match = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(line);
      if (match && (match[1] ?? '').toLowerCase() === directive.toLowerCase()) value = match[2];
    }
  }
  return value;
}
