import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { removeApacheLine } from '../../src/languages/apache/edits.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';

export default defineRule('apache', {
  meta: {
    id: 'AP4004',
    name: 'noop-directive',
    category: 'deprecation',
    description: 'NameVirtualHost and DefaultType are accepted by httpd 2.4 but do nothing except log a warning',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: {
      nameVirtualHost: {
        message: '{{written}} has no effect in httpd 2.4; expected the line removed',
        detail:
          'name-based virtual hosts need no declaration ("AH00548: NameVirtualHost has no effect and will be removed in the next release {{file}}:{{line}}")',
      },
      defaultType: {
        message: '{{written}} is ignored by httpd 2.4; expected the line removed, and ForceType or AddType where a type must be set',
        detail:
          'files of unknown type get no Content-Type from it ("AH00117: Ignoring deprecated use of DefaultType in line {{line}} of {{file}}.")',
      },
    },
  },
  create(ctx) {
    if (!versionAtLeast(ctx.targets.httpd, '2.4')) return {};
    const where = (use: ApacheDirectiveUse) => ({
      written: `${use.node.name} ${use.argsText}`,
      file: use.file.displayPath,
      line: use.file.position(use.range[0]).line,
    });
    return {
      directive: {
        namevirtualhost: (use) => {
          ctx.report({ at: use, messageId: 'nameVirtualHost', data: where(use), fix: () => removeApacheLine(use) });
        },
        defaulttype: (use) => {
          // `DefaultType none` is the one value 2.4 takes silently.
          if (use.args.length === 1 && (use.args[0] as string).toLowerCase() === 'none') return;
          ctx.report({ at: use, messageId: 'defaultType', data: where(use), fix: () => removeApacheLine(use) });
        },
      },
    };
  },
});
