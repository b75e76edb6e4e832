import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { replaceMycnfSize } from '../../src/languages/mycnf/edits.js';
import { formatServerSize } from '../../src/languages/mycnf/sizes.js';
import { formatBytes, MIB } from '../../src/util/units.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import type { EngineUse } from '../../src/host/facts.js';

/** MariaDB's key cache works in blocks of key_cache_block_size (default 1024) and keeps none below 4096 bytes (verified: 1K reads as 0). */
const SMALLEST_KEY_CACHE = 4096;

export default defineRule('mycnf', {
  meta: {
    id: 'MY2006',
    name: 'key-buffer-unused',
    category: 'performance',
    description: 'key_buffer_size reserves a large MyISAM index cache on a server whose own tables no longer use MyISAM',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      maxUnused: { type: 'size', default: '64M', description: 'a key buffer above this size is reported' },
      suggested: { type: 'size', default: '8M', description: "the size the fix sets (MySQL's default)" },
    },
    messages: {
      large: {
        message:
          '{{name}} {{value}} reserves a MyISAM index cache, and {{product}} keeps its own tables in {{engine}}; expected {{suggested}} unless your tables are MyISAM',
        detail:
          'only MyISAM indexes use it, and an option file cannot show which engines your tables use (SELECT ENGINE, SUM(INDEX_LENGTH) FROM information_schema.TABLES GROUP BY ENGINE does; heuristic: above {{threshold}})',
      },
      noMyisam: {
        message: '{{name}} {{value}} reserves a MyISAM index cache, and no table of the running server is MyISAM; expected {{suggested}}',
        detail: 'tables per engine from information_schema.TABLES ({{source}}): {{engines}}; only MyISAM indexes use the key buffer',
      },
      aboveIndexes: {
        message:
          '{{name}} {{value}} caches MyISAM indexes of {{indexes}} in all; expected {{suggested}}, room for all of them and their growth',
        detail:
          'MyISAM indexes {{indexes}} in {{tables}} tables, from information_schema.TABLES ({{source}}); a key buffer larger than the indexes never fills',
      },
      disabled: {
        message:
          '{{name}} {{value}} is below {{smallest}} bytes, so MariaDB keeps no key cache; expected 0 if that is meant, else at least 64K',
        detail: 'MariaDB reads the size as 0',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const target = mycnf.target;
    // MySQL 8.0 keeps the data dictionary in InnoDB, MariaDB 10.4+ the mysql.* tables in Aria; older servers use MyISAM themselves.
    const engine =
      target.product === 'mysql'
        ? versionAtLeast(target.version, '8.0')
          ? 'InnoDB'
          : undefined
        : versionAtLeast(target.version, '10.4')
          ? 'Aria'
          : undefined;
    return {
      end() {
        const size = mycnf.size('key_buffer_size');
        if (size === undefined || size.from === 'default') return;
        const use = size.from;
        const name = use.file.slice(use.line.nameRange);
        const value = use.value ?? '';
        if (target.product === 'mariadb' && size.bytes > 0 && size.bytes < SMALLEST_KEY_CACHE) {
          ctx.report({ at: use, messageId: 'disabled', severity: 'info', data: { name, value, smallest: SMALLEST_KEY_CACHE } });
          return;
        }
        const threshold = ctx.options.maxUnused;
        const suggested = ctx.options.suggested;
        const live = ctx.host.mysqlLive;
        if (live?.value.engines !== undefined && size.bytes > threshold) {
          const verdict = fromRunningServer(live.value.engines, size.bytes, suggested);
          if (verdict === undefined) return;
          const data = {
            name,
            value,
            source: liveSource(live.source),
            suggested: formatServerSize(verdict.fitting, target),
            ...verdict.data,
          };
          ctx.report({ at: use, messageId: verdict.messageId, data, fix: () => replaceMycnfSize(use, verdict.fitting, target) });
          return;
        }
        const defaultEngine = mycnf.effective('default_storage_engine')?.value?.toLowerCase();
        if (engine === undefined || size.bytes <= threshold || defaultEngine === 'myisam') return;
        ctx.report({
          at: use,
          messageId: 'large',
          data: {
            name,
            value,
            product: `${target.product === 'mysql' ? 'MySQL' : 'MariaDB'} ${target.version}`,
            engine,
            threshold: formatBytes(threshold),
            suggested: formatServerSize(suggested, target),
          },
          fix: () => replaceMycnfSize(use, suggested, target),
        });
      },
    };
  },
});

/**
 * With the server's tables per engine in hand, no guessing: no MyISAM table
 * at all, or MyISAM indexes far smaller than the buffer. The size that fits
 * is the indexes and half again for growth, at least the configured minimum.
 */
function fromRunningServer(
  engines: readonly EngineUse[],
  bytes: number,
  suggested: number,
):
  | { messageId: 'noMyisam'; fitting: number; data: { engines: string } }
  | { messageId: 'aboveIndexes'; fitting: number; data: { indexes: string; tables: number } }
  | undefined {
  const myisam = engines.find((entry) => entry.engine.toLowerCase() === 'myisam');
  if (myisam === undefined) {
    const listed = engines.map((entry) => `${entry.engine} ${entry.tables}`).join(', ') || 'no tables';
    return suggested >= bytes ? undefined : { messageId: 'noMyisam', fitting: suggested, data: { engines: listed } };
  }
  const fitting = Math.max(suggested, Math.ceil((myisam.indexBytes * 1.5) / MIB) * MIB);
  if (fitting >= bytes) return undefined;
  return { messageId: 'aboveIndexes', fitting, data: { indexes: formatBytes(myisam.indexBytes), tables: myisam.tables } };
}
