import { defineRule } from '../../src/engine/define-rule.js';
import { formatBytes } from '../../src/util/units.js';
import { toySize } from './language.js';

/** The toy cache's one rule: its memory above half the host's RAM, with a fix that halves it. */
export default defineRule('toy', {
  meta: {
    id: 'TY2001',
    name: 'toy-memory-over-ram',
    category: 'performance',
    description: "The toy cache's memory is above half the host's RAM",
    defaultSeverity: 'error',
    recommended: true,
    fix: 'tune',
    needsHost: true,
    messages: { over: 'memory {{memory}} is above half of {{ram}} RAM; expected at most {{most}}' },
  },
  create(ctx) {
    return {
      end() {
        const ram = ctx.host.ram?.value;
        const memory = ctx.config.entries.find((entry) => entry.key === 'memory');
        const bytes = memory === undefined ? undefined : toySize(memory.value);
        if (ram === undefined || memory === undefined || bytes === undefined || bytes <= ram / 2) return;
        const most = `${Math.floor(ram / 2 / 1024 ** 2)}M`;
        ctx.report({
          at: memory,
          messageId: 'over',
          data: { memory: memory.value, ram: formatBytes(ram), most },
          fix: () => ({ file: memory.file, range: memory.valueRange, text: most }),
        });
      },
    };
  },
});
