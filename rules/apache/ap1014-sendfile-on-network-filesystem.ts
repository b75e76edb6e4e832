import { defineRule } from '../../src/engine/define-rule.js';
import { placeLabel, servesTls } from '../../src/languages/apache/docroots.js';
import { describeMount, flagOnNetworkPlaces } from '../../src/analysis/network-places.js';
import { planDirectoryFlag } from '../../src/languages/apache/directory-edits.js';

export default defineRule('apache', {
  meta: {
    id: 'AP1014',
    name: 'sendfile-on-network-filesystem',
    category: 'correctness',
    description: 'EnableSendfile is On for files served from a network filesystem',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      sendfile: {
        message:
          'EnableSendfile {{value}} for {{place}} on {{mount}} can serve stale or truncated files; expected EnableSendfile Off in <Directory "{{path}}">',
        detail: 'the kernel may be unable to serve a network-mounted file through its own cache',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mounts = ctx.host.mounts;
        if (mounts === undefined) return;
        // mod_ssl reads file contents to encrypt them: sendfile is not used for a TLS server.
        for (const { place, setting, at } of flagOnNetworkPlaces(apache, mounts.value, 'enablesendfile', (vhost) =>
          servesTls(apache, vhost),
        )) {
          ctx.report({
            at,
            messageId: 'sendfile',
            data: {
              value:
                setting.use === undefined ? `${setting.args[0] ?? 'On'} (default for httpd ${apache.httpd})` : (setting.args[0] ?? 'On'),
              place: placeLabel(place),
              path: place.path,
              mount: describeMount(place.mount, mounts),
            },
            fix: () => planDirectoryFlag(apache, place, 'EnableSendfile', 'Off', setting),
          });
        }
      },
    };
  },
});
