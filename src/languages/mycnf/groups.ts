import { seriesOf, versionAtLeast, type DatabaseTarget } from '../../core/targets.js';
import { asciiLowerCase } from '../../util/ascii.js';

/**
 * The option groups the server reads (`load_default_groups` in sql/mysqld.cc).
 * MySQL 5.5-8.4: mysqld, server, mysqld-X.Y (option-files doc). MariaDB:
 * mysqld, server, mysqld-X.Y, mariadb, mariadb-X.Y, client-server, plus galera
 * from 10.1 (wsrep builds, as distributions ship) and mariadbd, mariadbd-X.Y
 * from 10.4 (include/mysql_version.h.in defines MARIADBD_BASE_VERSION from
 * 10.4); the 10.11 list is verified with `mariadbd --help --verbose`. Order
 * does not matter: only the position of a line in the files decides.
 * `--defaults-group-suffix=S` adds every group with S appended.
 */
export function serverGroups(target: DatabaseTarget, groupSuffix?: string): readonly string[] {
  const series = seriesOf(target.version);
  const groups = ['mysqld', 'server', `mysqld-${series}`];
  if (target.product === 'mariadb') {
    groups.push('mariadb', `mariadb-${series}`);
    if (versionAtLeast(target.version, '10.4')) groups.push('mariadbd', `mariadbd-${series}`);
    groups.push('client-server');
    if (versionAtLeast(target.version, '10.1')) groups.push('galera');
  }
  if (groupSuffix === undefined || groupSuffix === '') return groups;
  return [...groups, ...groups.map((group) => `${group}${groupSuffix}`)];
}

/** `find_type` compares group names case-insensitively (latin1 upper case; ASCII here). */
export function groupKey(name: string): string {
  return asciiLowerCase(name);
}
