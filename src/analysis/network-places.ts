import * as path from 'node:path';
import type { Fact, MountEntry } from '../core/host-facts.js';
import { lineOf } from '../core/located.js';
import { hasNetworkMounts, networkMountOf } from '../host/facts.js';
import { hasWildcard } from '../util/fnmatch.js';
import { servedPlaces, serversSeeing, settingAtPath, type PathSetting, type ServedPlace } from '../languages/apache/docroots.js';
import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from '../languages/apache/model.js';

/*
 * Where an Apache config serves files from a network or FUSE filesystem, by
 * the host's mount table: the host's side of what the config serves
 * (languages/apache/docroots.ts), for the rules on EnableSendfile and
 * EnableMMAP there (AP1014, AP2010).
 */

/** A served place with the mount that holds it. */
interface MountedPlace extends ServedPlace {
  readonly mount: MountEntry;
}

/**
 * The served places that sit on a network or FUSE filesystem, by the host's
 * mount table; none without looking for places when the table has no such
 * filesystem, as on most hosts (listing the places of 10,000 vhosts for two
 * rules was a fifth of a lint).
 */
function placesOnNetworkFilesystems(config: ApacheConfig, mounts: readonly MountEntry[]): readonly MountedPlace[] {
  if (!hasNetworkMounts(mounts)) return [];
  const cached = networkPlacesCache.get(config);
  if (cached?.mounts === mounts) return cached.places;
  const places: MountedPlace[] = [];
  for (const place of servedPlaces(config)) {
    const mount = networkMountOf(mounts, place.path);
    // Fields named, not spread: a spread of every place was most of the listing (93 of 223 ms, 10,000 vhosts on NFS).
    if (mount !== undefined) places.push({ path: place.path, kind: place.kind, at: place.at, vhost: place.vhost, mount });
  }
  networkPlacesCache.set(config, { mounts, places });
  return places;
}

/** The places on network filesystems, for the second of the two rules that ask (EnableSendfile, EnableMMAP). */
const networkPlacesCache = new WeakMap<
  ApacheConfig,
  { readonly mounts: readonly MountEntry[]; readonly places: readonly MountedPlace[] }
>();

/** `nfs4 (nas:/export/www at /srv/www; mounts from probe (/proc/self/mountinfo))`, for messages. */
export function describeMount(mount: MountEntry, mounts: Fact<readonly MountEntry[]>): string {
  const what = mount.source === '' ? `mounted at ${mount.mountPoint}` : `${mount.source} at ${mount.mountPoint}`;
  return `${mount.fsType} (${what}; mounts from ${mounts.source})`;
}

/** A served place on a network filesystem where a per-directory flag is On, with the line (or place) that makes it so. */
export interface FlagOnNetwork {
  readonly place: MountedPlace;
  readonly setting: PathSetting;
  /** The line that turns it On, or the place itself when httpd's default does. */
  readonly at: ApacheDirectiveUse | ApacheSectionUse;
}

/**
 * Where a per-directory On/Off directive (EnableSendfile, EnableMMAP) is On
 * for a place on a network filesystem, once per deciding line and path.
 * `skip` leaves out servers the flag does not matter for.
 */
export function flagOnNetworkPlaces(
  config: ApacheConfig,
  mounts: readonly MountEntry[],
  lowerName: string,
  skip: (vhost: ApacheSectionUse | undefined) => boolean = () => false,
): FlagOnNetwork[] {
  const raw: (FlagOnNetwork & { readonly decider: string })[] = [];
  for (const placed of placesOnNetworkFilesystems(config, mounts)) {
    for (const vhost of serversSeeing(config, placed, lowerName)) {
      if (skip(vhost)) continue;
      const served: MountedPlace = { path: placed.path, kind: placed.kind, at: placed.at, vhost, mount: placed.mount };
      const setting = settingAtPath(config, lowerName, served.path, vhost);
      if (setting.args[0]?.toLowerCase() !== 'on') continue;
      const place = decidingDirectoryOnNetwork(config, mounts, setting, served) ?? served;
      raw.push({ place, setting, at: setting.use ?? place.at, decider: setting.use === undefined ? 'default' : lineOf(setting.use) });
    }
  }
  // Turning the flag off for a directory also turns it off below it, in the same server, when the same line decided both.
  const pathsDecided = new Map<string, Map<ApacheSectionUse | undefined, Set<string>>>();
  for (const finding of raw) {
    let byServer = pathsDecided.get(finding.decider);
    if (byServer === undefined) {
      byServer = new Map<ApacheSectionUse | undefined, Set<string>>();
      pathsDecided.set(finding.decider, byServer);
    }
    const paths = byServer.get(finding.place.vhost);
    if (paths === undefined) byServer.set(finding.place.vhost, new Set([finding.place.path]));
    else paths.add(finding.place.path);
  }
  const covered = (finding: (typeof raw)[number]): boolean => {
    const paths = pathsDecided.get(finding.decider)?.get(finding.place.vhost);
    return paths !== undefined && hasParentIn(paths, finding.place.path);
  };
  const found: FlagOnNetwork[] = [];
  const seen = new Set<string>();
  for (const finding of raw) {
    // A default applies to the path however many lines name it: one finding per path then.
    const key = `${finding.decider}\0${finding.place.path}`;
    if (seen.has(key) || covered(finding)) continue;
    seen.add(key);
    found.push({ place: finding.place, setting: finding.setting, at: finding.at });
  }
  return found;
}

/**
 * Whether a directory above a normalised absolute path is in the set: `/`,
 * then each path up to a slash. One lookup per level, where comparing every
 * finding with every other took seconds for 10,000 vhosts on NFS.
 */
function hasParentIn(paths: ReadonlySet<string>, directory: string): boolean {
  if (directory === '/') return false;
  if (paths.has('/')) return true;
  for (let slash = directory.indexOf('/', 1); slash !== -1; slash = directory.indexOf('/', slash + 1)) {
    if (paths.has(directory.slice(0, slash))) return true;
  }
  return false;
}

/**
 * When the line that turns a flag On sits in a `<Directory>` that is itself
 * on a network filesystem (the mount point above a DocumentRoot, say), that
 * section is the place to change: one edit covers everything below it.
 */
function decidingDirectoryOnNetwork(
  config: ApacheConfig,
  mounts: readonly MountEntry[],
  setting: PathSetting,
  served: ServedPlace,
): MountedPlace | undefined {
  const section = setting.use === undefined ? undefined : config.container(setting.use);
  if (section?.name !== 'directory' || section.args[0] === '~') return undefined;
  const written = section.args[0];
  if (written === undefined || written.split('/').some(hasWildcard)) return undefined;
  const directory = path.posix.resolve('/', written);
  const mount = networkMountOf(mounts, directory);
  if (mount === undefined) return undefined;
  return { path: directory, kind: 'Directory', at: section, vhost: served.vhost, mount };
}
