/**
 * The config trees the benchmark reads, built in a temporary directory so
 * every command of a run sees the same bytes while other work changes /etc.
 *
 * - The stock Debian tree: /etc/apache2 and /etc/mysql copied (symlinks kept
 *   verbatim) under `<root>/etc`, with `/etc/alternatives/my.cnf` (my.cnf's
 *   target) and `/etc/modsecurity` (security2.conf's IncludeOptional) beside
 *   them, so `--sysroot <root>` reads only the copy, as a pre-commit hook on a
 *   config repository does, and once more with a `.tune-lint.yaml`. `/etc`
 *   is only read.
 * - Generated vhost trees: that Apache copy plus the modules the sites use,
 *   and N virtual hosts in one of four shapes (TREE_SHAPES), each with an
 *   existing DocumentRoot, so `apache2 -t` accepts the tree. Same N and
 *   shape, same bytes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface DebianTree {
  /** The sysroot: `<root>/etc/apache2`, `<root>/etc/mysql`. */
  readonly root: string;
  /**
   * The same tree as a config repository for a pre-commit hook: the copy
   * again, with a `.tune-lint.yaml` giving the host's facts at its root.
   */
  readonly repository: string;
  readonly apacheConf: string;
  readonly myCnf: string;
}

/**
 * How the sites are laid out. What Apache does per vhost differs between
 * them (proxy and rewrite set-up, SSL), so each gives its own ratio.
 */
export type TreeShape = 'proxy' | 'small-files' | 'single-file' | 'panel';

export const TREE_SHAPES: Readonly<Record<TreeShape, string>> = {
  proxy: 'one file per site: 24 lines with rewrite, a proxied Location and headers',
  'small-files': 'one small file per site: names, Directory, three rewrite lines, an Alias, a Header in IfModule',
  'single-file': 'the small-file sites, all in one file',
  panel: 'a hosting panel: per domain a site file with a port 80 redirect and an SSL vhost, and three include files',
};

export interface VhostTree {
  readonly shape: TreeShape;
  readonly vhosts: number;
  /** ServerRoot of the tree, what `apache2 -d` gets. */
  readonly serverRoot: string;
  readonly apacheConf: string;
  /** Where the sites' DocumentRoots are, one directory per site. */
  readonly webRoot: string;
  readonly files: number;
  readonly bytes: number;
}

/** Modules the generated vhosts use, enabled the way a2enmod does it (relative symlinks). */
const SHAPE_MODULES: Readonly<Record<TreeShape, readonly string[]>> = {
  proxy: ['rewrite', 'headers', 'proxy', 'proxy_http'],
  'small-files': ['rewrite', 'headers'],
  'single-file': ['rewrite', 'headers'],
  panel: ['rewrite', 'headers', 'proxy', 'proxy_fcgi', 'socache_shmcb', 'ssl'],
};

export function copyDebianTree(into: string, etc = '/etc'): DebianTree {
  const root = path.join(into, 'debian');
  const target = path.join(root, 'etc');
  fs.mkdirSync(target, { recursive: true });
  copyVerbatim(path.join(etc, 'apache2'), path.join(target, 'apache2'));
  copyVerbatim(path.join(etc, 'mysql'), path.join(target, 'mysql'));
  const alternative = path.join(etc, 'alternatives', 'my.cnf');
  if (fs.existsSync(alternative)) copyVerbatim(alternative, path.join(target, 'alternatives', 'my.cnf'));
  const modsecurity = path.join(etc, 'modsecurity');
  if (fs.existsSync(modsecurity)) copyVerbatim(modsecurity, path.join(target, 'modsecurity'));
  const repository = path.join(into, 'config-repo');
  copyVerbatim(root, repository);
  fs.writeFileSync(path.join(repository, '.tune-lint.yaml'), REPOSITORY_CONFIG);
  return { root, repository, apacheConf: path.join(target, 'apache2', 'apache2.conf'), myCnf: path.join(target, 'mysql', 'my.cnf') };
}

/** Host facts as a hook's repository gives them, so the sizing rules run too. */
const REPOSITORY_CONFIG = 'host:\n  ram: 2G\n  cpus: 2\n';

