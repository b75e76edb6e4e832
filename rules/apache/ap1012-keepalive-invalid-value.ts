import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { replaceApacheArg } from '../../src/languages/apache/edits.js';

/** Words whose plain meaning is "off" although httpd 2.2 read them as On: the intent cannot be told. */
const SAYS_OFF = /^(false|no|n|f|none|disable|disabled)$/i;

export default defineRule('apache', {
  meta: {
    id: 'AP1012',
    name: 'keepalive-invalid-value',
    category: 'correctness',
    description: 'KeepAlive takes only On or Off since httpd 2.4; 2.2 read any other word as On',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      refused: {
        message: '{{written}} is not On or Off, so httpd 2.4 refuses to start; expected KeepAlive {{meaning}}',
        detail: '"KeepAlive must be On or Off"; KeepAlive {{meaning}} is how httpd 2.2 read it',
      },
      refusedAmbiguous: {
        message: '{{written}} is not On or Off, so httpd 2.4 refuses to start; expected KeepAlive On or Off',
        detail: '"KeepAlive must be On or Off"; httpd 2.2 read {{value}} as On, although the word says off',
      },
      missing: {
        message: 'KeepAlive has no value, so httpd refuses to start; expected KeepAlive On or KeepAlive Off',
        detail: '"KeepAlive must be On or Off"',
      },
      legacy: {
        message: '{{written}} is KeepAlive {{meaning}} to httpd 2.2 and refused by 2.4; expected KeepAlive {{meaning}}',
        detail: 'httpd 2.2 reads any word but Off or 0 as On; httpd 2.4 says "KeepAlive must be On or Off"',
      },
    },
  },
  create(ctx) {
    const modern = versionAtLeast(ctx.targets.httpd, '2.4');
    return {
      directive: {
        keepalive: (use) => {
          const value = use.args[0];
          if (value !== undefined && /^(on|off)$/i.test(value)) return;
          if (value === undefined) {
            // 2.2 refuses a missing value too, with its own wording ("takes one argument").
            if (modern) ctx.report({ at: use, messageId: 'missing' });
            return;
          }
          // http_core.c in 2.2: `if (!strcasecmp(arg, "off") || !strcmp(arg, "0"))` Off, else On.
          const meaning = value === '0' ? 'Off' : 'On';
          const written = `${use.node.name} ${use.argsText}`;
          const fix = () => replaceApacheArg(use, 0, meaning);
          if (!modern) {
            ctx.report({ at: use, messageId: 'legacy', severity: 'warn', data: { written, meaning }, fix });
          } else if (SAYS_OFF.test(value)) {
            ctx.report({ at: use, messageId: 'refusedAmbiguous', data: { written, value } });
          } else {
            ctx.report({ at: use, messageId: 'refused', data: { written, meaning }, fix });
          }
        },
      },
    };
  },
});
