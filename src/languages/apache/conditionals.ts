import type { Severity } from '../../core/types.js';
import { compareVersions } from '../../core/targets.js';
import { httpdRelease } from './release.js';
import { sectionLabel, type ApacheSectionUse, type ConditionalEvaluation } from './uses.js';

/** What the conditional sections ask of the server: its version, its modules, its defines, the files it can see. */
export interface ConditionalFacts {
  readonly httpd: string;
  hasModule(name: string): boolean;
  defined(name: string): boolean;
  exists(file: string): boolean;
}

/**
 * Whether a conditional section holds, as httpd decides `<IfModule>`,
 * `<IfDefine>`, `<IfVersion>` (mod_version) and `<IfFile>`, each negated by a
 * leading `!`; a condition only the server binary can tell is assumed to
 * hold, with a note. A refused `<IfVersion>` is a problem: httpd stops there.
 */
export function evaluateConditional(
  section: ApacheSectionUse,
  facts: ConditionalFacts,
): { evaluation: ConditionalEvaluation; problem?: { ruleId: string; severity: Severity; message: string } } {
  let negated = false;
  let subject = section.args[0] ?? '';
  if (subject === '!') {
    negated = true;
    subject = section.args[1] ?? '';
  } else if (subject.startsWith('!')) {
    negated = true;
    subject = subject.slice(1);
  }
  let truth: boolean;
  let problem: { ruleId: string; severity: Severity; message: string } | undefined;
  switch (section.name) {
    case 'ifmodule':
      truth = facts.hasModule(subject);
      break;
    case 'ifdefine':
      truth = facts.defined(subject);
      break;
    case 'ifversion': {
      const verdict = ifVersionHolds(facts.httpd, section.args);
      negated = false;
      // httpd stops at a refused one; what the section holds is read as if it did not hold, so the rest can be linted.
      if (typeof verdict === 'string')
        problem = { ruleId: 'TL0001', severity: 'error', message: `${sectionLabel(section.node)}: ${verdict}` };
      truth = verdict === true;
      break;
    }
    case 'iffile':
      truth = facts.exists(subject);
      break;
    default: {
      const message = `<${section.node.name} ${section.args.join(' ')}> cannot be evaluated without the server binary; assumed true`;
      return {
        evaluation: { section, subject, negated, result: !negated, assumed: true },
        problem: { ruleId: 'TL0007', severity: 'info', message },
      };
    }
  }
  const evaluation = { section, subject, negated, result: negated ? !truth : truth, assumed: false };
  return problem === undefined ? { evaluation } : { evaluation, problem };
}

/**
 * Whether `<IfVersion [[!]op] version>` holds for the target, read as
 * mod_version's start_ifversion reads it, or the error with which httpd
 * refuses the line: a `!` stands only in front of an operator, the
 * operators are =, ==, <, <=, >, >= and ~, `= /re/` is a regex, and a
 * version is up to three numbers (a part left out is 0).
 */
// eslint-disable-next-line complexity -- mod_version's match_version and compare_version (modules/core/mod_version.c), operator by operator
function ifVersionHolds(target: string, args: readonly string[]): boolean | string {
  if (args.length > 3) return '<IfVersion takes one, two or three arguments, a comparison operator, a version (and a delimiter)';
  // A third word is httpd's closing '>' standing alone; the reader has taken that off already.
  if (args.length === 3) return "<IfVersion> directive missing closing '>'";
  const [written, version] = args.length === 2 ? (args as [string, string]) : ['=', args[0] ?? ''];
  const reverse = written.startsWith('!');
  const operator = reverse && written.length > 1 ? written.slice(1) : written;
  const [kind, suffix] = [operator[0], operator.slice(1)];
  if (!(suffix === '' || (suffix === '=' && kind !== '~'))) return `unrecognized operator '${written}'`;
  let match: boolean;
  switch (kind) {
    case '=':
    case '~': {
      const regex = kind === '~' ? version : version.startsWith('/') ? version.slice(1) : undefined;
      if (regex === undefined) {
        const order = compareWithConfigVersion(target, version);
        if (order === undefined) return INVALID_VERSION;
        match = order === 0;
        break;
      }
      if (kind === '=' && (regex === '' || !regex.endsWith('/'))) return 'Missing delimiting / of regular expression.';
      try {
        match = new RegExp(kind === '=' ? regex.slice(0, -1) : regex).test(httpdRelease(target));
      } catch {
        return 'Regular expression could not be compiled.';
      }
      break;
    }
    case '<':
    case '>': {
      const order = compareWithConfigVersion(target, version);
      if (order === undefined) return INVALID_VERSION;
      match = (kind === '<' ? order < 0 : order > 0) || (suffix === '=' && order === 0);
      break;
    }
    default:
      return `unrecognized operator '${written}'`;
  }
  return reverse ? !match : match;
}

const INVALID_VERSION =
  'Version appears to be invalid. It must have the format major[.minor[.patch]] where major, minor and patch are numbers.';

/**
 * The target against a version in the config, as mod_version compares: up to
 * three dot-separated numbers starting with a digit, a part left out being 0;
 * undefined for anything else. With a target of "2.4" (a current 2.4),
 * `<IfVersion = 2.4>` does not hold, as on httpd 2.4.71.
 */
function compareWithConfigVersion(target: string, version: string): number | undefined {
  if (!/^\d[\d.]*$/.test(version)) return undefined;
  const parts = version.split('.');
  // Three numbers at most; an empty part ("2..4", "2.") is read as 0, as atoi reads it.
  if (parts.length > 3 && !(parts.length === 4 && parts[3] === '')) return undefined;
  return compareVersions(target, [...parts.slice(0, 3).map((part) => String(Number(part || '0'))), '0', '0'].slice(0, 3).join('.'));
}