export function buildVhostTree(into: string, vhosts: number, shape: TreeShape = 'proxy', apacheSource = '/etc/apache2'): VhostTree {
  const base = path.join(into, `${shape}-${vhosts}`);
  const serverRoot = path.join(base, 'apache2');
  const paths: SitePaths = { webRoot: path.join(base, 'www'), logDir: path.join(base, 'log'), serverRoot };
  copyVerbatim(apacheSource, serverRoot);
  fs.mkdirSync(paths.logDir, { recursive: true });
  for (const module of SHAPE_MODULES[shape]) {
    for (const suffix of ['.load', '.conf']) {
      const available = path.join(serverRoot, 'mods-available', `${module}${suffix}`);
      const enabled = path.join(serverRoot, 'mods-enabled', `${module}${suffix}`);
      if (fs.existsSync(available) && !fs.existsSync(enabled)) fs.symlinkSync(`../mods-available/${module}${suffix}`, enabled);
    }
  }
  if (shape === 'panel') {
    // ISPConfig names its site files *.vhost and adds this line to apache2.conf for them.
    fs.appendFileSync(path.join(serverRoot, 'apache2.conf'), "\n# The hosting panel's sites\nIncludeOptional sites-enabled/*.vhost\n");
    // apache2 -t checks that certificate files exist; what they hold is read only when the server starts.
    fs.mkdirSync(path.join(serverRoot, 'ssl'));
    for (const name of ['cert.pem', 'key.pem'])
      fs.writeFileSync(path.join(serverRoot, 'ssl', name), 'placeholder: read at start-up, not by -t\n');
  }
  let bytes = 0;
  let files = 0;
  const write = (relative: string, text: string, append = false): void => {
    const file = path.join(serverRoot, relative);
    if (append) fs.appendFileSync(file, text);
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      files++;
    }
    bytes += Buffer.byteLength(text);
  };
  for (let index = 1; index <= vhosts; index++) {
    const site = `site${String(index).padStart(5, '0')}`;
    fs.mkdirSync(path.join(paths.webRoot, site), { recursive: true });
    if (shape === 'proxy') write(`sites-enabled/${site}.conf`, proxyVhost(site, index, paths));
    else if (shape === 'small-files') write(`sites-enabled/${site}.conf`, smallVhost(site, paths));
    else if (shape === 'single-file') write('sites-enabled/all-sites.conf', smallVhost(site, paths), index > 1);
    else for (const [relative, text] of panelDomain(site, paths)) write(relative, text);
  }
  return { shape, vhosts, serverRoot, apacheConf: path.join(serverRoot, 'apache2.conf'), webRoot: paths.webRoot, files, bytes };
}

interface SitePaths {
  readonly webRoot: string;
  readonly logDir: string;
  readonly serverRoot: string;
}

/** 24 lines: the directives a shared-hosting site typically carries. */
function proxyVhost(site: string, index: number, { webRoot, logDir }: SitePaths): string {
  const host = `${site}.example.test`;
  const documentRoot = path.join(webRoot, site);
  const backendPort = 9000 + (index % 1000);
  return [
    '<VirtualHost *:80>',
    `\tServerName ${host}`,
    `\tServerAlias www.${host}`,
    `\tServerAdmin webmaster@${host}`,
    `\tDocumentRoot ${documentRoot}`,
    `\tErrorLog ${logDir}/${site}-error.log`,
    `\tCustomLog ${logDir}/${site}-access.log combined`,
    `\t<Directory ${documentRoot}>`,
    '\t\tOptions -Indexes +FollowSymLinks',
    '\t\tAllowOverride None',
    '\t\tRequire all granted',
    '\t</Directory>',
    '\t<IfModule mod_rewrite.c>',
    '\t\tRewriteEngine On',
    `\t\tRewriteCond %{HTTP_HOST} ^www\\.${site}\\.example\\.test$ [NC]`,
    `\t\tRewriteRule ^/?(.*)$ http://${host}/$1 [R=301,L]`,
    '\t</IfModule>',
    '\t<Location /api/>',
    `\t\tProxyPass http://127.0.0.1:${backendPort}/`,
    `\t\tProxyPassReverse http://127.0.0.1:${backendPort}/`,
    '\t</Location>',
    '\tHeader always set X-Content-Type-Options nosniff',
    `\tKeepAliveTimeout ${2 + (index % 4)}`,
    '</VirtualHost>',
    '',
  ].join('\n');
}

