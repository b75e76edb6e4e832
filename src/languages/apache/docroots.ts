import * as path from 'node:path';
import { isNormalAbsolute } from '../../core/file-system.js';
import { compileFnmatch, hasWildcard } from '../../util/fnmatch.js';
import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from './model.js';
import { linesByContainer, scopedSetting } from './scopes.js';
import { flagValue } from './settings.js';
import { virtualHosts } from './vhosts.js';
import { appendAll } from '../../util/arrays.js';

/**
 * Where the config serves files from, and which `<Directory>` sections apply
 * there, merged the way httpd merges them (core.c `ap_core_reorder_directories`
 * and request.c `ap_directory_walk`): the server's sections, then the
 * `<VirtualHost>`'s, sorted so that non-regex sections come first by number of
 * path components (the order in the files breaking ties, the server's before
 * the vhost's), then the regex sections in file order; each later section
 * overrides what an earlier one set. Rules use it to ask "what does httpd use
 * for files under this DocumentRoot".
 */

/** A place the config serves files from, in one server (the main server or a `<VirtualHost>`). */
export interface ServedPlace {
  /** Absolute server path, without a trailing slash (`/` stays `/`). */
  readonly path: string;
  readonly kind: 'DocumentRoot' | 'Alias' | 'Directory';
  /** The DocumentRoot or Alias line, or the `<Directory>` section. */
  readonly at: ApacheDirectiveUse | ApacheSectionUse;
  /** The `<VirtualHost>` whose requests see it; undefined for the main server. */
  readonly vhost: ApacheSectionUse | undefined;
}

interface DirectorySection {
  readonly section: ApacheSectionUse;
  /** Number of path components of a non-regex section (`/` has none); undefined for a regex one. */
  readonly depth: number | undefined;
  /** The normalised path of a non-regex section without wildcards, by which it is indexed. */
  readonly path: string | undefined;
  /** For a non-regex section with wildcards: one test per component, `apr_fnmatch` for those with wildcards. */
  readonly matchers: readonly ((name: string) => boolean)[] | undefined;
  readonly regex: RegExp | undefined;
  readonly inVhost: boolean;
}

/** The `<VirtualHost>` a directive or section belongs to, if any. */
export function vhostOf(use: { readonly parent: ApacheSectionUse | undefined }): ApacheSectionUse | undefined {
  for (let parent = use.parent; parent !== undefined; parent = parent.parent) {
    if (parent.name === 'virtualhost') return parent;
  }
  return undefined;
}

/** A path as httpd's config resolves it: relative to ServerRoot, without a trailing slash. */
function serverPath(config: ApacheConfig, written: string): string {
  return isNormalAbsolute(written) ? written : path.posix.resolve(config.serverRoot, written);
}

/**
 * The DocumentRoot of the main server (when the config sets one) and of every
 * `<VirtualHost>` (its own, else the main server's).
 */
export function documentRoots(config: ApacheConfig): readonly ServedPlace[] {
  const cached = rootsCache.get(config);
  if (cached !== undefined) return cached;
  const roots: ServedPlace[] = [];
  const main = scopedSetting(config, 'documentroot').use;
  if (main?.args[0] !== undefined) roots.push({ path: serverPath(config, main.args[0]), kind: 'DocumentRoot', at: main, vhost: undefined });
  for (const vhost of virtualHosts(config)) {
    const use = scopedSetting(config, 'documentroot', vhost).use;
    if (use?.args[0] !== undefined) roots.push({ path: serverPath(config, use.args[0]), kind: 'DocumentRoot', at: use, vhost });
  }
  rootsCache.set(config, roots);
  return roots;
}

const rootsCache = new WeakMap<ApacheConfig, readonly ServedPlace[]>();

/**
 * Every place files are served from or configured for, once each: the
 * DocumentRoot of every server, the targets of Alias and ScriptAlias, and the
 * paths of non-regex `<Directory>` sections without wildcards. A place
 * written at server level has no vhost; every server sees it.
 */
