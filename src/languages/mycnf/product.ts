import { lineOf } from '../../core/located.js';
import type { DatabaseTarget } from '../../core/targets.js';
import { groupKey } from './groups.js';
import type { MycnfConfig } from './model.js';
import { isMariadbOnlyOption, mysqlOnlySeries } from './mysql-names.js';
import { normaliseOptionName } from './names.js';

/** One thing in the files that only one product would read: an option, a group, a directory of the layout. */
interface Evidence {
  readonly product: 'mysql' | 'mariadb';
  /** The series it shows, when it shows one. */
  readonly series?: string;
  /** `mysqlx_bind_address (mysqld.cnf:12)`. */
  readonly what: string;
}

/** The directories distributions keep one product's option files in (Ubuntu's mysql-server, Percona's, Debian's MariaDB). */
const LAYOUTS: readonly { readonly dir: string; readonly product: 'mysql' | 'mariadb' }[] = [
  { dir: '/mysql.conf.d/', product: 'mysql' },
  { dir: '/percona-server.conf.d/', product: 'mysql' },
  { dir: '/mariadb.conf.d/', product: 'mariadb' },
];

/** The MySQL series taken when the files show MySQL but not which: the oldest series still supported. */
const MYSQL_SERIES = '8.0';

/** The evidence an inferred target names, at most this many items. */
const NAMED = 3;

/**
 * The server the option files are written for, when nobody named it: read
 * from the options only one product takes (MySQL's `mysqlx_bind_address`,
 * `gtid_mode`; MariaDB's `aria_*`), the groups only one reads (`[mariadb]`,
 * `[mysqld-8.0]`) and the distribution's layout (`mysql.conf.d`). Galera's
 * `wsrep_*` options are left out: MySQL's Galera builds take them too.
 * Undefined when the files show nothing, or show both products.
 */
export function inferDatabaseTarget(config: MycnfConfig, assumed: DatabaseTarget): DatabaseTarget | undefined {
  const evidence = [...layoutEvidence(config), ...groupEvidence(config), ...optionEvidence(config)];
  const products = new Set(evidence.map((item) => item.product));
  if (products.size !== 1) return undefined;
  const product = evidence[0]?.product ?? assumed.product;
  const series = product === assumed.product ? assumed.version : seriesShown(evidence);
  const shown = evidence.slice(0, NAMED).map((item) => item.what);
  const more = evidence.length > NAMED ? ` and ${evidence.length - NAMED} more` : '';
  const unsure = series === undefined ? `; nothing shows the series, ${MYSQL_SERIES} taken` : '';
  return { product, version: series ?? MYSQL_SERIES, inferredFrom: `${shown.join(', ')}${more}${unsure}` };
}

/** The MySQL series the evidence shows: 8.0 when anything only 8.0 takes is there, else 5.7 when something only 5.7 takes is. */
function seriesShown(evidence: readonly Evidence[]): string | undefined {
  const series = new Set(evidence.flatMap((item) => (item.series === undefined ? [] : [item.series])));
  if (series.has('8.0')) return '8.0';
  return series.has('5.7') ? '5.7' : undefined;
}

function layoutEvidence(config: MycnfConfig): Evidence[] {
  for (const entry of config.files) {
    // The absolute path: a file given from inside its directory shows no directory in its display path.
    const layout = LAYOUTS.find((candidate) => entry.source.path.includes(candidate.dir));
    if (layout !== undefined) return [{ product: layout.product, what: `the ${layout.dir.slice(1, -1)} directory` }];
  }
  return [];
}

/** `[mariadb]`, `[mariadbd-10.11]`; `[mysqld-8.0]` and `[mysqld-5.7]`, the series groups only MySQL's releases read. */
function groupEvidence(config: MycnfConfig): Evidence[] {
  const seen = new Set<string>();
  const evidence: Evidence[] = [];
  for (const use of [...config.uses, ...config.otherOptions]) {
    const group = groupKey(use.group);
    if (seen.has(group)) continue;
    seen.add(group);
    const what = `[${use.group}] (${lineOf(use)})`;
    if (/^mariadbd?(-\d+\.\d+)?$/.test(group)) evidence.push({ product: 'mariadb', what });
    const series = /^mysqld-([5-9]\.\d+)$/.exec(group)?.[1];
    if (series !== undefined && series !== '5.5') evidence.push({ product: 'mysql', series, what });
  }
  return evidence;
}

function optionEvidence(config: MycnfConfig): Evidence[] {
  const evidence: Evidence[] = [];
  for (const use of config.uses) {
    // As written: MariaDB reads slave_parallel_workers, which MySQL also has, as its own slave_parallel_threads.
    const key = normaliseOptionName(use.name.raw).key;
    if (key.startsWith('wsrep_')) continue;
    const what = `${use.name.raw} (${lineOf(use)})`;
    const mysqlSeries = use.status === 'unknown' ? mysqlOnlySeries(key) : [];
    if (mysqlSeries.length > 0) {
      evidence.push({ product: 'mysql', ...(mysqlSeries.length === 1 ? { series: mysqlSeries[0] } : {}), what });
    } else if (use.status === 'unknown' && /^ndb(_|cluster$)/.test(key)) {
      // MySQL Cluster's NDB engine, which MariaDB dropped in 10.0.
      evidence.push({ product: 'mysql', what });
    } else if (use.status === 'exact' && isMariadbOnlyOption(key)) {
      evidence.push({ product: 'mariadb', what });
    }
  }
  return evidence;
}
