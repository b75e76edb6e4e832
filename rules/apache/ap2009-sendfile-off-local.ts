import { defineRule } from '../../src/engine/define-rule.js';
import type { TextEdit } from '../../src/engine/types.js';
import { filesystemTypeOf, isNetworkFilesystem } from '../../src/host/facts.js';
import { documentRoots, servedPlaces, servesTls, settingAtPath } from '../../src/languages/apache/docroots.js';
import { inCaseOf, insertApacheLineAfter, replaceApacheArg } from '../../src/languages/apache/edits.js';
import type { ApacheConfig, ApacheDirectiveUse } from '../../src/languages/apache/model.js';

/** Server-wide core settings next to which a new server-wide line reads naturally, in Debian's apache2.conf order. */
const NEIGHBOURS = new Set(['timeout', 'keepalive', 'maxkeepaliverequests', 'keepalivetimeout', 'hostnamelookups', 'enablemmap']);

export default defineRule('apache', {
  meta: {
    id: 'AP2009',
    name: 'sendfile-off-local',
    category: 'performance',
    description: 'EnableSendfile is Off although every served directory is on a local filesystem',
    defaultSeverity: 'info',
    recommended: false,
    fix: 'tune',
    messages: {
      off: {
        message: 'EnableSendfile {{value}} for DocumentRoot {{path}}, which is on a local filesystem; expected EnableSendfile On{{where}}',
        detail:
          'every directory this config serves is local ({{filesystems}}; mounts from {{source}}): static files over plain HTTP are read into httpd and written out again instead of sent by the kernel',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mounts = ctx.host.mounts;
        if (mounts === undefined) return;
        const filesystems = new Set<string>();
        for (const place of servedPlaces(apache)) {
          const mount = filesystemTypeOf(mounts.value, place.path);
          if (mount === undefined || isNetworkFilesystem(mount.fsType)) return;
          filesystems.add(mount.fsType);
        }
        // mod_ssl reads file contents to encrypt them, so only plain-HTTP servers would use sendfile.
        const roots = documentRoots(apache).filter((root) => !servesTls(apache, root.vhost));
        const reported = new Set<ApacheDirectiveUse | 'default'>();
        for (const root of roots) {
          const setting = settingAtPath(apache, 'enablesendfile', root.path, root.vhost);
          const value = setting.args[0] ?? '';
          if (value.toLowerCase() !== 'off' || reported.has(setting.use ?? 'default')) continue;
          reported.add(setting.use ?? 'default');
          const decided = setting.use;
          const insert = decided === undefined ? insertServerWide(apache, 'EnableSendfile On') : undefined;
          ctx.report({
            at: decided ?? root.at,
            messageId: 'off',
            data: {
              value: decided === undefined ? `${value} (default)` : value,
              path: root.path,
              filesystems: [...filesystems].sort().join(', '),
              source: mounts.source,
              where: insert === undefined ? '' : ` server-wide, to be added at ${insert.where}`,
            },
            fix: () => (decided === undefined ? (insert?.edit ?? null) : replaceApacheArg(decided, 0, inCaseOf(value, 'On'))),
          });
        }
      },
    };
  },
});

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
