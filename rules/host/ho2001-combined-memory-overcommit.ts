import { defineRule } from '../../src/engine/define-rule.js';
import { formatBytes } from '../../src/util/units.js';

export default defineRule({
  meta: {
    id: 'HO2001',
    name: 'combined-memory-overcommit',
    language: 'host',
    category: 'performance',
    description: "Apache's peak, MySQL's worst case and the OS reserve together exceed the host's RAM",
    defaultSeverity: 'error',
    recommended: true,
    needsHost: true,
    messages: {
      over:
        'Apache peak {{apache}} ({{apacheReason}}) + MySQL worst case {{mysql}} (globals {{globals}} + {{connections}} connections x {{perConnection}}) + OS reserve {{reserve}} = {{total}} exceeds {{ram}} RAM ({{ramSource}}); lower the MySQL buffers or max_connections (MY rules) or Apache\'s MaxRequestWorkers',
      near:
        'Apache peak {{apache}} ({{apacheReason}}) + MySQL worst case {{mysql}} + OS reserve {{reserve}} = {{total}} is {{share}} of {{ram}} RAM ({{ramSource}}): little room for the page cache',
    },
  },
  defaultOptions: {
    /** Share of RAM above which the sum is reported as a warning. */
    warnShare: 0.95,
  },
  create(ctx) {
    return {
      end() {
        const { ram, mysql, osReserve } = ctx.sizing;
        const mycnf = ctx.mycnf;
        if (ram === undefined || mysql === undefined || osReserve === undefined || mycnf === undefined || ctx.sizing.apache.length === 0) return;
        // Apache counted as its sizing fix leaves it, so this rule reports what remains after AP2001, not the same excess twice.
        const apacheParts = ctx.sizing.apache.map((sizing) => {
          const processes = Math.ceil(sizing.plannedMaxRequestWorkers / sizing.threadsPerChild);
          return { bytes: processes * sizing.perChild.value.median, reason: `${processes} processes x ${formatBytes(sizing.perChild.value.median)}` };
        });
        const apache = apacheParts.reduce((sum, part) => sum + part.bytes, 0);
        const total = apache + mysql.peak + osReserve;
        const at = mycnf.effective('max_connections') ?? { file: mycnf.root, range: [0, 0] as const };
        const data = {
          apache: formatBytes(apache),
          apacheReason: apacheParts.map((part) => part.reason).join(' + '),
          mysql: formatBytes(mysql.peak),
          globals: formatBytes(mysql.globalBytes),
          connections: mysql.maxConnections.value,
          perConnection: formatBytes(mysql.perConnectionBytes),
          reserve: formatBytes(osReserve),
          total: formatBytes(total),
          ram: formatBytes(ram.value),
          ramSource: ram.source,
        };
        if (total > ram.value) ctx.report({ at, messageId: 'over', data });
        else if (total > ram.value * ctx.options.warnShare) {
          ctx.report({ at, messageId: 'near', severity: 'warn', data: { ...data, share: `${Math.round((total / ram.value) * 100)}%` } });
        }
      },
    };
  },
});
