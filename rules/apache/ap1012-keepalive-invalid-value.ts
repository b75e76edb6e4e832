import { defineApacheRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { replaceApacheArg } from '../../src/languages/apache/edits.js';

/** Words whose plain meaning is "off" although httpd 2.2 read them as On: the intent cannot be told. */
const SAYS_OFF = /^(false|no|n|f|none|disable|disabled)$/i;

export default defineApacheRule({
  meta: {
    id: 'AP1012',
    name: 'keepalive-invalid-value',
    category: 'correctness',
    description: 'KeepAlive takes only On or Off since httpd 2.4; 2.2 read any other word as On',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      refused:
        '{{written}} is not On or Off, so httpd 2.4 refuses to start: "KeepAlive must be On or Off"; expected KeepAlive {{meaning}}, which is how httpd 2.2 read it',
      refusedAmbiguous:
        '{{written}} is not On or Off, so httpd 2.4 refuses to start: "KeepAlive must be On or Off"; expected KeepAlive On or Off (httpd 2.2 read {{value}} as On, although the word says off)',
      missing: 'KeepAlive has no value, so httpd refuses to start: "KeepAlive must be On or Off"; expected KeepAlive On or KeepAlive Off',
      legacy:
        'httpd 2.2 reads {{written}} as KeepAlive {{meaning}} (any word but Off or 0 means On), and httpd 2.4 refuses it ("KeepAlive must be On or Off"); expected KeepAlive {{meaning}}',
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