export function servedPlaces(config: ApacheConfig): ServedPlace[] {
  const places = [...documentRoots(config)];
  for (const name of ['alias', 'scriptalias']) {
    for (const use of config.named(name)) {
      const target = use.args[1];
      const container = config.container(use);
      if (target === undefined || !target.startsWith('/') || (container !== undefined && container.name !== 'virtualhost')) continue;
      places.push({ path: serverPath(config, target), kind: 'Alias', at: use, vhost: container });
    }
  }
  for (const section of config.sections) {
    if (section.name !== 'directory' || section.args[0] === '~') continue;
    const written = section.args[0];
    if (written === undefined || !written.startsWith('/') || written.split('/').some(hasWildcard)) continue;
    places.push({ path: serverPath(config, written), kind: 'Directory', at: section, vhost: vhostOf(section) });
  }
  return places;
}

/**
 * The servers in which a place's value of a per-directory directive must be
 * worked out: its own server; for a server-level Alias or `<Directory>`, the
 * main server and each vhost that could change the value there (one that
 * sets the directive itself or has `<Directory>` sections of its own).
 */
export function serversSeeing(config: ApacheConfig, place: ServedPlace, lowerName: string): (ApacheSectionUse | undefined)[] {
  if (place.vhost !== undefined || place.kind === 'DocumentRoot') return [place.vhost];
  const index = sectionIndex(config);
  const own = linesByContainer(config, lowerName);
  return [undefined, ...virtualHosts(config).filter((vhost) => own.has(vhost) || index.has(vhost))];
}

/**
 * One server's sections: those for a plain path, by that path, and the rest
 * (wildcards, regexes). No Map until a second path and no list of the rest
 * until there is one: most vhosts have one `<Directory>`, and a Map, an empty
 * list and a second object each were a tenth of what the rules keep on
 * 10,000 vhosts.
 */
class ServerSections {
  private path: string | undefined = undefined;
  private list: DirectorySection[] | undefined = undefined;
  private map: Map<string, DirectorySection[]> | undefined = undefined;
  private others: DirectorySection[] | undefined = undefined;

  /** The sections for this plain path. */
  get(path: string): DirectorySection[] | undefined {
    return this.map === undefined ? (path === this.path ? this.list : undefined) : this.map.get(path);
  }

  /**
   * Appends the sections for a plain path at or above the directory. A
   * server with a few paths compares each with the directory; one with many
   * (a `<Directory>` per site at server level) is looked up level by level,
   * which keeps a tree with a section per site linear.
   */
  appendAtOrAbove(directory: DirectoryQuery, found: DirectorySection[]): void {
    const map = this.map;
    if (map === undefined) {
      if (this.path !== undefined && isAtOrAbove(this.path, directory.normal)) appendAll(found, this.list as DirectorySection[]);
    } else if (map.size <= FEW_PATHS) {
      map.forEach((sections, path) => {
        if (isAtOrAbove(path, directory.normal)) appendAll(found, sections);
      });
    } else {
      for (const level of directory.levels) {
        const sections = map.get(level);
        if (sections !== undefined) appendAll(found, sections);
      }
    }
  }

  /** Appends the sections that are not for a plain path to `found`. */
  appendOthers(found: DirectorySection[]): void {
    if (this.others !== undefined) appendAll(found, this.others);
  }

  add(entry: DirectorySection): void {
    const { path } = entry;
    if (path === undefined) {
      (this.others ??= []).push(entry);
      return;
    }
    const known = this.get(path);
    if (known !== undefined) known.push(entry);
    else if (this.list === undefined) {
      this.path = path;
      this.list = [entry];
    } else {
      this.map ??= new Map([[this.path as string, this.list]]);
      this.map.set(path, [entry]);
    }
  }
}

/** Up to this many plain paths in a server, each is compared with the directory rather than the directory's levels looked up. */
const FEW_PATHS = 8;

