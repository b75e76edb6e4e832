import { UserError } from '../util/user-error.js';

/** Versions the configs are linted for; `--target httpd=2.4,mariadb=10.11`. */
export interface Targets {
  readonly httpd: string;
  /** Nobody said which httpd the Apache configs are for: the default stands in, and the files may show another. */
  readonly httpdAssumed?: true;
  /** Nobody said, but the files show it: what they show it by (`LoadModule authz_default_module (httpd.conf:155)`). */
  readonly httpdInferredFrom?: string;
  readonly db: DatabaseTarget;
}

export interface DatabaseTarget {
  readonly product: 'mysql' | 'mariadb';
  readonly version: string;
  /** Nobody said which server the option files are for (no --target, no target: in .tune-lint.yaml): the default stands in. */
  readonly assumed?: true;
  /** Nobody said, but the files show it: what they show it by (`mysqlx-bind-address (my.cnf:12)`). */
  readonly inferredFrom?: string;
}

export const DEFAULT_TARGETS: Targets = {
  httpd: '2.4',
  db: { product: 'mariadb', version: '10.11' },
};

/**
 * Compares a target version with another version, numerically component by
 * component. A component the target leaves out means the newest release of
 * that series: a target of "2.4" means "a current 2.4", so it is at least
 * 2.4.30. A component the other version leaves out is 0, as release notes
 * mean it and as httpd's `<IfVersion>` reads it: 2.4.62 is at least 2.4.
 */
export function compareVersions(target: string, other: string): number {
  const left = target.split('.');
  const right = other.split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] === undefined ? Infinity : Number.parseInt(left[i] as string, 10) || 0;
    const y = right[i] === undefined ? 0 : Number.parseInt(right[i] as string, 10) || 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Answers by version, then minimum: rules ask the same few questions once per directive on trees of a quarter of a million lines, and a key made of both would be a new string to hash on every call. */
const atLeast = new Map<string, Map<string, boolean>>();

/** Whether a target version (see compareVersions) is `minimum` or later. */
export function versionAtLeast(version: string, minimum: string): boolean {
  let answers = atLeast.get(version);
  if (answers === undefined) {
    answers = new Map();
    if (atLeast.size < 100) atLeast.set(version, answers);
  }
  let answer = answers.get(minimum);
  if (answer === undefined) {
    answer = compareVersions(version, minimum) >= 0;
    if (answers.size < 100) answers.set(minimum, answer);
  }
  return answer;
}

/** Major.minor of a version string: `10.11.9` -> `10.11`. */
export function seriesOf(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/**
 * Whether every release a target stands for is at least `minimum`: a target
 * of a series ("8.0") stands for all its releases, from 8.0.0 on, so a fix
 * that needs 8.0.30 is not valid for it although a current 8.0 has it.
 */
export function everyReleaseAtLeast(version: string, minimum: string): boolean {
  const release = version.split('.').length >= 3 ? version : `${seriesOf(version)}.0`;
  return compareVersions(release, minimum) >= 0;
}

export class TargetSpecError extends UserError {}

/** Parses `httpd=2.4,mysql=8.0` (or `mariadb=10.11`) over the given base. */
/** One part of a target spec: a product and a version of one to three numbers. */
export const TARGET_PART = /^(httpd|apache|mysql|mariadb)\s*=\s*(\d+(?:\.\d+){0,2})$/i;
/** The httpd versions a target may name: the 2.2 and 2.4 series, optionally with a patch release. */
export const HTTPD_TARGET_VERSION = /^2\.[24](\.\d+)?$/;

export function parseTargetSpec(spec: string, base: Targets = DEFAULT_TARGETS): Targets {
  let httpd = base.httpd;
  let httpdNamed = false;
  let db = base.db;
  // No spec at all is no target change; an empty item among others is a typo the user should see.
  const parts = spec.trim() === '' ? [] : spec.split(',').map((p) => p.trim());
  for (const part of parts) {
    if (part === '')
      throw new TargetSpecError(
        `invalid target "${spec}": an empty item; expected httpd=2.4, mysql=8.0 or mariadb=10.11, separated by commas`,
      );
    const match = TARGET_PART.exec(part);
    if (!match) throw new TargetSpecError(`invalid target "${part}": expected httpd=2.4, mysql=8.0 or mariadb=10.11`);
    const product = (match[1] as string).toLowerCase();
    const version = match[2] as string;
    if (product === 'httpd' || product === 'apache') {
      if (!HTTPD_TARGET_VERSION.test(version)) throw new TargetSpecError(`unsupported httpd target "${version}": expected 2.2 or 2.4`);
      httpd = version;
      httpdNamed = true;
    } else {
      const major = Number.parseInt(version, 10);
      // MariaDB went from 5.5 to 10.0; MySQL has no 10: the other product is the likely meaning.
      if (product === 'mariadb' && major < 10 && !/^5\.5(\.\d+)?$/.test(version)) {
        throw new TargetSpecError(
          `unsupported mariadb target "${version}": MariaDB is 5.5 or 10.0 and later (did you mean mysql=${version}?)`,
        );
      }
      if (product === 'mysql' && major >= 10) {
        throw new TargetSpecError(
          `unsupported mysql target "${version}": MySQL has no version ${major} (did you mean mariadb=${version}?)`,
        );
      }
      db = { product: product as 'mysql' | 'mariadb', version };
    }
  }
  // What the base says of an httpd it leaves as it was (assumed, inferred) stays true of it.
  return httpdNamed ? { httpd, db } : { ...base, db };
}
