import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { removeMycnfLine, replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2007',
    name: 'thread-cache',
    category: 'performance',
    description: 'thread_cache_size keeps no threads for new connections, or more than there can be connections',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      zero: {
        message: '{{name}} = {{value}} keeps no idle thread; expected {{expected}}',
        detail:
          'every new connection (one per PHP request without persistent connections) creates a thread and every disconnect destroys it',
      },
      aboveConnections: {
        message: '{{name}} {{value}} is above max_connections {{maxConnections}}; expected {{expected}}',
        detail: 'no more threads than connections can ever be idle',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const target = mycnf.target;
    // MySQL 5.6.8 and MariaDB size the cache from max_connections when it is not set (the manuals' thread_cache_size).
    const autosized = target.product === 'mariadb' || versionAtLeast(target.version, '5.6.8');
    return {
      end() {
        const size = mycnf.size('thread_cache_size');
        const connections = mycnf.size('max_connections');
        if (size === undefined || size.from === 'default' || connections === undefined) return;
        const use: MycnfOptionUse = size.from;
        const autosize = autosized ? mycnf.defaultOf('thread_cache_size') : Math.min(100, 8 + Math.floor(connections.bytes / 100));
        // Removing the line would bring back an earlier one that sets it too: then the autosized number is written instead.
        const removable = autosized && mycnf.uses.every((other) => other === use || other.name.key !== 'thread_cache_size');
        const expected = removable
          ? `the line removed, so the server sizes the cache itself (${String(autosize)} for max_connections ${connections.bytes})`
          : `${String(autosize)} (${autosized ? 'what the server sizes it to' : "8 + max_connections / 100, MySQL 5.6's own sizing"} for max_connections ${connections.bytes})`;
        const fix = () => (removable ? removeMycnfLine(use) : replaceMycnfValue(use, String(autosize)));
        const data = { name: use.file.slice(use.line.nameRange), value: use.value ?? '', expected, maxConnections: connections.bytes };
        if (size.bytes === 0) ctx.report({ at: use, messageId: 'zero', data, fix });
        else if (size.bytes > connections.bytes) ctx.report({ at: use, messageId: 'aboveConnections', severity: 'info', data, fix });
      },
    };
  },
});