/** Whether a normalised path is the directory or one above it. */
function isAtOrAbove(path: string, directory: string): boolean {
  return (
    path === '/' ||
    path === directory ||
    (directory.length > path.length && directory.charCodeAt(path.length) === 47 && directory.startsWith(path))
  );
}

/**
 * A directory asked about, with its components and levels made only when a
 * section needs them: a DocumentRoot's own `<Directory>` and the main
 * server's few are found by comparing paths.
 */
class DirectoryQuery {
  private parts: string[] | undefined = undefined;
  private levelList: string[] | undefined = undefined;
  /** The directory normalised: absolute, without `.`, `..`, repeated or trailing slashes. */
  readonly normal: string;

  constructor(readonly directory: string) {
    this.normal = directory === '/' || isNormalAbsolute(directory) ? directory : `/${this.components.join('/')}`;
  }

  get components(): readonly string[] {
    return (this.parts ??= components(this.directory));
  }

  /** `/`, `/var`, `/var/www` for `/var/www`. */
  get levels(): readonly string[] {
    return (this.levelList ??= levelsOf(this.components));
  }
}

const sectionIndexes = new WeakMap<ApacheConfig, Map<ApacheSectionUse | undefined, ServerSections>>();

/** The sections written at server level (key undefined) and in each `<VirtualHost>`, indexed once per config. */
function sectionIndex(config: ApacheConfig): Map<ApacheSectionUse | undefined, ServerSections> {
  let perServer = sectionIndexes.get(config);
  if (perServer !== undefined) return perServer;
  perServer = new Map();
  for (const section of config.sections) {
    if (section.name !== 'directory' && section.name !== 'directorymatch') continue;
    const owner = vhostOf(section);
    const args = section.args;
    const isRegex = section.name === 'directorymatch' || args[0] === '~';
    const written = section.name === 'directory' && isRegex ? args[1] : args[0];
    if (written === undefined) continue;
    const entry = isRegex ? regexSection(section, written, owner !== undefined) : plainSection(section, written, owner !== undefined);
    let sections = perServer.get(owner);
    if (sections === undefined) {
      sections = new ServerSections();
      perServer.set(owner, sections);
    }
    sections.add(entry);
  }
  sectionIndexes.set(config, perServer);
  return perServer;
}

function regexSection(section: ApacheSectionUse, written: string, inVhost: boolean): DirectorySection {
  return { section, depth: undefined, path: undefined, matchers: undefined, regex: compileRegex(written), inVhost };
}

/** A non-regex section, indexed by its path when it has no wildcards (most: one per site). */
function plainSection(section: ApacheSectionUse, written: string, inVhost: boolean): DirectorySection {
  const absolute = isNormalAbsolute(written) ? written : path.posix.resolve('/', written);
  // Only `?`, `*` and `[...]` make a wildcard: a path without those characters has none in any component.
  if (!WILDCARD_CHARACTER.test(absolute))
    return { section, depth: depthOf(absolute), path: absolute, matchers: undefined, regex: undefined, inVhost };
  const parts = components(absolute);
  const wildcards = parts.some(hasWildcard);
  return {
    section,
    depth: parts.length,
    path: wildcards ? undefined : absolute,
    matchers: wildcards ? parts.map((part) => (hasWildcard(part) ? compileFnmatch(part) : (name: string) => name === part)) : undefined,
    regex: undefined,
    inVhost,
  };
}

