import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { allowsOverrides } from '../../src/languages/apache/docroots.js';
import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from '../../src/languages/apache/model.js';

export default defineRule('apache', {
  meta: {
    id: 'AP3001',
    name: 'allowoverride-root',
    category: 'security',
    description:
      '<Directory /> allows .htaccess overrides, so any .htaccess on the filesystem can change the configuration and every request looks for them',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      allowed: {
        message:
          '<Directory /> has {{written}}{{scope}}, so a .htaccess anywhere changes the configuration; expected AllowOverride None here',
        detail:
          'httpd then tries .htaccess in / and in every directory down to the file on each request; enable overrides only in the <Directory> that needs them',
      },
      defaultAll: {
        message:
          "<Directory /> sets no AllowOverride{{scope}}, so httpd 2.2's default All lets a .htaccess anywhere change the configuration; expected AllowOverride None here",
        detail:
          'httpd then tries .htaccess in / and in every directory down to the file on each request; enable overrides only in the <Directory> that needs them',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        // Same-path sections merge in order, per virtual host: the last AllowOverride among them is the one in effect.
        const groups = new Map<ApacheSectionUse | undefined, ApacheSectionUse[]>();
        for (const section of apache.sections) {
          if (section.name !== 'directory' || !ROOT_ALONE.has(section.argsText)) continue;
          const host = enclosingVirtualHost(section);
          groups.set(host, [...(groups.get(host) ?? []), section]);
        }
        for (const [host, sections] of groups) {
          const scope = host === undefined ? '' : ` in <VirtualHost ${host.args.join(' ')}>`;
          const last = lastOverride(apache, sections);
          if (last !== undefined) {
            if (allowsOverrides(last.args))
              ctx.report({ at: last, messageId: 'allowed', data: { written: `${last.node.name} ${last.argsText}`, scope } });
          } else if (!versionAtLeast(apache.httpd, '2.4')) {
            ctx.report({ at: sections[0] as ApacheSectionUse, messageId: 'defaultAll', data: { scope } });
          }
        }
      },
    };
  },
});

/**
 * The texts whose one argument is `/`: bare, quoted, or after a quote never
 * closed (httpd takes the rest of the line then), as inside quotes only `\\`
 * and the quote are unescaped. Compared as written, since splitting the
 * arguments of the thousands of other `<Directory>` lines of a big tree only
 * to find they are not `/` was most of this rule's time.
 */
const ROOT_ALONE: ReadonlySet<string> = new Set(['/', '"/"', "'/'", '"/', "'/"]);

function enclosingVirtualHost(section: ApacheSectionUse): ApacheSectionUse | undefined {
  for (let parent = section.parent; parent !== undefined; parent = parent.parent) if (parent.name === 'virtualhost') return parent;
  return undefined;
}

function lastOverride(apache: ApacheConfig, sections: readonly ApacheSectionUse[]): ApacheDirectiveUse | undefined {
  const inRoot = apache.named('allowoverride').filter((use) => {
    const container = apache.container(use);
    return container !== undefined && sections.includes(container);
  });
  return inRoot[inRoot.length - 1];
}
