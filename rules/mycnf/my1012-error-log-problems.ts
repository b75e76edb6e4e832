import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOrTop } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY1012',
    name: 'error-log-problems',
    category: 'correctness',
    description: "The running server's error log has errors, or more warnings than expected",
    defaultSeverity: 'info',
    recommended: true,
    options: {
      maxWarnings: {
        type: 'integer',
        default: 10,
        description: 'more warnings than this in the tail read are reported (errors always are)',
      },
    },
    messages: {
      logged: {
        message: 'the error log has {{errors}} and {{warnings}} in its last {{bytes}}; expected none: {{top}}',
        detail: '{{list}} ({{file}}, read from {{source}})',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        const log = fact?.value.errorLog;
        if (fact === undefined || log === undefined || (log.errors === 0 && log.warnings <= ctx.options.maxWarnings)) return;
        const line = (entry: (typeof log.top)[number]): string =>
          `${entry.level} "${entry.message}" ${entry.count === 1 ? 'once' : `${entry.count} times`}, the last at ${entry.last}`;
        ctx.report({
          at: lineOrTop(ctx.config, 'log_error'),
          messageId: 'logged',
          data: {
            errors: `${log.errors} ${log.errors === 1 ? 'error' : 'errors'}`,
            warnings: `${log.warnings} ${log.warnings === 1 ? 'warning' : 'warnings'}`,
            bytes: formatBytes(log.bytesRead),
            top: log.top[0] === undefined ? '' : line(log.top[0]),
            list: log.top.map(line).join('; '),
            file: log.file,
            source: liveSource(fact.source),
          },
        });
      },
    };
  },
});
