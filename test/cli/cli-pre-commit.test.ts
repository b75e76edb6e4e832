import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { CLI, CLI_NODE, removeScratch, scratchDir, writeFiles } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';
import { requireTool } from '../helpers/tools.js';

/*
 * The real pre-commit in a throw-away git repository. The hooks are the ones
 * of .pre-commit-hooks.yaml, run as a `repo: local` hook of this checkout:
 * same id, files, pass_filenames and arguments, with `tune-lint` in the entry
 * replaced by this build (`language: system`), so nothing is fetched.
 */
interface HookDefinition {
  readonly id: string;
  readonly name: string;
  readonly entry: string;
  readonly language: string;
  readonly files: string;
  readonly pass_filenames: boolean;
  readonly types?: readonly string[];
  readonly types_or?: readonly string[];
  readonly stages?: readonly string[];
}

const hooks = parse(fs.readFileSync(repoPath('.pre-commit-hooks.yaml'), 'utf8')) as HookDefinition[];
const scratch = scratchDir('pre-commit');
after(() => removeScratch(scratch));

/** The MPM is loaded in apache2.conf; the included file alone holds no MPM and would say nothing. */
const APACHE2_CONF =
  '# the web server of this repository\nLoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\nLoadModule php_module /usr/lib/apache2/modules/libphp8.2.so\nInclude /etc/apache2/mods/*.conf\nListen 80\n';
const MPM = (workers: number): string => `<IfModule mpm_prefork_module>\n    MaxRequestWorkers ${workers}\n</IfModule>\n`;

function localConfig(): string {
  const local = hooks.map((hook) => ({
    id: hook.id,
    name: hook.name,
    entry: hook.entry.replace(/^tune-lint\b/, `${JSON.stringify(CLI_NODE)} ${JSON.stringify(CLI)}`),
    language: 'system',
    files: hook.files,
    ...(hook.types === undefined ? {} : { types: hook.types }),
    ...(hook.types_or === undefined ? {} : { types_or: hook.types_or }),
    pass_filenames: hook.pass_filenames,
    ...(hook.stages === undefined ? {} : { stages: hook.stages }),
  }));
  return `${JSON.stringify({ repos: [{ repo: 'local', hooks: local }] }, null, 2)}\n`;
}

/** A throw-away git repository with the hooks installed: `run` a command in it, `commit` all that changed. */
function gitRepository(repo: string, git: string, preCommit: string) {
  fs.mkdirSync(repo, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: scratch,
    PRE_COMMIT_HOME: path.join(scratch, 'cache'),
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.org',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.org',
    GIT_CONFIG_NOSYSTEM: '1',
  };
  const run = (command: string, args: readonly string[]) => {
    const result = spawnSync(command, args, { cwd: repo, env, encoding: 'utf8', timeout: 120_000 });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  };
  const commit = (message: string) => {
    assert.equal(run(git, ['add', '-A']).status, 0);
    return run(git, ['commit', '-q', '-m', message]);
  };
  assert.equal(run(git, ['init', '-q']).status, 0);
  writeFiles(repo, { '.pre-commit-config.yaml': localConfig(), 'README.md': '# configs\n' });
  const installed = run(preCommit, ['install']);
  assert.equal(installed.status, 0, installed.output);
  return { run, commit };
}

