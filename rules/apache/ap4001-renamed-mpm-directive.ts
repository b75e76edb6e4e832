import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { renameApacheDirective } from '../../src/languages/apache/edits.js';
import { lookupTable } from '../../src/util/lookup.js';

const RENAMED: Readonly<Record<string, string>> = lookupTable({
  maxclients: 'MaxRequestWorkers',
  maxrequestsperchild: 'MaxConnectionsPerChild',
});

export default defineRule('apache', {
  meta: {
    id: 'AP4001',
    name: 'renamed-mpm-directive',
    category: 'deprecation',
    description: 'MaxClients and MaxRequestsPerChild are the httpd 2.2 names of MaxRequestWorkers and MaxConnectionsPerChild',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: {
      renamed: {
        message: '{{old}} is the httpd 2.2 name of {{new}}; expected {{new}}',
        detail: 'httpd {{httpd}} accepts it only as a deprecated alias (AH00188/AH00545)',
      },
      renamedShadowed: {
        message: '{{old}} {{value}} and {{new}} both set the same limit; expected {{new}}',
        detail: 'the later line wins',
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    if (!versionAtLeast(ctx.targets.httpd, '2.4')) return {};
    const report = (use: Parameters<typeof renameApacheDirective>[0]): void => {
      const canonical = RENAMED[use.name] as string;
      const both = apache.named(canonical.toLowerCase()).length > 0;
      ctx.report({
        at: use,
        messageId: both ? 'renamedShadowed' : 'renamed',
        data: { old: use.node.name, new: canonical, value: use.args.join(' '), httpd: ctx.targets.httpd },
        fix: () => renameApacheDirective(use, canonical),
      });
    };
    return { directive: { maxclients: report, maxrequestsperchild: report } };
  },
});
