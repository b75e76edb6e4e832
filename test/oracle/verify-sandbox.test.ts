import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { defineRule } from '../../src/engine/define-rule.js';
import { handOver, prepareRoot, Sandbox } from '../../src/verify/sandbox.js';
import { selectRules } from '../../src/engine/selection.js';
import { apacheEnvironment } from '../../src/verify/server-tools.js';
import type { Rule } from '../../src/engine/types.js';
import { FixVerifier, VERIFY_RULE } from '../../src/verify/verify.js';
import { insertApacheLineAfter } from '../../src/languages/apache/edits.js';
import { lint } from '../../src/lint.js';
import { runCli } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';
import { findTool, requireTool } from '../helpers/tools.js';

/*
 * --verify on someone else's repository: the servers run in a
 * bubblewrap sandbox that shows them the verify copy and the system's own
 * directories only, with an environment tune-lint builds, no network, as
 * nobody, with time and memory limits; the guard, second line, reads the
 * patched files whole, as the installed server expands them. Each attack
 * below was reproduced against the earlier verifier, which ran the servers on
 * the host.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-sandbox-test-'));
fs.chmodSync(scratch, 0o755);
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function sandboxOrSkip(t: TestContext): Sandbox | undefined {
  if (requireTool(t, 'bwrap') === undefined) return undefined;
  const sandbox = Sandbox.open();
  assert.equal(typeof sandbox, 'object', `bwrap is installed but makes no sandbox: ${typeof sandbox === 'string' ? sandbox : ''}`);
  return sandbox as Sandbox;
}

/** Runs a shell script in a fresh sandbox root holding `files` (server path -> text). */
async function inSandbox(
  sandbox: Sandbox,
  script: string,
  files: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<{ stdout: string; stderr: string; timedOut: boolean; exitCode: number | null }> {
  const dir = fs.mkdtempSync(path.join(scratch, 'root-'));
  const root = path.join(dir, 'root');
  fs.mkdirSync(root);
  for (const [serverPath, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, serverPath)), { recursive: true });
    fs.writeFileSync(path.join(root, serverPath), text);
  }
  prepareRoot(root);
  handOver(dir);
  try {
    return await sandbox.run(root, {
      binary: '/bin/sh',
      args: ['-c', script],
      env: { PATH: '/usr/bin:/bin', ONLY: 'this' },
      cwd: '/',
      timeoutMs,
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the sandbox the servers run in', () => {
  it('shows the copy and the system directories, not the host files; nothing is written outside it', async (t) => {
    const sandbox = sandboxOrSkip(t);
    if (sandbox === undefined) return;
    const secret = path.join(scratch, 'host-secret.conf');
    fs.writeFileSync(secret, 'HostSecret 42\n');
    const outside = path.join(scratch, 'written-from-inside');
    const run = await inSandbox(
      sandbox,
      `cat /etc/apache2/apache2.conf; test -e ${secret} && echo SEES-HOST-FILE; test -e /etc/shadow && echo SEES-SHADOW; test -e /root && echo SEES-ROOT; touch ${outside} /etc/x /usr/x 2>/dev/null && echo WROTE; test -x /usr/sbin/apache2 -o -x /bin/sh && echo SEES-SYSTEM`,
      { '/etc/apache2/apache2.conf': 'Listen 80\n' },
    );
    assert.equal(run.stdout, 'Listen 80\nSEES-SYSTEM\n');
    assert.equal(fs.existsSync(outside), false);
  });

  it('has only the environment it is given, no network but loopback, no capabilities, and is not root', async (t) => {
    const sandbox = sandboxOrSkip(t);
    if (sandbox === undefined) return;
    const run = await inSandbox(
      sandbox,
      'env | sort; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "; id -u; grep CapEff /proc/self/status',
    );
    const lines = run.stdout.trim().split('\n');
    assert.deepEqual(
      lines.filter((line) => line.includes('=')).filter((line) => !/^(PWD|SHLVL|_)=/.test(line)),
      ['ONLY=this', 'PATH=/usr/bin:/bin'],
    );
    assert.deepEqual(
      lines.filter((line) => /^[a-z0-9]+$/.test(line) && !/^\d+$/.test(line)),
      ['lo'],
      'a network namespace of its own: only an unconfigured loopback',
    );
    const uid = lines.find((line) => /^\d+$/.test(line));
    if (process.getuid?.() === 0) assert.equal(uid, '65534', 'root runs the servers as nobody');
    assert.match(run.stdout, /CapEff:\s+0+\n/);
  });

  it('a check that does not finish is killed at its time limit, with everything it started', async (t) => {
    const sandbox = sandboxOrSkip(t);
    if (sandbox === undefined) return;
    const started = Date.now();
    const run = await inSandbox(sandbox, 'sleep 31.25 & sleep 31.5', {}, 500);
    assert.equal(run.timedOut, true);
    assert.ok(Date.now() - started < 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const left = fs
      .readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid))
      .filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('31.25');
        } catch {
          return false;
        }
      });
    assert.deepEqual(left, [], 'no process of the sandbox outlives it');
  });

  it('bounds the address space of what it runs', async (t) => {
    const sandbox = sandboxOrSkip(t);
    if (sandbox === undefined) return;
    const run = await inSandbox(sandbox, 'grep "Max address space" /proc/self/limits');
    assert.match(run.stdout, /Max address space\s+4294967296\s+4294967296/);
  });

  it('says why there is none when bwrap is missing', () => {
    const empty = fs.mkdtempSync(path.join(scratch, 'no-tools-'));
    assert.equal(Sandbox.open([empty]), 'bubblewrap (bwrap) is not installed');
  });
});