const WILDCARD_CHARACTER = /[?*[]/;

/** The number of components of a normalised absolute path: its slashes, none for `/`. */
function depthOf(absolute: string): number {
  if (absolute === '/') return 0;
  let depth = 0;
  for (let at = absolute.indexOf('/'); at !== -1; at = absolute.indexOf('/', at + 1)) depth++;
  return depth;
}

/**
 * The sections of a server (its own and the main server's) that may apply to
 * a directory, in the order httpd applies them: those for a plain path at or
 * above it, and every one with wildcards or a regex (which `appliesTo` tests).
 */
function sectionsFor(config: ApacheConfig, vhost: ApacheSectionUse | undefined, directory: DirectoryQuery): DirectorySection[] {
  const index = sectionIndex(config);
  const found: DirectorySection[] = [];
  const main = index.get(undefined);
  main?.appendAtOrAbove(directory, found);
  main?.appendOthers(found);
  const own = vhost === undefined ? undefined : index.get(vhost);
  own?.appendAtOrAbove(directory, found);
  own?.appendOthers(found);
  return found.length < 2 ? found : found.sort(httpdOrder);
}

/** core.c `reorder_sorter`: non-regex before regex, fewer components first, then the server's before the vhost's, then file order. */
function httpdOrder(a: DirectorySection, b: DirectorySection): number {
  if ((a.depth === undefined) !== (b.depth === undefined)) return a.depth === undefined ? 1 : -1;
  const depth = (a.depth ?? 0) - (b.depth ?? 0);
  if (depth !== 0) return depth;
  if (a.inVhost !== b.inVhost) return a.inVhost ? 1 : -1;
  return a.section.order - b.section.order;
}

/** JavaScript reads most PCRE patterns the same; one it cannot read matches nothing. */
function compileRegex(source: string): RegExp | undefined {
  try {
    return new RegExp(source);
  } catch {
    return undefined;
  }
}

function components(absolute: string): string[] {
  // The common case, a normalised path, without a pass to drop empty parts.
  if (isNormalAbsolute(absolute)) return absolute.slice(1).split('/');
  return absolute.split('/').filter((part) => part !== '');
}

/**
 * Whether a section applies to a directory: a non-regex section when its
 * components equal the directory's first ones (wildcards matched per
 * component, as `apr_fnmatch` with APR_FNM_PATHNAME does), a regex section
 * when it matches the directory path with its trailing slash.
 */
function appliesTo(entry: DirectorySection, directory: DirectoryQuery): boolean {
  if (entry.depth === undefined) return entry.regex?.test(directory.directory === '/' ? '/' : `${directory.directory}/`) === true;
  if (entry.path !== undefined) return isAtOrAbove(entry.path, directory.normal);
  const target = directory.components;
  if (entry.matchers === undefined || entry.matchers.length > target.length) return false;
  return entry.matchers.every((matches, index) => matches(target[index] as string));
}

export interface PathSetting {
  /** The arguments in effect, or the default as one argument. */
  readonly args: readonly string[];
  /** The line that decided it; undefined when httpd's default applies. */
  readonly use: ApacheDirectiveUse | undefined;
}

/**
 * The lines of one directive that apply to a directory of a server, in the
 * order httpd merges them: the server's own lines (with `scopeLines`), the
 * vhost's, then those set directly in each applicable `<Directory>` section.
 */
export function linesAtPath(
  config: ApacheConfig,
  lowerName: string,
  directory: string,
  vhost: ApacheSectionUse | undefined,
  options: { readonly scopeLines?: boolean } = {},
): ApacheDirectiveUse[] {
  const byContainer = linesByContainer(config, lowerName);
  const lines: ApacheDirectiveUse[] = [];
  if (options.scopeLines !== false) {
    byContainer.appendTo(lines, undefined);
    if (vhost !== undefined) byContainer.appendTo(lines, vhost);
  }
  const query = new DirectoryQuery(directory);
  for (const entry of sectionsFor(config, vhost, query)) {
    if (!appliesTo(entry, query)) continue;
    byContainer.appendTo(lines, entry.section);
  }
  return lines;
}

/**
 * The sections whose lines decide whether httpd reads access files in a
 * directory (AllowOverride, AllowOverrideList), in the order they take effect. The
 * manual says regex sections do not count for these; httpd 2.4.71 reads
 * `.htaccess` when a `<DirectoryMatch>` or `<Directory ~>` that matches the
 * directory or one of its parents allows it, unless a non-regex `<Directory>`
 * of any depth says otherwise: regex sections first, then the others by
 * depth (measured by test/oracle/apache-tuning-runtime.test.ts).
 */
export function overrideSectionsAtPath(config: ApacheConfig, directory: string, vhost: ApacheSectionUse | undefined): ApacheSectionUse[] {
  const query = new DirectoryQuery(directory);
  const sections = sectionsFor(config, vhost, query);
  const applying: ApacheSectionUse[] = [];
  // Regex sections sort last; only they need every parent path (AP2012 asks this for every level of a docroot, cubic in its depth otherwise).
  let plain = sections.length;
  while (plain > 0 && (sections[plain - 1] as DirectorySection).depth === undefined) plain--;
  if (plain < sections.length) {
    const candidates = query.levels.flatMap((level) => (level === '/' ? ['/'] : [level, `${level}/`]));
    for (const entry of sections.slice(plain))
      if (candidates.some((level) => entry.regex?.test(level) === true)) applying.push(entry.section);
  }
  for (let index = 0; index < plain; index++) {
    const entry = sections[index] as DirectorySection;
    if (appliesTo(entry, query)) applying.push(entry.section);
  }
  return applying;
}

/**
 * Whether AllowOverride's words leave any override on: each type adds to the
 * set and `None` empties it (core.c `set_override`), so the last word
 * decides; `Nonfatal=...` only changes how .htaccess errors are handled.
 */
export function allowsOverrides(words: readonly string[]): boolean {
  for (let index = words.length - 1; index >= 0; index--) {
    const word = (words[index] as string).toLowerCase();
    if (!word.startsWith('nonfatal=')) return word !== 'none';
  }
  return false;
}

/** The value of a per-directory directive for files in a directory of a server. */
export function settingAtPath(
  config: ApacheConfig,
  lowerName: string,
  directory: string,
  vhost: ApacheSectionUse | undefined,
): PathSetting {
  const lines = linesAtPath(config, lowerName, directory, vhost);
  const last = lines[lines.length - 1];
  if (last !== undefined) return { args: last.args, use: last };
  return { args: scopedSetting(config, lowerName, vhost).args, use: undefined };
}

/** The `<Directory>` sections (non-regex, same server) whose path is exactly this directory, last applied last. */
export function exactDirectorySections(config: ApacheConfig, directory: string, vhost: ApacheSectionUse | undefined): ApacheSectionUse[] {
  return sectionsFor(config, vhost, new DirectoryQuery(directory))
    .filter((entry) => entry.path === directory)
    .map((entry) => entry.section);
}

/** Whether the section is a non-regex `<Directory>` without wildcards for exactly this directory. */
export function isExactDirectory(section: ApacheSectionUse | undefined, directory: string): boolean {
  if (section?.name !== 'directory' || section.args[0] === '~') return false;
  const written = section.args[0];
  return written !== undefined && !written.split('/').some(hasWildcard) && path.posix.resolve('/', written) === directory;
}

/**
 * Whether a server's responses go out through mod_ssl (`SSLEngine on`), which
 * reads file contents to encrypt them, so sendfile is never used for them.
 */
export function servesTls(config: ApacheConfig, vhost: ApacheSectionUse | undefined): boolean {
  return config.hasModule('ssl_module') && flagValue(scopedSetting(config, 'sslengine', vhost)) === true;
}

/** The directory levels from `/` down to a directory: `/`, `/var`, `/var/www`. */
export function pathLevels(directory: string): string[] {
  return levelsOf(components(directory));
}

function levelsOf(components: readonly string[]): string[] {
  const levels = ['/'];
  let level = '';
  for (const part of components) {
    level += `/${part}`;
    levels.push(level);
  }
  return levels;
}

/** `DocumentRoot /srv/www`, `Alias target /mnt/media`, `<Directory /srv/www>`, for messages. */
export function placeLabel(place: ServedPlace): string {
  return place.kind === 'Directory'
    ? `<Directory ${place.path}>`
    : place.kind === 'Alias'
      ? `Alias target ${place.path}`
      : `DocumentRoot ${place.path}`;
}
