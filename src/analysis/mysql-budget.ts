import type { Sizing } from './sizing.js';
import { formatBytes, formatPercent } from '../util/units.js';

/**
 * The memory MySQL may use: 85 % of RAM (where MySQLTuner warns) when no Apache config is
 * linted with the my.cnf, else what the sizing model leaves it, RAM less
 * Apache's budget and the OS reserve (src/analysis/sizing.ts). Undefined without RAM.
 */
export function mysqlBudget(sizing: Sizing): { readonly bytes: number; readonly reason: string } | undefined {
  const ram = sizing.ram;
  if (ram === undefined) return undefined;
  if (sizing.apache.length === 0 || sizing.apacheBudget === undefined || sizing.osReserve === undefined) {
    return {
      bytes: Math.floor(ram.value * sizing.budget.mysqlMaxShare),
      reason: `${formatPercent(sizing.budget.mysqlMaxShare)} of ${formatBytes(ram.value)} RAM, ${ram.source}`,
    };
  }
  return {
    bytes: ram.value - sizing.apacheBudget - sizing.osReserve,
    reason: `${formatBytes(ram.value)} RAM (${ram.source}) less the Apache budget of ${formatBytes(sizing.apacheBudget)} and the OS reserve of ${formatBytes(sizing.osReserve)}`,
  };
}