/** 17 lines: the site a new user writes, with no proxy. */
export function smallVhost(site: string, { webRoot }: Pick<SitePaths, 'webRoot'>): string {
  const host = `${site}.example.test`;
  const documentRoot = path.join(webRoot, site);
  return [
    '<VirtualHost *:80>',
    `\tServerName ${host}`,
    `\tServerAlias www.${host}`,
    `\tDocumentRoot ${documentRoot}`,
    `\t<Directory ${documentRoot}>`,
    '\t\tAllowOverride None',
    '\t\tRequire all granted',
    '\t</Directory>',
    '\tRewriteEngine On',
    `\tRewriteCond %{HTTP_HOST} ^www\\.${site}\\.example\\.test$ [NC]`,
    `\tRewriteRule ^/?(.*)$ http://${host}/$1 [R=301,L]`,
    `\tAlias /media ${documentRoot}/media`,
    '\t<IfModule mod_headers.c>',
    '\t\tHeader set X-Frame-Options SAMEORIGIN',
    '\t</IfModule>',
    '</VirtualHost>',
    '',
  ].join('\n');
}

/**
 * A domain as hosting panels (ISPConfig, Virtualmin) write it: a site file
 * with a redirecting port 80 vhost and an SSL vhost, both including the
 * domain's common part, the SSL vhost also its TLS and PHP-FPM parts.
 */
function panelDomain(site: string, { webRoot, logDir, serverRoot }: SitePaths): [string, string][] {
  const host = `${site}.example.test`;
  const documentRoot = path.join(webRoot, site);
  const dir = `panel/${site}`;
  return [
    [
      `sites-enabled/100-${site}.vhost`,
      [
        `<Directory ${documentRoot}>`,
        '\tAllowOverride None',
        '\tRequire all granted',
        '</Directory>',
        '<VirtualHost *:80>',
        `\tInclude ${dir}/common.conf`,
        '\tRewriteEngine On',
        `\tRewriteRule ^ https://${host}%{REQUEST_URI} [R=301,L]`,
        '</VirtualHost>',
        '<IfModule mod_ssl.c>',
        '<VirtualHost *:443>',
        `\tInclude ${dir}/common.conf`,
        `\tInclude ${dir}/ssl.conf`,
        `\tInclude ${dir}/php.conf`,
        '</VirtualHost>',
        '</IfModule>',
        '',
      ].join('\n'),
    ],
    [
      `${dir}/common.conf`,
      [
        `ServerName ${host}`,
        `ServerAlias www.${host}`,
        `DocumentRoot ${documentRoot}`,
        `ErrorLog ${logDir}/${site}-error.log`,
        `CustomLog ${logDir}/${site}-access.log combined`,
        '',
      ].join('\n'),
    ],
    [
      `${dir}/ssl.conf`,
      [
        'SSLEngine on',
        `SSLCertificateFile ${serverRoot}/ssl/cert.pem`,
        `SSLCertificateKeyFile ${serverRoot}/ssl/key.pem`,
        'Header always set Strict-Transport-Security "max-age=31536000"',
        '',
      ].join('\n'),
    ],
    [
      `${dir}/php.conf`,
      ['<FilesMatch "\\.php$">', `\tSetHandler "proxy:unix:/run/php/${site}.sock|fcgi://localhost"`, '</FilesMatch>', ''].join('\n'),
    ],
  ];
}

/** Directories, regular files and symlinks (targets verbatim), modes kept; sockets and devices are left out. */
function copyVerbatim(source: string, target: string): void {
  const stat = fs.lstatSync(source);
  if (stat.isSymbolicLink()) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.symlinkSync(fs.readlinkSync(source), target);
  } else if (stat.isDirectory()) {
    fs.mkdirSync(target, { recursive: true, mode: stat.mode & 0o7777 });
    for (const name of fs.readdirSync(source).sort()) copyVerbatim(path.join(source, name), path.join(target, name));
  } else if (stat.isFile()) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
    fs.chmodSync(target, stat.mode & 0o7777);
  }
}
