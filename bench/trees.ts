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
 * - Generated vhost trees: that Apache copy plus rewrite, headers, proxy and
 *   proxy_http enabled and N virtual hosts of 24 lines each, one file per
 *   site in sites-enabled as `a2ensite` lays them out, each with an existing
 *   DocumentRoot, so `apache2 -t` accepts the tree. Same N, same bytes.
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

export interface VhostTree {
  readonly vhosts: number;
  /** ServerRoot of the tree, what `apache2 -d` gets. */
  readonly serverRoot: string;
  readonly apacheConf: string;
  readonly files: number;
  readonly bytes: number;
}

/** Modules the generated vhosts use, enabled the way a2enmod does it (relative symlinks). */
const VHOST_MODULES = ['rewrite', 'headers', 'proxy', 'proxy_http'];

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

export function buildVhostTree(into: string, vhosts: number, apacheSource = '/etc/apache2'): VhostTree {
  const base = path.join(into, `vhosts-${vhosts}`);
  const serverRoot = path.join(base, 'apache2');
  const webRoot = path.join(base, 'www');
  const logDir = path.join(base, 'log');
  copyVerbatim(apacheSource, serverRoot);
  fs.mkdirSync(logDir, { recursive: true });
  for (const module of VHOST_MODULES) {
    for (const suffix of ['.load', '.conf']) {
      const available = path.join(serverRoot, 'mods-available', `${module}${suffix}`);
      const enabled = path.join(serverRoot, 'mods-enabled', `${module}${suffix}`);
      if (fs.existsSync(available) && !fs.existsSync(enabled)) fs.symlinkSync(`../mods-available/${module}${suffix}`, enabled);
    }
  }
  let bytes = 0;
  for (let index = 1; index <= vhosts; index++) {
    const site = `site${String(index).padStart(5, '0')}`;
    const documentRoot = path.join(webRoot, site);
    fs.mkdirSync(documentRoot, { recursive: true });
    const text = vhostText(site, index, documentRoot, logDir);
    bytes += Buffer.byteLength(text);
    fs.writeFileSync(path.join(serverRoot, 'sites-enabled', `${site}.conf`), text);
  }
  return { vhosts, serverRoot, apacheConf: path.join(serverRoot, 'apache2.conf'), files: vhosts, bytes };
}

/** 24 lines: the directives a shared-hosting site typically carries. */
function vhostText(site: string, index: number, documentRoot: string, logDir: string): string {
  const host = `${site}.example.test`;
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
