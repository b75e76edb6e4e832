import { defineRule } from '../../src/engine/define-rule.js';
import type { PhpFpmPool } from '../../src/languages/phpfpm/model.js';
import { replacePhpFpmValue } from '../../src/languages/phpfpm/edits.js';

/** The values fpm_conf.c checks before a pool starts, as integers; NaN when not set or not a number. */
function numberOf(pool: PhpFpmPool, key: string): number {
  const use = pool.effective(key);
  return use === undefined || !/^\s*-?\d+\s*$/.test(use.value) ? Number.NaN : Number(use.value);
}

export default defineRule('phpfpm', {
  meta: {
    id: 'PF1001',
    name: 'process-manager-refused',
    category: 'correctness',
    description: "A pool's process manager settings are values php-fpm refuses, so it does not start",
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      maxChildren: {
        message: '[{{pool}}] pm.max_children {{value}}; expected a positive number of children',
        detail: 'php-fpm says "[pool {{pool}}] pm.max_children must be a positive value" and does not start',
      },
      spareNotPositive: {
        message: '[{{pool}}] {{key}}({{value}}) is not positive; expected at least 1',
        detail: 'php-fpm says "[pool {{pool}}] {{key}}({{value}}) must be a positive value" and does not start (pm = dynamic)',
      },
      spareAboveChildren: {
        message:
          '[{{pool}}] pm.min_spare_servers({{min}}) and pm.max_spare_servers({{max}}) cannot be greater than pm.max_children({{children}})',
        detail: 'php-fpm refuses the pool with these words and does not start (pm = dynamic)',
      },
      spareInverted: {
        message: '[{{pool}}] pm.max_spare_servers({{max}}) is less than pm.min_spare_servers({{min}}); expected max at least min',
        detail: 'php-fpm says "pm.max_spare_servers({{max}}) must not be less than pm.min_spare_servers({{min}})" and does not start',
      },
      startOutside: {
        message:
          '[{{pool}}] pm.start_servers({{start}}) is outside pm.min_spare_servers({{min}}) .. pm.max_spare_servers({{max}}); expected {{expected}}',
        detail:
          'php-fpm says "pm.start_servers({{start}}) must not be less than pm.min_spare_servers({{min}}) and not greater than pm.max_spare_servers({{max}})" and does not start; {{expected}} is what php-fpm starts with when the line is absent: min + (max - min) / 2',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        for (const pool of ctx.config.pools) checkPool(pool, (descriptor) => ctx.report(descriptor));
      },
    };
  },
});

type Report = (descriptor: {
  at: PhpFpmPool['header'];
  messageId: 'maxChildren' | 'spareNotPositive' | 'spareAboveChildren' | 'spareInverted' | 'startOutside';
  data: Record<string, string | number>;
  fix?: () => ReturnType<typeof replacePhpFpmValue>;
}) => void;

/** fpm_conf_process_all_pools, in its order: the first check that fails is the one php-fpm reports. */
function checkPool(pool: PhpFpmPool, report: Report): void {
  const name = pool.name;
  const children = numberOf(pool, 'pm.max_children');
  const childrenUse = pool.effective('pm.max_children');
  if (!(children >= 1)) {
    report({ at: childrenUse ?? pool.header, messageId: 'maxChildren', data: { pool: name, value: childrenUse?.value ?? 'is not set' } });
    return;
  }
  if (pool.effective('pm')?.value.toLowerCase() !== 'dynamic') return;
  const min = numberOf(pool, 'pm.min_spare_servers');
  const max = numberOf(pool, 'pm.max_spare_servers');
  for (const [key, value] of [
    ['pm.min_spare_servers', min],
    ['pm.max_spare_servers', max],
  ] as const) {
    if (!(value > 0)) {
      report({
        at: pool.effective(key) ?? pool.header,
        messageId: 'spareNotPositive',
        data: { pool: name, key, value: Number.isNaN(value) ? 0 : value },
      });
      return;
    }
  }
  if (min > children || max > children) {
    report({
      at: pool.effective('pm.max_children') ?? pool.header,
      messageId: 'spareAboveChildren',
      data: { pool: name, min, max, children },
    });
    return;
  }
  if (max < min) {
    report({ at: pool.effective('pm.max_spare_servers') ?? pool.header, messageId: 'spareInverted', data: { pool: name, min, max } });
    return;
  }
  const startUse = pool.effective('pm.start_servers');
  const start = numberOf(pool, 'pm.start_servers');
  if (startUse === undefined || !(start > 0) || (start >= min && start <= max)) return;
  const expected = min + Math.floor((max - min) / 2);
  report({
    at: startUse,
    messageId: 'startOutside',
    data: { pool: name, start, min, max, expected },
    fix: () => replacePhpFpmValue(startUse, String(expected)),
  });
}
