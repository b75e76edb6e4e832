import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';

export default defineRule('apache', {
  meta: {
    id: 'AP1007',
    name: 'mpm-count',
    category: 'correctness',
    description: 'httpd 2.4 starts only with exactly one MPM loaded',
    defaultSeverity: 'error',
    recommended: true,
    messages: {
      none: {
        message:
          'no MPM is loaded, so httpd refuses to start; expected exactly one, e.g. LoadModule mpm_event_module modules/mod_mpm_event.so',
        detail: 'none of the {{count}} this configuration loads is an MPM: AH00534 "Configuration error: No MPM loaded."',
      },
      several: {
        message: '{{module}} is a second MPM, so httpd refuses to start; expected exactly one LoadModule mpm_*_module',
        detail: '{{first}} is already loaded at {{where}}: AH00534 "Configuration error: More than one MPM loaded."',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        // httpd 2.2 has its MPM compiled in; a fragment's MPM is the main config's.
        if (!versionAtLeast(ctx.targets.httpd, '2.4') || apache.fragment !== undefined) return;
        const loaded = apache
          .loadedMpms()
          .map((entry) => entry.module)
          .sort((a, b) => (a.use?.order ?? -1) - (b.use?.order ?? -1));
        const first = loaded[0];
        if (first === undefined) {
          // Without Listen this is a fragment (a vhost, a list of LoadModule lines), not a whole server's configuration.
          const loads = apache.named('loadmodule').length;
          if (loads === 0 || apache.named('listen').length === 0) return;
          ctx.report({
            at: { file: apache.root, range: [0, 0] },
            messageId: 'none',
            data: { count: `${loads} module${loads === 1 ? '' : 's'}` },
          });
          return;
        }
        const where =
          first.use === undefined
            ? 'build time (compiled in)'
            : `${first.use.file.displayPath}:${first.use.file.position(first.use.range[0]).line}`;
        for (const module of loaded.slice(1)) {
          if (module.use === undefined) continue;
          ctx.report({ at: module.use, messageId: 'several', data: { module: module.identifier, first: first.identifier, where } });
        }
      },
    };
  },
});
