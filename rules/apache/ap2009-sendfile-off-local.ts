import { defineRule } from '../../src/engine/define-rule.js';
import { offOnLocalDisks } from './support/local-file-io.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2009',
    name: 'sendfile-off-local',
    category: 'performance',
    description: 'EnableSendfile is Off although every served directory is on a local filesystem',
    defaultSeverity: 'info',
    recommended: true,
    fix: 'tune',
    messages: {
      off: {
        message: 'EnableSendfile {{value}} for DocumentRoot {{path}}, {{local}}; expected EnableSendfile On{{where}}',
        detail: '{{evidence}}: static files over plain HTTP are read into httpd and written out again instead of sent by the kernel',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        for (const found of offOnLocalDisks(ctx.config, ctx.host.mounts, 'EnableSendfile', true)) {
          const { at, value, path, local, evidence, where, fix } = found;
          ctx.report({ at, messageId: 'off', data: { value, path, local, evidence, where }, fix });
        }
      },
    };
  },
});
