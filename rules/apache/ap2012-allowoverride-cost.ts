import { defineApacheRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { documentRoots, lastLineIn, overrideSectionsAtPath, pathLevels } from '../../src/languages/apache/docroots.js';
import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from '../../src/languages/apache/model.js';
import { scopedSetting } from '../../src/languages/apache/scopes.js';

export default defineApacheRule({
  meta: {
    id: 'AP2012',
    name: 'allowoverride-cost',
    category: 'performance',
    description: 'AllowOverride lets .htaccess files into a DocumentRoot, which httpd then looks for on every request',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      override: {
        message:
          '{{directive}} {{value}} for DocumentRoot {{path}} costs a .htaccess lookup per directory on every request; expected AllowOverride None',
        detail:
          'httpd tries to open {{names}} in {{levels}} and in every subdirectory down to the requested file, and parses what it finds, since .htaccess files are never cached; move the .htaccess directives into a <Directory> section',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.apache;
        const reported = new Set<unknown>();
        for (const root of documentRoots(apache)) {
          const here = overrides(apache, root.path, root.vhost);
          if (here === undefined) continue;
          const at = here.use ?? root.at;
          if (reported.has(at)) continue;
          reported.add(at);
          const levels = pathLevels(root.path).filter((level) => overrides(apache, level, root.vhost) !== undefined);
          const names = scopedSetting(apache, 'accessfilename', root.vhost).args;
          ctx.report({
            at,
            messageId: 'override',
            data: {
              directive: here.directive,
              value: here.use === undefined ? `${here.args.join(' ')} (default for httpd ${apache.httpd})` : here.args.join(' '),
              path: root.path,
              names: (names.length === 0 ? ['.htaccess'] : names).join(' and '),
              levels: levels.join(', '),
            },
          });
        }
      },
    };
  },
});

interface Override {
  readonly directive: string;
  readonly args: readonly string[];
  readonly use: ApacheDirectiveUse | undefined;
}

/**
 * What makes httpd read access files in a directory, or undefined when
 * nothing does: AllowOverride other than None, or (2.4) an AllowOverrideList
 * other than None.
 */
function overrides(config: ApacheConfig, directory: string, vhost: ApacheSectionUse | undefined): Override | undefined {
  const sections = overrideSectionsAtPath(config, directory, vhost);
  const allow = lastLineIn(config, 'allowoverride', sections);
  const allowArgs = allow?.args ?? [versionAtLeast(config.httpd, '2.3.9') ? 'None' : 'All'];
  if (allowArgs[0]?.toLowerCase() !== 'none') return { directive: allow?.node.name ?? 'AllowOverride', args: allowArgs, use: allow };
  if (!versionAtLeast(config.httpd, '2.4')) return undefined;
  const list = lastLineIn(config, 'allowoverridelist', sections);
  if (list !== undefined && list.args[0]?.toLowerCase() !== 'none') return { directive: list.node.name, args: list.args, use: list };
  return undefined;
}
