import { defineRule } from '../../src/engine/define-rule.js';
import { offOnLocalDisks } from './support/local-file-io.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2018',
    name: 'mmap-off-local',
    category: 'performance',
    description: 'EnableMMAP is Off although every served directory is on a local filesystem',
    defaultSeverity: 'info',
    recommended: true,
    fix: 'tune',
    messages: {
      off: {
        message: 'EnableMMAP {{value}} for DocumentRoot {{path}}, {{local}}; expected EnableMMAP On{{where}}',
        detail:
          '{{evidence}}: where httpd must read a static file (mod_deflate, server-side includes, TLS), it copies it through a buffer instead of mapping it',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        for (const found of offOnLocalDisks(ctx.config, ctx.host.mounts, 'EnableMMAP', false)) {
          const { at, value, path, local, evidence, where, fix } = found;
          ctx.report({ at, messageId: 'off', data: { value, path, local, evidence, where }, fix });
        }
      },
    };
  },
});
