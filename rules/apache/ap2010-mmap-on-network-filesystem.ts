import { defineRule } from '../../src/engine/define-rule.js';
import { placeLabel } from '../../src/languages/apache/docroots.js';
import { describeMount, flagOnNetworkPlaces } from '../../src/analysis/network-places.js';
import { planDirectoryFlag } from '../../src/languages/apache/directory-edits.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2010',
    name: 'mmap-on-network-filesystem',
    category: 'performance',
    description: 'EnableMMAP is On for files served from a network filesystem',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      mmap: {
        message: 'EnableMMAP {{value}} for {{place}} on {{mount}} can crash a child; expected EnableMMAP Off in <Directory "{{path}}">',
        detail:
          'when another client of the share deletes or truncates a file while httpd has it mapped, the child reading it dies of a bus error',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mounts = ctx.host.mounts;
        if (mounts === undefined) return;
        for (const { place, setting, at } of flagOnNetworkPlaces(apache, mounts.value, 'enablemmap')) {
          ctx.report({
            at,
            messageId: 'mmap',
            data: {
              value: setting.use === undefined ? `${setting.args[0] ?? 'On'} (default)` : (setting.args[0] ?? 'On'),
              place: placeLabel(place),
              path: place.path,
              mount: describeMount(place.mount, mounts),
            },
            fix: () => planDirectoryFlag(apache, place, 'EnableMMAP', 'Off', setting),
          });
        }
      },
    };
  },
});
