import type { TextEdit } from '../../../src/engine/types.js';
import type { Fact, MountEntry } from '../../../src/core/host-facts.js';
import { filesystemTypeOf, isNetworkFilesystem } from '../../../src/host/facts.js';
import { documentRoots, servedPlaces, servesTls, settingAtPath } from '../../../src/languages/apache/docroots.js';
import { inCaseOf, insertApacheLineAfter, replaceApacheArg } from '../../../src/languages/apache/edits.js';
import type { ApacheConfig, ApacheDirectiveUse } from '../../../src/languages/apache/model.js';
import type { Located } from '../../../src/engine/types.js';

/** Server-wide core settings next to which a new server-wide line reads naturally, in Debian's apache2.conf order. */
const NEIGHBOURS = new Set(['timeout', 'keepalive', 'maxkeepaliverequests', 'keepalivetimeout', 'hostnamelookups', 'enablemmap']);

/** A DocumentRoot whose file I/O setting (EnableSendfile, EnableMMAP) is Off, with the fix that turns it On. */
export interface OffOnLocal {
  readonly at: Located;
  /** `Off`, or `Off (default)` when no line sets it. */
  readonly value: string;
  readonly path: string;
  /** `on a local filesystem`, or `assumed to be on a local disk` without a mount table. */
  readonly local: string;
  /** `every directory this config serves is local (ext4; mounts from probe)`, or what was assumed without a mount table. */
  readonly evidence: string;
  /** ` server-wide, to be added at apache2.conf:12` when the fix adds a line. */
  readonly where: string;
  readonly fix: () => TextEdit | null;
}

/**
 * The DocumentRoots where `directive` is Off, when every place the config
 * serves files from is on a local filesystem: by the mount table when there
 * is one, else assumed (a config linted offline is most often a local
 * disk's, and the message says it was assumed). Nothing when any place is on
 * a network filesystem or outside the known mounts. With `plainHttpOnly`,
 * servers with SSLEngine on are left out: mod_ssl reads file contents to
 * encrypt them, so they never use sendfile.
 */
export function offOnLocalDisks(
  apache: ApacheConfig,
  mounts: Fact<readonly MountEntry[]> | undefined,
  directive: string,
  plainHttpOnly: boolean,
): OffOnLocal[] {
  const local = localEvidence(apache, mounts);
  if (local === undefined) return [];
  const lower = directive.toLowerCase();
  const found: OffOnLocal[] = [];
  const reported = new Set<ApacheDirectiveUse | 'default'>();
  for (const root of documentRoots(apache).filter((candidate) => !plainHttpOnly || !servesTls(apache, candidate.vhost))) {
    const setting = settingAtPath(apache, lower, root.path, root.vhost);
    const value = setting.args[0] ?? '';
    if (value.toLowerCase() !== 'off' || reported.has(setting.use ?? 'default')) continue;
    reported.add(setting.use ?? 'default');
    const decided = setting.use;
    const insert = decided === undefined ? insertServerWide(apache, `${directive} On`) : undefined;
    found.push({
      at: decided ?? root.at,
      value: decided === undefined ? `${value} (default)` : value,
      path: root.path,
      ...local,
      where: insert === undefined ? '' : ` server-wide, to be added at ${insert.where}`,
      fix: () => (decided === undefined ? (insert?.edit ?? null) : replaceApacheArg(decided, 0, inCaseOf(value, 'On'))),
    });
  }
  return found;
}

function localEvidence(
  apache: ApacheConfig,
  mounts: Fact<readonly MountEntry[]> | undefined,
): { local: string; evidence: string } | undefined {
  if (mounts === undefined)
    return {
      local: 'assumed to be on a local disk',
      evidence:
        "no mount table, so the served directories are taken for local (the probe, a profile's mounts: or Ansible facts would tell)",
    };
  const types = new Set<string>();
  for (const place of servedPlaces(apache)) {
    const mount = filesystemTypeOf(mounts.value, place.path);
    if (mount === undefined || isNetworkFilesystem(mount.fsType)) return undefined;
    types.add(mount.fsType);
  }
  return {
    local: 'on a local filesystem',
    evidence: `every directory this config serves is local (${[...types].sort().join(', ')}; mounts from ${mounts.source})`,
  };
}

/**
 * A new server-wide line: after the core keep-alive and timeout settings
 * when the config has them at top level, else after the main file's last
 * top-level directive.
 */
function insertServerWide(config: ApacheConfig, line: string): { edit: TextEdit; where: string } | undefined {
  const topLevel = config.uses.filter((use) => use.parent === undefined && use.node.line.physicalLines === 1);
  const anchor = topLevel.filter((use) => NEIGHBOURS.has(use.name)).at(-1) ?? topLevel.filter((use) => use.file === config.root).at(-1);
  if (anchor === undefined) return undefined;
  return {
    edit: insertApacheLineAfter(anchor, line),
    where: `${anchor.file.displayPath}:${anchor.file.position(anchor.node.line.end - 1).line + 1}`,
  };
}
