import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { planMycnfSetting, replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import { parseServerSize } from '../../src/languages/mycnf/sizes.js';
import type { MycnfConfig } from '../../src/languages/mycnf/model.js';
import type { TextEdit } from '../../src/engine/types.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOf } from '../../src/core/located.js';
import { intendedEffective, type IntendedOption } from './support/intent.js';
import { lookupTable } from '../../src/util/lookup.js';

const TYPE_WORDS: Readonly<Record<string, 'OFF' | 'ON' | 'DEMAND'>> = lookupTable({
  '0': 'OFF',
  off: 'OFF',
  '1': 'ON',
  on: 'ON',
  '2': 'DEMAND',
  demand: 'DEMAND',
});

export default defineRule('mycnf', {
  meta: {
    id: 'MY2005',
    name: 'query-cache-enabled',
    category: 'performance',
    description: 'The query cache is enabled, serialising every query that reads or writes a cached table behind one lock',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      warnFromCpus: { type: 'integer', default: 4, description: 'on hosts with fewer CPUs the lock costs little: the finding is a note' },
      maxSize: { type: 'size', default: '256M', description: 'a cache above this size is a warning whatever the CPUs' },
    },
    messages: {
      enabled: {
        message: 'the query cache is on; expected query_cache_size = 0{{typeAdvice}}',
        detail:
          '{{why}}{{deprecated}}; every write invalidates the cached results of its tables under one global lock, which serialises the server on {{cpus}}',
      },
      large: {
        message: 'the query cache is on with query_cache_size {{size}}; expected query_cache_size = 0{{typeAdvice}}',
        detail:
          '{{why}}{{deprecated}}; invalidating a cache this large stalls every write while it holds the global lock (heuristic: above {{threshold}})',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const target = mycnf.target;
    // MySQL 8.0.3 removed the query cache; its options are MY4002's.
    if (target.product === 'mysql' && versionAtLeast(target.version, '8.0.3')) return {};
    return {
      end() {
        const cache = queryCacheOf(mycnf);
        if (cache === undefined) return;
        const { size, sizeLine, typeLine, written } = cache;
        const why = whyEnabled(cache, target);
        if (why === undefined) return;
        const deprecated =
          target.product === 'mysql' && versionAtLeast(target.version, '5.7.20')
            ? '; MySQL deprecated it in 5.7.20 and removed it in 8.0.3'
            : '';
        const cpus = ctx.host.cpus;
        const cpuText =
          cpus === undefined ? 'a host with several CPUs' : `${cpus.value} CPU${cpus.value === 1 ? '' : 's'} (${cpus.source})`;
        const threshold = ctx.options.maxSize;
        const large = size > threshold;
        const severity = !large && cpus !== undefined && cpus.value < ctx.options.warnFromCpus ? 'info' : undefined;
        const typeAdvice = typeLine !== undefined && written !== 'OFF' ? ' and query_cache_type = 0' : '';
        const at = (sizeLine ?? typeLine)?.use ?? { file: mycnf.root, range: [0, 0] as const };
        ctx.report({
          at,
          messageId: large ? 'large' : 'enabled',
          data: { why, deprecated, cpus: cpuText, size: formatBytes(size), threshold: formatBytes(threshold), typeAdvice },
          ...(severity === undefined ? {} : { severity }),
          fix: () => disable(mycnf, sizeLine, typeLine, written),
        });
      },
    };
  },
});

/** The query cache as the server would start: its size and type, and the lines that set them. */
interface QueryCache {
  readonly size: number;
  readonly type: 'OFF' | 'ON' | 'DEMAND';
  readonly sizeLine: IntendedOption | undefined;
  readonly typeLine: IntendedOption | undefined;
  /** query_cache_type as written, in words. */
  readonly written: 'OFF' | 'ON' | 'DEMAND' | undefined;
}

/** Undefined when the cache holds nothing (size 0) or its size is one the server refuses (MY1004's). */
function queryCacheOf(mycnf: MycnfConfig): QueryCache | undefined {
  const target = mycnf.target;
  const sizeLine = intendedEffective(mycnf, 'query_cache_size');
  const typeLine = intendedEffective(mycnf, 'query_cache_type');
  const sizeValue = sizeLine?.value === undefined ? undefined : parseServerSize(sizeLine.value, target, 'query_cache_size');
  if (sizeValue !== undefined && 'error' in sizeValue) return undefined;
  const fallback = mycnf.defaultOf('query_cache_size');
  const size = sizeValue?.bytes ?? (typeof fallback === 'number' ? fallback : 0);
  if (size === 0) return undefined;
  const written = typeLine?.value === undefined ? undefined : TYPE_WORDS[typeLine.value.toLowerCase()];
  const defaultType = mycnf.defaultOf('query_cache_type');
  const type = written ?? (typeof defaultType === 'string' ? TYPE_WORDS[defaultType.toLowerCase()] : undefined) ?? 'OFF';
  return { size, type, sizeLine, typeLine, written };
}

/** Why the cache is on, with the lines that turn it on; undefined when it is off. */
function whyEnabled(cache: QueryCache, target: MycnfConfig['target']): string | undefined {
  const { size, type, sizeLine, typeLine, written } = cache;
  if (target.product === 'mariadb' && sizeLine !== undefined && type !== 'DEMAND') {
    // MariaDB turns the cache ON when query_cache_size is set to a non-zero value, even over query_cache_type = OFF (verified on 10.11).
    const over = written === 'OFF' ? `, even over query_cache_type = ${typeLine?.value ?? ''}` : '';
    return `query_cache_size ${formatBytes(size)} in ${where(sizeLine)}: MariaDB turns query_cache_type ON when the size is set${over}`;
  }
  if (type === 'OFF') return undefined;
  const typeWhere = typeLine === undefined ? `by default on ${target.product} ${target.version}` : `in ${where(typeLine)}`;
  return `query_cache_type ${type} ${typeWhere} and query_cache_size ${formatBytes(size)} ${sizeLine === undefined ? 'by default' : `in ${where(sizeLine)}`}`;
}

function where(option: IntendedOption): string {
  return `${lineOf(option.use)}${option.viaSetVariable ? ' (set-variable)' : ''}`;
}

/** query_cache_size = 0, and query_cache_type = 0 (OFF in the style written) where a line sets it on. Set-variable lines wait for MY4001. */
function disable(
  mycnf: MycnfConfig,
  sizeLine: IntendedOption | undefined,
  typeLine: IntendedOption | undefined,
  written: 'OFF' | 'ON' | 'DEMAND' | undefined,
): TextEdit[] | null {
  if (sizeLine?.viaSetVariable === true || typeLine?.viaSetVariable === true) return null;
  const size = planMycnfSetting(mycnf, 'query_cache_size', { bytes: 0 });
  if (size === null) return null;
  if (typeLine === undefined || written === 'OFF') return [size.edit];
  const value = typeLine.value ?? '';
  const off = /^\d+$/.test(value) ? '0' : value === value.toLowerCase() ? 'off' : 'OFF';
  const type = replaceMycnfValue(typeLine.use, off);
  return type === null ? null : [size.edit, type];
}
