import { createHash } from 'node:crypto';
import type { Diagnostic, Severity } from '../engine/types.js';
import { docsUrl } from '../docs-url.js';
import { printable } from '../util/printable.js';
import { writeLines } from '../util/streamed-output.js';
import { visibleDiagnostics } from './shared.js';
import type { FormatInput, StreamingFormatter } from './types.js';

/*
 * The formats CI systems and editors read, each a small projection of the
 * same diagnostics: one line per finding as gcc prints them (Vim's and
 * Emacs' quickfix, GitHub's and GitLab's problem matchers), Checkstyle XML
 * (Jenkins' warnings plugin, reviewdog), JUnit XML (every CI's test report:
 * a file is a test case, its findings its failures) and GitLab's Code
 * Quality JSON (merge request widgets).
 */

function shown(input: FormatInput): Diagnostic[] {
  return input.units.flatMap((unit) => visibleDiagnostics(unit.result.diagnostics, input.quiet));
}

const GCC_SEVERITY: Readonly<Record<Severity, string>> = { error: 'error', warn: 'warning', info: 'note' };

/** `etc/apache2/apache2.conf:12:5: error: MaxRequestWorkers 150 ... [AP2001]`. */
export const writeGccReport: StreamingFormatter = (input, write) => {
  writeLines(
    shown(input).map(
      (diagnostic) =>
        `${printable(diagnostic.file.displayPath)}:${diagnostic.start.line}:${diagnostic.start.column}: ` +
        `${GCC_SEVERITY[diagnostic.severity]}: ${printable(diagnostic.message)} [${diagnostic.ruleId}]`,
    ),
    write,
  );
};

function xml(text: string): string {
  return (
    printable(text)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // XML 1.0 has no place for the other control characters, escaped or not.
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}

function byFile(diagnostics: readonly Diagnostic[]): Map<string, Diagnostic[]> {
  const files = new Map<string, Diagnostic[]>();
  for (const diagnostic of diagnostics) {
    const list = files.get(diagnostic.file.displayPath);
    if (list === undefined) files.set(diagnostic.file.displayPath, [diagnostic]);
    else list.push(diagnostic);
  }
  return files;
}

const CHECKSTYLE_SEVERITY: Readonly<Record<Severity, string>> = { error: 'error', warn: 'warning', info: 'info' };

/** Checkstyle 4.3's XML, as ESLint's checkstyle formatter writes it; `source` is the rule id. */
export const writeCheckstyleReport: StreamingFormatter = (input, write) => {
  const lines = ['<?xml version="1.0" encoding="utf-8"?>', '<checkstyle version="4.3">'];
  for (const [file, list] of byFile(shown(input))) {
    lines.push(`  <file name="${xml(file)}">`);
    for (const diagnostic of list) {
      lines.push(
        `    <error line="${diagnostic.start.line}" column="${diagnostic.start.column}" severity="${CHECKSTYLE_SEVERITY[diagnostic.severity]}" ` +
          `message="${xml(diagnostic.message)}" source="tune-lint.${diagnostic.ruleId}" />`,
      );
    }
    lines.push('  </file>');
  }
  lines.push('</checkstyle>');
  writeLines(lines, write);
};

/**
 * JUnit XML: one test case per file read, failed by its errors and
 * warnings (notes are the case's system-out), so a CI's test tab lists the
 * files and what is wrong in each.
 */
export const writeJunitReport: StreamingFormatter = (input, write) => {
  const files = input.units.flatMap((unit) => unit.result.files.map((file) => file.displayPath));
  const findings = byFile(shown(input));
  const cases: string[] = [];
  let failures = 0;
  for (const file of [...new Set(files)]) {
    const list = findings.get(file) ?? [];
    const failing = list.filter((diagnostic) => diagnostic.severity !== 'info');
    failures += failing.length === 0 ? 0 : 1;
    const describe = (diagnostic: Diagnostic) =>
      `${diagnostic.start.line}:${diagnostic.start.column} ${diagnostic.severity} ${diagnostic.message} (${diagnostic.ruleId})`;
    const body = [
      ...failing.map(
        (diagnostic) =>
          `      <failure type="${diagnostic.ruleId}" message="${xml(diagnostic.message)}">${xml(`${describe(diagnostic)}${diagnostic.detail === undefined ? '' : `\n${diagnostic.detail}`}`)}</failure>`,
      ),
      ...list
        .filter((diagnostic) => diagnostic.severity === 'info')
        .map((diagnostic) => `      <system-out>${xml(describe(diagnostic))}</system-out>`),
    ];
    cases.push(
      body.length === 0
        ? `    <testcase classname="tune-lint" name="${xml(file)}" />`
        : [`    <testcase classname="tune-lint" name="${xml(file)}">`, ...body, '    </testcase>'].join('\n'),
    );
  }
  const total = cases.length;
  writeLines(
    [
      '<?xml version="1.0" encoding="utf-8"?>',
      `<testsuites name="tune-lint" tests="${total}" failures="${failures}">`,
      `  <testsuite name="tune-lint" tests="${total}" failures="${failures}" errors="0">`,
      ...cases,
      '  </testsuite>',
      '</testsuites>',
    ],
    write,
  );
};

const GITLAB_SEVERITY: Readonly<Record<Severity, string>> = { error: 'major', warn: 'minor', info: 'info' };

/**
 * GitLab Code Quality: an array of issues with a stable fingerprint (rule,
 * file, message and which of its kind it is, not the line, so a finding
 * that moves is the same one).
 */
export const writeGitlabReport: StreamingFormatter = (input, write) => {
  // The same finding twice in a file (two vhosts alike) needs two fingerprints: the key is counted.
  const seen = new Map<string, number>();
  const fingerprint = (diagnostic: Diagnostic): string => {
    const key = `${diagnostic.ruleId}\0${diagnostic.file.displayPath}\0${diagnostic.message}`;
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    return createHash('sha256').update(`${key}\0${occurrence}`).digest('hex');
  };
  const issues = shown(input).map((diagnostic) => ({
    type: 'issue',
    check_name: diagnostic.ruleId,
    description: `${diagnostic.message} (${diagnostic.ruleId} ${diagnostic.ruleName})`,
    content: {
      body: `${diagnostic.detail ?? ''}${diagnostic.detail === undefined ? '' : '\n\n'}${docsUrl(input.version, diagnostic.ruleId)}`,
    },
    categories: ['Bug Risk'],
    severity: GITLAB_SEVERITY[diagnostic.severity],
    fingerprint: fingerprint(diagnostic),
    location: { path: diagnostic.file.displayPath, lines: { begin: diagnostic.start.line, end: diagnostic.end.line } },
  }));
  write(`${JSON.stringify(issues, null, 2)}\n`);
};
