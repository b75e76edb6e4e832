import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { assembleTree, removeScratch, runCli } from '../helpers/cli.js';
import { requireTool } from '../helpers/tools.js';

/*
 * The formats CI systems and editors read, on the Drupal story (Apache and
 * my.cnf on a 500 MB host): each holds every finding the JSON report holds,
 * in its own shape. The XML ones are parsed by Python's own XML parser.
 */
const root = assembleTree(['fixtures/apache/story-drupal-500mb', 'fixtures/mycnf/story'], 'ci-formats');
after(() => removeScratch(root));
const ARGS = ['--no-probe', '--host-ram', '500M', '--per-child', '20M', '--sysroot', '.', 'etc/apache2/apache2.conf', 'etc/mysql/my.cnf'];

interface JsonDiagnostic {
  readonly ruleId: string;
  readonly severity: string;
  readonly message: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
}
const json = JSON.parse(runCli([...ARGS, '--format', 'json'], { cwd: root }).stdout) as { results: { diagnostics: JsonDiagnostic[] }[] };
const findings = json.results.flatMap((result) => result.diagnostics);

function parsedXml(t: import('node:test').TestContext, text: string): string | undefined {
  const python = requireTool(t, 'python3');
  if (python === undefined) return undefined;
  const run = spawnSync(
    python,
    ['-c', 'import sys, xml.dom.minidom as m; d = m.parseString(sys.stdin.buffer.read()); print(d.documentElement.tagName)'],
    { input: text, encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

describe('CI and editor formats', () => {
  it('gcc: one line per finding, file:line:col: severity: message [ID], as quickfix lists read them', () => {
    const run = runCli([...ARGS, '--format', 'gcc'], { cwd: root });
    assert.equal(run.status, 1);
    const lines = run.stdout.trimEnd().split('\n');
    assert.equal(lines.length, findings.length);
    const severity: Record<string, string> = { error: 'error', warn: 'warning', info: 'note' };
    for (const [index, finding] of findings.entries()) {
      assert.equal(
        lines[index],
        `${finding.file}:${finding.line}:${finding.column}: ${severity[finding.severity]}: ${finding.message} [${finding.ruleId}]`,
      );
    }
  });

  it('checkstyle: well-formed XML with an <error> per finding, grouped by file', (t) => {
    const run = runCli([...ARGS, '--format', 'checkstyle'], { cwd: root });
    if (parsedXml(t, run.stdout) === undefined) return;
    assert.equal(parsedXml(t, run.stdout), 'checkstyle');
    assert.equal((run.stdout.match(/<error /g) ?? []).length, findings.length);
    assert.match(run.stdout, /<file name="etc\/mysql\/my\.cnf">/);
    assert.match(run.stdout, /source="tune-lint\.AP2001"/);
  });

  it('junit: well-formed XML, a test case per file read, failed by its errors and warnings', (t) => {
    const run = runCli([...ARGS, '--format', 'junit'], { cwd: root });
    if (parsedXml(t, run.stdout) === undefined) return;
    assert.equal(parsedXml(t, run.stdout), 'testsuites');
    const failing = findings.filter((finding) => finding.severity !== 'info');
    assert.equal((run.stdout.match(/<failure /g) ?? []).length, failing.length);
    const failedFiles = new Set(failing.map((finding) => finding.file)).size;
    assert.match(run.stdout, new RegExp(`<testsuite name="tune-lint" tests="\\d+" failures="${failedFiles}" errors="0">`));
  });

  it('gitlab: Code Quality issues with distinct fingerprints and the lines', () => {
    const run = runCli([...ARGS, '--format', 'gitlab'], { cwd: root });
    const issues = JSON.parse(run.stdout) as {
      check_name: string;
      severity: string;
      fingerprint: string;
      location: { path: string; lines: { begin: number } };
    }[];
    assert.equal(issues.length, findings.length);
    assert.equal(new Set(issues.map((issue) => issue.fingerprint)).size, issues.length);
    assert.deepEqual(
      issues.map((issue) => [issue.check_name, issue.location.path, issue.location.lines.begin]),
      findings.map((finding) => [finding.ruleId, finding.file, finding.line]),
    );
    assert.ok(issues.every((issue) => ['major', 'minor', 'info'].includes(issue.severity)));
  });
});
