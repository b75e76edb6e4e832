import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';

interface Generated {
  readonly program: unknown;
  readonly usage: string;
  readonly version: string;
  readonly ruleIds: readonly string[];
}

interface Generator {
  generate(root: string): Promise<Generated>;
  manPage(program: unknown, usage: string, version: string, date: string): string;
  bashCompletion(program: unknown, ruleIds: readonly string[]): string;
}

/** Every long and short flag of the Options section of `tune-lint [command] --help`. */
function helpFlags(args: readonly string[]): string[] {
  const help = runCli([...args, '--help'], { cwd: os.tmpdir() }).stdout;
  const options = help.split('\nOptions:\n')[1]?.split('\n\n')[0] ?? '';
  return [...options.matchAll(/^ {2}(?:(-\w), )?(--[\w-]+)/gm)].flatMap((match) =>
    [match[1], match[2]].filter((flag): flag is string => flag !== undefined),
  );
}

/*
 * tune-lint(1) and the bash completion are generated from the CLI's own
 * definitions when the packages are built; these tests hold them to what the
 * binary's --help says, so a flag added without them fails here.
 */
describe('the man page and the bash completion', () => {
  const load = async (): Promise<{ generator: Generator; generated: Generated }> => {
    const generator = (await import(repoPath('scripts', 'man-and-completion.mjs'))) as Generator;
    return { generator, generated: await generator.generate(repoPath()) };
  };

  it('tune-lint(1) names every flag of every command, the exit codes of docs/usage.md, and renders with man', async () => {
    const { generator, generated } = await load();
    const page = generator.manPage(generated.program, generated.usage, generated.version, '2026-12-02');
    const unescaped = page.replace(/\\-/g, '-');
    for (const args of [[], ['dump'], ['rules'], ['probe']]) {
      for (const flag of helpFlags(args)) {
        if (flag === '-h' || flag === '--help') continue;
        assert.ok(unescaped.includes(flag), `tune-lint(1) does not name ${flag} of tune-lint ${args.join(' ')}`);
      }
    }
    assert.match(page, /^\.SH EXIT STATUS\n\.TP\n\\fB0\\fR\n/m);
    const rendered = spawnSync('man', ['-l', '-'], {
      input: page,
      encoding: 'utf8',
      env: { ...process.env, MANWIDTH: '80', MAN_KEEP_FORMATTING: '' },
    });
    if (rendered.error === undefined) {
      assert.equal(rendered.status, 0, rendered.stderr);
      assert.match(rendered.stdout, /--mysql-defaults-file/);
    }
  });

  it("the completion offers the commands, every flag, each command's choices, every rule id and its severities, and is valid bash", async () => {
    const { generator, generated } = await load();
    const script = generator.bashCompletion(generated.program, generated.ruleIds);
    assert.equal(spawnSync('bash', ['-n'], { input: script }).status, 0);
    const complete = (words: readonly string[]): string[] => {
      const run = spawnSync(
        'bash',
        [
          '-c',
          `${script}\ncompopt() { :; }\nCOMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tune_lint; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8', cwd: os.tmpdir() },
      );
      return run.stdout.split('\n').filter((line) => line !== '');
    };
    assert.deepEqual(complete(['tune-lint', 'pro']).slice(0, 1), ['probe']);
    assert.ok(complete(['tune-lint', '--rule', 'PF10']).includes('PF1001='));
    assert.deepEqual(complete(['tune-lint', '--format', 's']), ['stylish', 'sarif']);
    assert.deepEqual(complete(['tune-lint', '--format', 'g']), ['gcc', 'gitlab']);
    // fleet's --format is its own: html, and no diff.
    assert.deepEqual(complete(['tune-lint', 'fleet', '--format', '']), ['stylish', 'json', 'sarif', 'html']);
    assert.deepEqual(complete(['tune-lint', '--rule', 'AP2001', '=', 'w']), ['warn']);
    const flags = complete(['tune-lint', '--']);
    for (const flag of helpFlags([]).filter((candidate) => candidate.startsWith('--'))) assert.ok(flags.includes(flag), flag);
    assert.ok(complete(['tune-lint', 'probe', '--']).includes('--mysql-defaults-file'));
  });
});
