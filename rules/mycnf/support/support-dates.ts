/**
 * The end of community support of each release series, as the vendors
 * publish it (MariaDB's maintenance policy, Oracle's lifetime support
 * policy; cross-checked with endoflife.date and MySQLTuner's tables). The
 * table is shipped and dated, never fetched: a linter on a server asks no
 * one on the internet.
 */
export const SUPPORT_TABLE_DATE = '2026-12-06';

const MARIADB: Readonly<Record<string, string>> = {
  '5.5': '2020-04-11',
  '10.0': '2019-03-31',
  '10.1': '2020-10-17',
  '10.2': '2022-05-23',
  '10.3': '2023-05-25',
  '10.4': '2024-06-18',
  '10.5': '2025-06-24',
  '10.6': '2026-07-06',
  '10.7': '2023-02-09',
  '10.8': '2023-05-20',
  '10.9': '2023-08-22',
  '10.10': '2023-11-17',
  '10.11': '2028-02-16',
  '11.0': '2024-06-06',
  '11.1': '2024-08-21',
  '11.2': '2024-11-21',
  '11.3': '2024-05-29',
  '11.4': '2029-05-29',
  '11.5': '2024-11-21',
  '11.6': '2025-02-13',
  '11.7': '2025-05-12',
  '11.8': '2028-06-04',
  '12.0': '2025-11-18',
  '12.1': '2026-02-13',
  '12.2': '2026-05-13',
};

const MYSQL: Readonly<Record<string, string>> = {
  '5.5': '2018-12-31',
  '5.6': '2021-02-28',
  '5.7': '2023-10-31',
  '8.0': '2026-04-30',
  '8.1': '2023-10-25',
  '8.2': '2023-12-14',
  '8.3': '2024-04-10',
  '8.4': '2032-04-30',
  '9.0': '2024-10-15',
  '9.1': '2025-01-21',
  '9.2': '2025-04-15',
  '9.3': '2025-07-22',
  '9.4': '2025-10-21',
  '9.5': '2026-01-20',
  '9.6': '2026-04-21',
  '9.7': '2034-04-21',
};

/** The long-term series to move to, newest first. */
const LONG_TERM: Readonly<Record<string, string>> = {
  mariadb: 'MariaDB 11.8, 11.4 or 10.11 (long-term)',
  mysql: 'MySQL 8.4 or 9.7 (long-term)',
};

export interface SupportEnd {
  readonly series: string;
  /** `2026-07-06`: the last day of support; for a series older than every one in the table, the oldest date known. */
  readonly end: string;
  /** `on 2026-07-06`, or `before 2018-12-31` for a series older than the table. */
  readonly when: string;
  readonly next: string;
}

/** When `version`'s series loses support; undefined for a series newer than the table (it cannot say). */
export function supportEnd(product: string, version: string): SupportEnd | undefined {
  const table = product === 'mysql' ? MYSQL : product === 'mariadb' ? MARIADB : undefined;
  const series = /^(\d+)\.(\d+)/.exec(version);
  if (table === undefined || series === null) return undefined;
  const name = `${series[1]}.${series[2]}`;
  const next = LONG_TERM[product] ?? '';
  const end = table[name];
  if (end !== undefined) return { series: name, end, when: `on ${end}`, next };
  const numeric = (text: string): number => {
    const [major = 0, minor = 0] = text.split('.').map(Number);
    return major * 1000 + minor;
  };
  const known = Object.keys(table).sort((a, b) => numeric(a) - numeric(b));
  const oldest = known[0] as string;
  // Older than every series listed: their support ended before the oldest date here.
  const oldestEnd = table[oldest] as string;
  return numeric(name) < numeric(oldest) ? { series: name, end: oldestEnd, when: `before ${oldestEnd}`, next } : undefined;
}