describe('the environment the servers get', () => {
  it("keeps envvars' APACHE_* variables and nothing that steers the loader or the C library", () => {
    const env = apacheEnvironment(
      'export APACHE_RUN_USER=www-data\nexport LD_PRELOAD=/repo/evil.so\nexport LD_LIBRARY_PATH=/repo\nexport PATH=/repo/bin\nexport LANG=xx_XX.UTF-8\nexport GCONV_PATH=/repo\nexport MALLOC_CONF=x\n',
    );
    assert.deepEqual(env, { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C', APACHE_RUN_USER: 'www-data' });
  });
});

/** A shared library whose constructor leaves `marker` behind when it is loaded; undefined without a C compiler. */
function trapLibrary(at: string, marker: string): string | undefined {
  const compiler = findTool('cc') ?? findTool('gcc');
  if (compiler === undefined) return undefined;
  const source = `${at}.c`;
  fs.writeFileSync(
    source,
    `#include <stdio.h>\n__attribute__((constructor)) static void trap(void) { FILE *f = fopen("${marker}", "w"); if (f) fclose(f); }\n`,
  );
  execFileSync(compiler, ['-shared', '-fPIC', '-o', at, source]);
  fs.rmSync(source);
  return at;
}

/** A copy of the stock prefork story (whose MaxClients AP2001 fixes) with `extra` appended to apache2.conf. */
function storyWith(name: string, extra: string): string {
  const root = fs.mkdtempSync(path.join(scratch, `${name}-`));
  fs.cpSync(repoPath('fixtures', 'apache', 'story-stock-prefork'), root, { recursive: true, verbatimSymlinks: true });
  fs.appendFileSync(path.join(root, 'etc/apache2/apache2.conf'), extra);
  return root;
}

const FACTS = ['--no-probe', '--host-ram', '500M', '--per-child', '20M'];

function verify(root: string, sysroot: boolean): { status: number | null; stdout: string; stderr: string } {
  const args = sysroot ? ['--sysroot', '.', 'etc/apache2/apache2.conf'] : [path.join(root, 'etc/apache2/apache2.conf')];
  return runCli([...FACTS, '--verify', '--format', 'diff', ...args], { cwd: root });
}

function needsServers(t: TestContext): boolean {
  return requireTool(t, 'apache2') !== undefined && requireTool(t, 'bwrap') !== undefined;
}

describe('--verify on a hostile repository (each case was an escape before the sandbox)', () => {
  it("1. LD_PRELOAD exported by the repository's envvars reaches nothing", (t) => {
    if (!needsServers(t)) return;
    const root = storyWith('ld-preload', '');
    const marker = path.join(scratch, 'preloaded');
    const library = trapLibrary(path.join(root, 'evil.so'), marker) ?? path.join(root, 'evil.so');
    fs.appendFileSync(path.join(root, 'etc/apache2/envvars'), `export LD_PRELOAD=${library}\nexport LD_LIBRARY_PATH=${root}\n`);
    for (const sysroot of [true, false]) {
      const run = verify(root, sysroot);
      assert.doesNotMatch(run.stderr, /already reports a problem|not verified|preloaded/, run.stderr);
      assert.equal(fs.existsSync(marker), false, `loaded (sysroot: ${sysroot})`);
    }
  });

  it('2. a library path with a ${VAR} the server expands, or one the include walk copies into the tree: not run', (t) => {
    if (!needsServers(t)) return;
    const root = storyWith('expanded', '');
    const marker = path.join(scratch, 'expanded-loaded');
    fs.mkdirSync(path.join(root, 'libC'));
    trapLibrary(path.join(root, 'libC', 'evil.so'), marker);
    fs.appendFileSync(path.join(root, 'etc/apache2/apache2.conf'), `LoadFile ${root}/lib\${LANG}/evil.so\n`);
    const expanded = verify(root, false);
    assert.match(expanded.stderr, /--verify: apache2 -t on .* is not run: .*LoadFile .*lib\$\{LANG\}\/evil\.so .*outside/);
    assert.equal(fs.existsSync(marker), false);

    const copied = storyWith('copied', 'LoadFile lib/evil.so\nIncludeOptional lib/evil.so\n');
    fs.mkdirSync(path.join(copied, 'etc/apache2/lib'));
    if (trapLibrary(path.join(copied, 'etc/apache2/lib/evil.so'), marker) === undefined)
      fs.writeFileSync(path.join(copied, 'etc/apache2/lib/evil.so'), 'x');
    const run = verify(copied, true);
    assert.match(
      run.stderr,
      /is not run: .*LoadFile lib\/evil\.so \(etc\/apache2\/apache2\.conf:\d+\): a file of the repository, not a system library/,
    );
    assert.equal(fs.existsSync(marker), false);
  });

  it("3. a LoadFile in a branch the target skips, or plugin options in another product's group: still refused", (t) => {
    if (!needsServers(t)) return;
    const root = storyWith(
      'ifversion',
      '<IfVersion < 2.4.999>\n<IfVersion > 2.4.998>\nLoadFile /srv/evil.so\n</IfVersion>\n</IfVersion>\n',
    );
    fs.mkdirSync(path.join(root, 'srv'));
    fs.writeFileSync(path.join(root, 'srv/evil.so'), 'x');
    assert.match(verify(root, true).stderr, /is not run: .*LoadFile \/srv\/evil\.so \(etc\/apache2\/apache2\.conf:\d+\)/);

    if (requireTool(t, 'mariadbd') === undefined) return;
    const mycnf = fs.mkdtempSync(path.join(scratch, 'groups-'));
    fs.writeFileSync(path.join(mycnf, '.tune-lint.yaml'), 'target:\n  mariadb: "10.6"\n');
    fs.writeFileSync(
      path.join(mycnf, 'my.cnf'),
      '[mysqld]\nset-variable = max_connections=15\n[mariadb-10.11]\nplugin-load-add = evil.so\nplugin_dir = /srv\n',
    );
    const run = runCli(['--no-probe', '--verify', '--format', 'diff', '--sysroot', '.', 'my.cnf'], { cwd: mycnf });
    assert.match(
      run.stderr,
      /--verify: mariadbd is not run on my\.cnf: it would load libraries the options name \(plugin-load-add=evil\.so \(my\.cnf:4\)/,
    );
  });

  it('4. a LoadFile in a <Macro> body: refused', (t) => {
    if (!needsServers(t)) return;
    const root = storyWith(
      'macro',
      'LoadModule macro_module /usr/lib/apache2/modules/mod_macro.so\n<Macro Evil>\nLoadFile /srv/evil.so\n</Macro>\nUse Evil\n',
    );
    fs.mkdirSync(path.join(root, 'srv'));
    fs.writeFileSync(path.join(root, 'srv/evil.so'), 'x');
    assert.match(verify(root, true).stderr, /is not run: .*LoadFile \/srv\/evil\.so \(etc\/apache2\/apache2\.conf:\d+\)/);
  });

  it("5. tune-lint's own safe fix turning set-variable into plugin options: the patched files are guarded", async (t) => {
    if (
      requireTool(t, 'mariadbd') === undefined ||
      requireTool(t, 'my_print_defaults') === undefined ||
      requireTool(t, 'bwrap') === undefined
    )
      return;
    const dir = fs.mkdtempSync(path.join(scratch, 'set-variable-'));
    fs.writeFileSync(path.join(dir, 'my.cnf'), '[mysqld]\nset-variable = plugin_dir=/srv\nset-variable = plugin_load_add=evil.so\n');
    fs.chmodSync(path.join(dir, 'my.cnf'), 0o644);
    const result = await lint({ paths: ['my.cnf'], cwd: dir, rules: selectRules(builtinRules, 'all', new Map()) });
    assert.match(
      result.fixes[0]?.after ?? '',
      /^plugin_load_add = evil\.so$|^plugin_load_add=evil\.so$/m,
      'the safe fix writes the plugin option',
    );
    const notes: string[] = [];
    await new FixVerifier({ cwd: dir, onNote: (note) => notes.push(note) }).verify(result);
    assert.ok(
      notes.some((note) =>
        note.includes('mariadbd is not run on my.cnf: it would load libraries the options name (plugin_dir=/srv (my.cnf:2)'),
      ),
      `the option as the patch writes it is what the guard names: ${notes.join('\n')}`,
    );
  });

  it('6. no route to a host file: the server sees only the copy, and quotes no file outside the configuration', (t) => {
    if (!needsServers(t)) return;
    const secret = path.join(scratch, 'secret.conf');
    fs.writeFileSync(secret, 'SecretDirective s3cr3t-content\n');
    const routes = [
      `Include ../../../../../../..${secret}\n`,
      `Define SECRET ${secret}\nInclude \${SECRET}\n`,
      `Include \\\n ${secret}\n`,
      `\vInclude ${secret}\n`,
    ];
    for (const route of routes) {
      const root = storyWith('route', route);
      const run = verify(root, true);
      assert.doesNotMatch(`${run.stdout}${run.stderr}`, /s3cr3t|SecretDirective/, JSON.stringify(route));
    }
    if (requireTool(t, 'mariadbd') === undefined) return;
    const mycnf = fs.mkdtempSync(path.join(scratch, 'mycnf-route-'));
    fs.writeFileSync(path.join(mycnf, 'my.cnf'), `[mysqld]\nset-variable = max_connections=15\n!include ../../../../../..${secret}\n`);
    const run = runCli(['--no-probe', '--verify', '--format', 'json', '--sysroot', '.', 'my.cnf'], { cwd: mycnf });
    assert.doesNotMatch(`${run.stdout}${run.stderr}`, /s3cr3t|SecretDirective/);
  });

  it('the variables given with --env reach apache2 in the sandbox, LD_PRELOAD among them not', (t) => {
    if (!needsServers(t)) return;
    const root = storyWith('given-env', 'Listen ${EXTRA_PORT}\n');
    const marker = path.join(scratch, 'given-preload');
    const library = trapLibrary(path.join(root, 'etc/apache2/given.so'), marker) ?? path.join(root, 'etc/apache2/given.so');
    const without = runCli([...FACTS, '--verify', '--format', 'diff', '--sysroot', '.', 'etc/apache2/apache2.conf'], { cwd: root });
    assert.match(without.stderr, /already reports a problem without the patch/);
    const given = runCli(
      [
        ...FACTS,
        '--verify',
        '--format',
        'diff',
        '--env',
        'EXTRA_PORT=8080',
        '--env',
        `LD_PRELOAD=${library}`,
        '--sysroot',
        '.',
        'etc/apache2/apache2.conf',
      ],
      { cwd: root },
    );
    assert.doesNotMatch(given.stderr, /already reports a problem|preload/, given.stderr);
    assert.equal(fs.existsSync(marker), false);
  });

  it('11. a check that does not finish is a failure, not "no new problem"', async (t) => {
    if (!needsServers(t)) return;
    const root = storyWith('timeout', '');
    const touchListen = defineRule('apache', {
      meta: {
        id: 'AP9103',
        name: 'test-comment',
        category: 'style',
        description: 'test',
        defaultSeverity: 'warn',
        recommended: true,
        fix: 'safe',
        messages: { m: 'm' },
      },
      create: (ctx) => ({
        directive: {
          listen: (use) =>
            use.file.text.includes('# checked')
              ? undefined
              : ctx.report({ at: use, messageId: 'm', fix: () => insertApacheLineAfter(use, '# checked') }),
        },
      }),
    });
    const result = await lint({
      paths: ['etc/apache2/apache2.conf'],
      cwd: root,
      sysroot: root,
      rules: selectRules([touchListen] as Rule[], 'all', new Map()),
    });
    assert.equal(result.fixes.length, 1);
    const checked = await new FixVerifier({ cwd: root, sysroot: root, timeoutMs: 1 }).verify(result);
    assert.deepEqual(checked.fixes, []);
    const rejected = checked.diagnostics.filter((diagnostic) => diagnostic.ruleId === VERIFY_RULE.id);
    assert.equal(rejected.length, 1);
    assert.match(
      rejected[0]?.message ?? '',
      /apache2 -t on etc\/apache2\/apache2\.conf: did not finish in 0\.001 s on the configuration as it is/,
    );
  });
});
