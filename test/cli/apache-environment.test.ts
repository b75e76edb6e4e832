import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { environmentFromFile, environmentFromFlags } from '../../src/config/env-file.js';
import { ConfigError } from '../../src/config/types.js';
import { jsonDiagnostics } from '../fuzz/child.js';
import { removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';
import { said } from '../helpers/rule-fixtures.js';

/*
 * The environment httpd starts with, from outside the config tree: containers and systemd units set ${VAR}s that apache2 -t accepts with
 * that environment, and tune-lint reported each as undefined.
 */

const dir = scratchDir('environment');
after(() => removeScratch(dir));
const CONFIG =
  'LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so\nServerName ${SERVER_NAME}\nDocumentRoot ${DOCROOT}\n';

function ap1004(args: readonly string[]): string[] {
  const run = runCli(['--no-probe', '--format', 'json', ...args, 'env.conf'], { cwd: dir });
  return jsonDiagnostics(run.stdout)
    .filter((diagnostic) => diagnostic.ruleId === 'AP1004')
    .map(said);
}

describe('--env and --env-file', () => {
  it('give ${NAME}s their values; --env wins over a file, a later file over an earlier one', () => {
    writeFiles(dir, {
      'env.conf': CONFIG,
      'docker.env': '# from docker-compose\nSERVER_NAME=www.example.org\nDOCROOT="/srv/www"\n',
      'later.env': "export DOCROOT='/srv/later'\n",
    });
    assert.deepEqual(ap1004(['--env-file', 'docker.env']), []);
    assert.deepEqual(ap1004(['--env', 'SERVER_NAME=a', '--env', 'DOCROOT=/b']), []);
    const dump = JSON.parse(
      runCli(['dump', '--json', '--env-file', 'docker.env', '--env-file', 'later.env', 'env.conf'], { cwd: dir }).stdout,
    ) as { directives: { name: string; args: string }[] };
    assert.equal(dump.directives.find((directive) => directive.name === 'DocumentRoot')?.args, '/srv/later');
    const flagWins = JSON.parse(
      runCli(['dump', '--json', '--env-file', 'later.env', '--env', 'DOCROOT=/srv/flag', 'env.conf'], { cwd: dir }).stdout,
    ) as typeof dump;
    assert.equal(flagWins.directives.find((directive) => directive.name === 'DocumentRoot')?.args, '/srv/flag');
  });

  it('without them, AP1004 says that no environment was given, and with some, where it was read from', () => {
    writeFiles(dir, { 'env.conf': CONFIG, 'partial.env': 'SERVER_NAME=www.example.org\n' });
    assert.match(
      ap1004([])[0] ?? '',
      /^\$\{SERVER_NAME\} is not defined here .*; no Define above this line sets it; no environment was given with --env, --env-file or env: in \.tune-lint\.yaml; httpd warns/,
    );
    assert.deepEqual(ap1004(['--env-file', 'partial.env']), [
      '${DOCROOT} is not defined here and stays literal; expected a Define DOCROOT before this line, or the right name; no Define above this line sets it; the environment read from --env-file partial.env does not set it; httpd warns "AH00111: Config variable ${DOCROOT} is not defined" and keeps the text as written',
    ]);
  });

  it('env: in .tune-lint.yaml gives values too, named as the source; --env-file and --env win over it', () => {
    const project = path.join(dir, 'project');
    writeFiles(project, {
      'env.conf': CONFIG,
      '.tune-lint.yaml': 'env:\n  SERVER_NAME: www.example.org\n',
      'docroot.env': 'DOCROOT=/srv\n',
    });
    const run = (args: readonly string[]) =>
      jsonDiagnostics(runCli(['--no-probe', '--format', 'json', ...args, 'env.conf'], { cwd: project }).stdout)
        .filter((diagnostic) => diagnostic.ruleId === 'AP1004')
        .map(said);
    assert.deepEqual(
      run([]).map((text) => /the environment read from ([^;]+) does not set it/.exec(text)?.[1]),
      ['.tune-lint.yaml'],
      'only ${DOCROOT} is left, and the yaml is named',
    );
    assert.deepEqual(run(['--env-file', 'docroot.env']), []);
  });

  it('a line that is not NAME=VALUE is one error naming file:line; --env without = is refused', () => {
    writeFiles(dir, { 'env.conf': CONFIG, 'bad.env': 'GOOD=1\nnot an assignment\n' });
    const run = runCli(['--no-probe', '--env-file', 'bad.env', 'env.conf'], { cwd: dir });
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      "tune-lint: bad.env:2: expected NAME=VALUE, as Docker's --env-file and systemd's EnvironmentFile= take them\n",
    );
    assert.throws(() => environmentFromFlags(['NOVALUE']), ConfigError);
    assert.throws(() => environmentFromFlags(['1BAD=x']), /--env 1BAD=x: expected NAME=VALUE/);
  });

  it('reads comments, export, quotes, CRLF and a byte order mark as Docker and systemd do', () => {
    const file = path.join(dir, 'forms.env');
    fs.writeFileSync(file, '\uFEFF; systemd comment\r\n# docker comment\r\n\r\nexport A=1\r\nB = "two words"\r\nC=\'x=y\'\r\nD=\r\n');
    assert.deepEqual(environmentFromFile(file), { source: `--env-file ${file}`, values: { A: '1', B: 'two words', C: 'x=y', D: '' } });
  });
});
