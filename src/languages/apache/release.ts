import { TABLES_RELEASE } from './module-directives.js';

/**
 * The newest release of each httpd series this tool knows: the apache2 its
 * directive tables were generated from, and 2.2.34, the last 2.2.
 */
const NEWEST_HTTPD: Readonly<Record<string, string>> = { '2.4': TABLES_RELEASE, '2.2': '2.2.34' };

/**
 * A target as a full release, for what compares it as a string, as
 * `<IfVersion ~ regex>` matches httpd's own version: "2.4", a current 2.4,
 * is the newest 2.4 known; a target with a patch level is itself.
 */
export function httpdRelease(target: string): string {
  if (target.split('.').length >= 3) return target;
  return NEWEST_HTTPD[target] ?? target;
}
