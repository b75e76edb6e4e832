import { defineMycnfRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { replaceMycnfSize } from '../../src/languages/mycnf/edits.js';
import { formatServerSize } from '../../src/languages/mycnf/sizes.js';
import { formatBytes } from '../../src/util/units.js';

/** MariaDB's key cache works in blocks of key_cache_block_size (default 1024) and keeps none below 4096 bytes (verified: 1K reads as 0). */
const SMALLEST_KEY_CACHE = 4096;

export default defineMycnfRule({
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
      disabled: {
        message:
          '{{name}} {{value}} is below {{smallest}} bytes, so MariaDB keeps no key cache; expected 0 if that is meant, else at least 64K',
        detail: 'MariaDB reads the size as 0',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.mycnf;
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