describe('pre-commit', () => {
  it('the hooks file: node hooks that take no file names and watch Apache and my.cnf names and trees', () => {
    assert.deepEqual(
      hooks.map((hook) => hook.id),
      ['tune-lint', 'tune-lint-fix'],
    );
    for (const hook of hooks) {
      assert.equal(hook.language, 'node');
      assert.equal(hook.pass_filenames, false, 'an included file means nothing alone: the main configs are linted whole');
      assert.match(hook.entry, /^tune-lint --no-probe --sysroot \. ?/);
      const files = new RegExp(hook.files);
      for (const name of [
        'etc/apache2/apache2.conf',
        'etc/httpd/conf/httpd.conf',
        'etc/apache2/mods-available/mpm_prefork.load',
        'etc/apache2/envvars',
        'www/.htaccess',
        'etc/mysql/my.cnf',
        'etc/mysql/conf.d/50-server.cnf',
        'my.ini',
        '.tune-lint.yaml',
      ]) {
        assert.match(name, files);
      }
      // An included file may have any name: ISPmanager's vhost files (IncludeOptional conf/vhosts/*/*) have none.
      for (const name of ['etc/httpd/conf/vhosts/user1/example.com', 'etc/apache2/magic', 'etc/mysql/mariadb.conf.d/x'])
        assert.match(name, files);
      for (const name of ['README.md', 'site.yaml', 'php.ini', 'etc/php/8.2/fpm/pool.d/www']) assert.doesNotMatch(name, files);
    }
    assert.deepEqual(hooks[1]?.stages, ['manual'], 'the fixing hook runs only when asked for');
    for (const hook of hooks) {
      assert.deepEqual(hook.types, [], "pre-commit's default, [file], leaves symlinks out");
      assert.deepEqual(hook.types_or, ['file', 'symlink'], 'a2enmod changes only a symlink');
    }
  });

  it('npm pack prints only the tarball name, as pre-commit needs to install a node hook whose package has a prepare script', (t) => {
    const npm = requireTool(t, 'npm');
    if (npm === undefined) return;
    const manifest = JSON.parse(fs.readFileSync(repoPath('package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.ok(manifest.scripts.prepare !== undefined, 'tune-lint builds on install from git, with prepare');
    const pkg = path.join(scratch, 'pack');
    writeFiles(pkg, {
      'package.json': JSON.stringify({ name: 'pack-probe', version: '1.0.0', scripts: { prepare: 'echo built' } }),
      'index.js': '',
    });
    fs.copyFileSync(repoPath('.npmrc'), path.join(pkg, '.npmrc'));
    const result = spawnSync(npm, ['pack'], {
      cwd: pkg,
      encoding: 'utf8',
      env: { ...process.env, NPM_CONFIG_USERCONFIG: path.join(scratch, 'no-npmrc') },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'pack-probe-1.0.0.tgz', 'with the prepare banner on stdout pre-commit takes it for the file name');
  });

  it('a commit that only changes symlinks (a2enmod) is linted; a link to a file the repository lacks is a finding, the rest is linted', (t) => {
    const preCommit = requireTool(t, 'pre-commit');
    const git = requireTool(t, 'git');
    if (preCommit === undefined || git === undefined) return;
    const { run, commit } = gitRepository(path.join(scratch, 'links'), git, preCommit);
    const available = 'etc/apache2/mods-available';
    writeFiles(path.join(scratch, 'links'), {
      '.tune-lint.yaml': 'host: { ram: 8G, perChild: 20M }\n',
      'etc/apache2/apache2.conf': 'IncludeOptional mods-enabled/*.load\nListen 80\n',
      [`${available}/mpm_event.load`]: 'LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so\n',
      [`${available}/mpm_prefork.load`]: 'LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\n',
    });
    const enabled = path.join(scratch, 'links', 'etc/apache2/mods-enabled');
    fs.mkdirSync(enabled);
    fs.symlinkSync('../mods-available/mpm_event.load', path.join(enabled, 'mpm_event.load'));
    const first = commit('apache with event');
    assert.equal(first.status, 0, first.output);
    // a2enmod mpm_prefork without a2dismod mpm_event: two MPMs, which httpd refuses. The commit holds one new symlink.
    fs.symlinkSync('../mods-available/mpm_prefork.load', path.join(enabled, 'mpm_prefork.load'));
    const twoMpms = commit('a2enmod mpm_prefork');
    assert.notEqual(twoMpms.status, 0, twoMpms.output);
    assert.match(twoMpms.output, /tune-lint\.+Failed/);
    assert.match(twoMpms.output, /AP1007/);
    fs.unlinkSync(path.join(enabled, 'mpm_event.load'));
    // Debian's my.cnf is a link into /etc/alternatives, which a repository of /etc/mysql does not hold.
    fs.mkdirSync(path.join(scratch, 'links', 'etc/mysql'));
    fs.symlinkSync('/etc/alternatives/my.cnf', path.join(scratch, 'links', 'etc/mysql/my.cnf'));
    const dangling = commit('a2dismod mpm_event, and /etc/mysql');
    assert.equal(dangling.status, 0, dangling.output);
    assert.match(dangling.output, /tune-lint\.+Passed/);
    const report = run(process.execPath, [CLI, '--no-probe', '--sysroot', '.']);
    assert.match(
      report.output,
      /etc\/mysql\/my\.cnf\n {2}1:1 {2}warn +a link to \/etc\/alternatives\/my\.cnf, which is not in the repository: not linted/,
    );
  });

  it('a commit with an over-committed Apache is refused, then accepted once fixed; an included file alone is linted in its tree', (t) => {
    const preCommit = requireTool(t, 'pre-commit');
    const git = requireTool(t, 'git');
    if (preCommit === undefined || git === undefined) return;
    const repo = path.join(scratch, 'repo');
    const { run, commit } = gitRepository(repo, git, preCommit);
    const commits = () => run(git, ['rev-list', '--count', 'HEAD']).output.trim();

    const docs = commit('docs');
    assert.equal(docs.status, 0, docs.output);
    assert.match(docs.output, /tune-lint\.+\(no files to check\)Skipped/, 'no config changed: the hook does not run');

    writeFiles(repo, {
      '.tune-lint.yaml': 'host: { ram: 500M, perChild: 20M }\n',
      'etc/apache2/apache2.conf': APACHE2_CONF,
      'etc/apache2/mods/mpm.conf': MPM(150),
    });
    const refused = commit('apache');
    assert.notEqual(refused.status, 0, refused.output);
    assert.match(refused.output, /tune-lint\.+Failed/);
    assert.match(refused.output, /etc\/apache2\/mods\/mpm\.conf\n {2}2:5 {2}error {2}MaxRequestWorkers 150 x 20 MiB = 2.9 GiB/);
    assert.match(refused.output, /RAM 500 MiB \(from \.tune-lint\.yaml\)/);
    assert.equal(commits(), '1');

    const fixed = run(preCommit, ['run', 'tune-lint-fix', '--hook-stage', 'manual']);
    assert.match(fixed.output, /files were modified by this hook/, fixed.output);
    assert.match(fs.readFileSync(path.join(repo, 'etc/apache2/mods/mpm.conf'), 'utf8'), /^ {4}MaxRequestWorkers 21$/m);
    const accepted = commit('apache, sized');
    assert.equal(accepted.status, 0, accepted.output);
    assert.match(accepted.output, /tune-lint\.+Passed/);
    assert.equal(commits(), '2');

    writeFiles(repo, { 'etc/apache2/mods/mpm.conf': MPM(100) });
    const included = commit('more workers');
    assert.notEqual(included.status, 0, included.output);
    assert.match(
      included.output,
      /MaxRequestWorkers 100 x 20 MiB = 2 GiB exceeds the web tier budget/,
      'read through apache2.conf, with its MPM',
    );
    assert.equal(commits(), '2');
  });
});
