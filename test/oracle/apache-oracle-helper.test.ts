import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  apacheConfigTest,
  apacheDumpConfig,
  apacheDumpIncludes,
  apacheDumpModules,
  apacheDumpRunCfg,
  ApacheOracleError,
  apacheVersion,
  parseDumpConfig,
  parseDumpIncludes,
  parseDumpModules,
  parseDumpRunCfg,
  parseStderr,
  readEnvvars,
  withSysrootCopy,
} from '../helpers/apache-oracle.js';
import type { ApacheConfigTestResult, ApacheOracleOptions } from '../helpers/apache-oracle.js';
import { mapLimited } from '../helpers/processes.js';
import { inCI, requireTool } from '../helpers/tools.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const apacheFixtures = path.join(repoRoot, 'fixtures', 'apache');
const MODULE_DIR = '/usr/lib/apache2/modules';
const UPDATE = process.env.UPDATE_APACHE_EXPECTATIONS === '1';

/** Like requireTool, for a module package the fixture needs next to apache2. */
function requireModuleFile(t: TestContext, file: string, debianPackage: string): boolean {
  if (fs.existsSync(path.join(MODULE_DIR, file))) return true;
  const reason = `${MODULE_DIR}/${file} is missing (apt-get install ${debianPackage})`;
  if (inCI) throw new Error(`CI=true but a module the fixtures need is missing: ${reason}`);
  t.skip(reason);
  return false;
}

describe('output parsers (captured from apache2 2.4.71)', () => {
  test('DUMP_INCLUDES: two spaces per level, the main file at the first level', () => {
    const stdout = [
      'Included configuration files:',
      '  (*) /etc/apache2/apache2.conf',
      '    (146) /etc/apache2/mods-enabled/access_compat.load',
      '      (2) /etc/apache2/nested.conf',
      '    (225) /etc/apache2/sites-enabled/000-default.conf',
      '',
    ].join('\n');
    assert.deepEqual(parseDumpIncludes(stdout), [
      { file: '/etc/apache2/apache2.conf', depth: 0, includedFromLine: null },
      { file: '/etc/apache2/mods-enabled/access_compat.load', depth: 1, includedFromLine: 146 },
      { file: '/etc/apache2/nested.conf', depth: 2, includedFromLine: 2 },
      { file: '/etc/apache2/sites-enabled/000-default.conf', depth: 1, includedFromLine: 225 },
    ]);
  });

  test('DUMP_CONFIG: files, right-aligned line numbers, nesting, sections and empty arguments', () => {
    const stdout = [
      '# In file: -c/-C directives',
      '#   2:',
      'ErrorLog /dev/null',
      '# In file: /tmp/x.conf',
      '#  11:',
      '<Directory "/var/www">',
      '  #  13:',
      '  Options None',
      '  #  14:',
      '  <Files "x y">',
      '    #  15:',
      '    Require all denied',
      '  </Files>',
      '</Directory>',
      '#   5:',
      '<Directory /srv>',
      '#12345:',
      'ServerAdmin ',
      '',
    ].join('\n');
    assert.deepEqual(parseDumpConfig(stdout), [
      { file: '-c/-C directives', line: 2, name: 'ErrorLog', args: '/dev/null', depth: 0, section: false },
      { file: '/tmp/x.conf', line: 11, name: '<Directory', args: '"/var/www">', depth: 0, section: true },
      { file: '/tmp/x.conf', line: 13, name: 'Options', args: 'None', depth: 1, section: false },
      { file: '/tmp/x.conf', line: 14, name: '<Files', args: '"x y">', depth: 1, section: true },
      { file: '/tmp/x.conf', line: 15, name: 'Require', args: 'all denied', depth: 2, section: false },
      { file: '/tmp/x.conf', line: 5, name: '<Directory', args: '/srv>', depth: 0, section: true },
      { file: '/tmp/x.conf', line: 12345, name: 'ServerAdmin', args: '', depth: 0, section: false },
    ]);
  });

  test('DUMP_MODULES and DUMP_RUN_CFG', () => {
    assert.deepEqual(parseDumpModules('Loaded Modules:\n core_module (static)\n mpm_event_module (shared)\n'), [
      { name: 'core_module', kind: 'static' },
      { name: 'mpm_event_module', kind: 'shared' },
    ]);
    const runCfg = parseDumpRunCfg(
      [
        'ServerRoot: "/etc/apache2"',
        'Main DocumentRoot: "/var/www/html"',
        'Main ErrorLog: "/var/log/apache2/error.log"',
        'Mutex default: dir="/var/run/apache2/" mechanism=default ',
        'PidFile: "/var/run/apache2/apache2.pid"',
        'Define: DUMP_RUN_CFG',
        'Define: X=a b',
        'User: name="www-data" id=33',
        'Group: name="#48" id=48',
        '',
      ].join('\n'),
    );
    assert.equal(runCfg.serverRoot, '/etc/apache2');
    assert.equal(runCfg.documentRoot, '/var/www/html');
    assert.equal(runCfg.errorLog, '/var/log/apache2/error.log');
    assert.equal(runCfg.pidFile, '/var/run/apache2/apache2.pid');
    assert.deepEqual(
      [...runCfg.defines],
      [
        ['DUMP_RUN_CFG', null],
        ['X', 'a b'],
      ],
    );
    assert.deepEqual(runCfg.user, { name: 'www-data', id: 33 });
    assert.deepEqual(runCfg.group, { name: '#48', id: 48 });
    assert.equal(runCfg.lines.length, 9);
  });

  test('stderr: walk errors, read errors with include chains, logged and plain messages', () => {
    const walk = parseStderr('AH00526: Syntax error on line 2 of /x/a.conf:\nTimeout takes one argument, Timeout duration (sec)\n');
    assert.equal(walk.syntaxOk, false);
    assert.deepEqual(walk.error, {
      file: '/x/a.conf',
      line: 2,
      message: 'Timeout takes one argument, Timeout duration (sec)',
      includedFrom: [],
    });
    assert.equal(walk.messages.length, 1);
    assert.equal(walk.messages[0]?.code, 'AH00526');

    const chained = parseStderr(
      'apache2: Syntax error on line 1 of /x/top.conf: Syntax error on line 2 of /x/inner.conf: /x/inner.conf:2: <VirtualHost> was not closed.\n',
    );
    assert.deepEqual(chained.error, {
      file: '/x/inner.conf',
      line: 2,
      message: '/x/inner.conf:2: <VirtualHost> was not closed.',
      includedFrom: [{ file: '/x/top.conf', line: 1 }],
    });

    const tooLong = parseStderr('apache2: Error reading /x/a.conf at line 1: Line too long\n');
    assert.deepEqual(tooLong.error, { file: '/x/a.conf', line: 1, message: 'Line too long', includedFrom: [] });

    const warnings = parseStderr(
      [
        '[Mon Nov 30 10:35:52.845648 2026] [core:warn] [pid 12766:tid 12766] AH00111: Config variable ${UNDEFINED} is not defined',
        'AH00180: WARNING: MaxRequestWorkers of 500 exceeds ServerLimit value of 300 servers, decreasing MaxRequestWorkers to 300. To increase, please see the ServerLimit directive.',
        "(2)No such file or directory: AH02291: Cannot access directory '/x/logs/' for main error log",
        'Syntax OK',
        '',
      ].join('\n'),
    );
    assert.equal(warnings.syntaxOk, true);
    assert.equal(warnings.error, undefined);
    assert.deepEqual(
      warnings.messages.map(({ code, module, level, text }) => ({ code, module, level, text })),
      [
        { code: 'AH00111', module: 'core', level: 'warn', text: 'Config variable ${UNDEFINED} is not defined' },
        {
          code: 'AH00180',
          module: undefined,
          level: undefined,
          text: 'WARNING: MaxRequestWorkers of 500 exceeds ServerLimit value of 300 servers, decreasing MaxRequestWorkers to 300. To increase, please see the ServerLimit directive.',
        },
        { code: 'AH02291', module: undefined, level: undefined, text: "Cannot access directory '/x/logs/' for main error log" },
      ],
    );
  });
});

describe('readEnvvars', () => {
  test("Debian's stock envvars gives the variables apache2ctl exports for /etc/apache2", () => {
    const text = fs.readFileSync(path.join(apacheFixtures, 'debian/etc/apache2/envvars'), 'utf8');
    assert.deepEqual(readEnvvars(text, { HOME: '/root', PATH: '/usr/bin' }), {
      APACHE_RUN_USER: 'www-data',
      APACHE_RUN_GROUP: 'www-data',
      APACHE_PID_FILE: '/var/run/apache2/apache2.pid',
      APACHE_RUN_DIR: '/var/run/apache2',
      APACHE_LOCK_DIR: '/var/lock/apache2',
      APACHE_LOG_DIR: '/var/log/apache2',
      LANG: 'C',
    });
  });

  test("the official php:*-apache images' envvars (every export rewritten to `: ${NAME:=value}`) gives the same variables", () => {
    const stock = fs.readFileSync(path.join(apacheFixtures, 'debian/etc/apache2/envvars'), 'utf8');
    // The images' Dockerfile: sed -ri 's/^export ([^=]+)=(.*)$/: ${\1:=\2}\nexport \1/' "$APACHE_ENVVARS"
    const rewritten = stock.replace(/^export ([^=\n]+)=(.*)$/gm, ': ${$1:=$2}\nexport $1');
    assert.notEqual(rewritten, stock);
    assert.deepEqual(readEnvvars(rewritten), readEnvvars(stock));
    assert.deepEqual(
      readEnvvars(rewritten, { APACHE_RUN_USER: 'daemon' }).APACHE_RUN_USER,
      'daemon',
      'a value from outside wins over the default',
    );
  });

  test('default expansions in values: ${NAME:-word}, ${NAME-word}, ${NAME:=word}, ${NAME=word}', () => {
    const text = [
      'EMPTY=',
      'export A=${UNSET:-fallback}',
      'export B=${EMPTY-kept-empty}',
      'export C=${EMPTY:-was-empty}',
      'export D=${NEW:=assigned}/x',
      'export E=$NEW',
      'export F=${NEW##*/}',
    ].join('\n');
    assert.deepEqual(readEnvvars(text), { A: 'fallback', B: '', C: 'was-empty', D: 'assigned/x', E: 'assigned', F: '' });
  });

  test('quotes, expansion, later export, unset; commands are not run', () => {
    const text = [
      'BASE=/srv/www',
      "export SINGLE='$BASE stays'",
      'export DOUBLE="${BASE}/site one"',
      'export BARE=$BASE/x # comment',
      'LATER=late',
      'export LATER',
      'export GONE=1',
      'unset GONE',
      '. /etc/default/locale',
      'rm -rf /',
      'if [ -n "$X" ] ; then',
      '  export INSIDE_IF=yes',
      'fi',
    ].join('\n');
    assert.deepEqual(readEnvvars(text), {
      SINGLE: '$BASE stays',
      DOUBLE: '/srv/www/site one',
      BARE: '/srv/www/x',
      LATER: 'late',
      INSIDE_IF: 'yes',
    });
  });
});

describe('withSysrootCopy', () => {
  test('maps absolute ServerRoot/Include/IncludeOptional into the copy only, byte for byte otherwise', async () => {
    const sysroot = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-sysroot-'));
    try {
      fs.mkdirSync(path.join(sysroot, 'etc/httpd/conf'), { recursive: true });
      const original = Buffer.from(
        'ServerRoot "/etc/httpd"\r\n  include /etc/httpd/conf.d/*.conf\r\nIncludeOptional conf.d/*.conf\r\n' +
          'LoadModule x_module /usr/lib/x.so\r\n# Include /etc/not-a-directive\r\nServerAdmin caf\xe9\r\n',
        'latin1',
      );
      const configPath = path.join(sysroot, 'etc/httpd/conf/httpd.conf');
      fs.writeFileSync(configPath, original);
      fs.symlinkSync('../../var/log/httpd', path.join(sysroot, 'etc/httpd/logs'));
      let copyRoot = '';
      await withSysrootCopy(sysroot, async (copy) => {
        copyRoot = copy.root;
        const mapped = fs.readFileSync(copy.hostPath('/etc/httpd/conf/httpd.conf'));
        const expected = original
          .toString('latin1')
          .replace('ServerRoot "/etc/httpd"', `ServerRoot "${copy.root}/etc/httpd"`)
          .replace('include /etc/httpd/conf.d', `include ${copy.root}/etc/httpd/conf.d`);
        assert.equal(mapped.toString('latin1'), expected);
        assert.equal(fs.readlinkSync(copy.hostPath('/etc/httpd/logs')), '../../var/log/httpd');
        assert.equal(copy.serverPaths(`error in ${copy.root}/etc/httpd/conf/httpd.conf`), 'error in /etc/httpd/conf/httpd.conf');
      });
      assert.deepEqual(fs.readFileSync(configPath), original);
      assert.equal(fs.existsSync(copyRoot), false);
    } finally {
      fs.rmSync(sysroot, { recursive: true, force: true });
    }
  });
});

describe('the installed tree /etc/apache2', () => {
  const installed: ApacheOracleOptions = { serverRoot: '/etc/apache2', configFile: 'apache2.conf' };

  test('passes -t with the envvars recipe and fails without it', async (t) => {
    const binary = requireTool(t, 'apache2');
    if (binary === undefined) return;
    const result = await apacheConfigTest({ ...installed, binary });
    assert.equal(result.exitCode, 0, result.stderr);
    assert.equal(result.syntaxOk, true);

    const bare = await apacheConfigTest({ ...installed, binary, envvars: null });
    assert.equal(bare.exitCode, 1);
    assert.ok(
      bare.messages.some((message) => message.code === 'AH00111' && message.text.includes('${APACHE_RUN_DIR}')),
      bare.stderr,
    );
    assert.equal(bare.error?.message, 'DefaultRuntimeDir must be a valid directory, absolute or relative to ServerRoot');
  });

  test('includes, modules, directives and run config are consistent', async (t) => {
    const binary = requireTool(t, 'apache2');
    if (binary === undefined) return;
    const options = { ...installed, binary };
    const includes = await apacheDumpIncludes(options);
    assert.deepEqual(includes[0], { file: '/etc/apache2/apache2.conf', depth: 0, includedFromLine: null });
    assert.ok(includes.length > 10, `only ${includes.length} files`);
    for (const include of includes.slice(1)) {
      assert.ok(include.depth >= 1 && include.includedFromLine !== null && include.includedFromLine > 0, JSON.stringify(include));
      assert.ok(fs.existsSync(include.file), include.file);
    }
    assert.ok(includes.some((include) => include.file === '/etc/apache2/ports.conf' && include.depth === 1));

    const modules = await apacheDumpModules(options);
    assert.deepEqual(modules[0], { name: 'core_module', kind: 'static' });
    const mpms = modules.filter((module) => /^mpm_(prefork|worker|event)_module$/.test(module.name));
    assert.equal(mpms.length, 1, JSON.stringify(mpms));
    assert.equal(mpms[0]?.kind, 'shared');

    const directives = await apacheDumpConfig(options);
    const files = new Set([...includes.map((include) => include.file), '-c/-C directives']);
    for (const directive of directives) assert.ok(files.has(directive.file), directive.file);
    const timeout = directives.find((directive) => directive.name === 'Timeout');
    assert.deepEqual(timeout && { file: timeout.file, args: timeout.args, depth: timeout.depth }, {
      file: '/etc/apache2/apache2.conf',
      args: '300',
      depth: 0,
    });
    assert.ok(!directives.some((directive) => /^(Include|IncludeOptional|LoadModule|Define)$/.test(directive.name)));

    const runCfg = await apacheDumpRunCfg(options);
    assert.equal(runCfg.serverRoot, '/etc/apache2');
    assert.equal(runCfg.user?.name, 'www-data');
    assert.equal(runCfg.pidFile, '/var/run/apache2/apache2.pid');
    assert.ok(runCfg.defines.has('DUMP_RUN_CFG'));
  });

  test("a failing config makes the dumps throw with Apache's message", async (t) => {
    const binary = requireTool(t, 'apache2');
    if (binary === undefined) return;
    await assert.rejects(
      apacheDumpIncludes({ ...installed, binary, before: ['Timeout 300 # comment'] }),
      (error: unknown) =>
        error instanceof ApacheOracleError &&
        error.result.exitCode === 1 &&
        error.result.error?.message === 'Timeout takes one argument, Timeout duration (sec)' &&
        error.message.includes('Timeout takes one argument'),
    );
  });
});

interface TreeFixture {
  sysroot: string;
  serverRoot: string;
  configFile: string;
  mpm: string;
  modules: { file: string; debianPackage: string }[];
}

const PHP = { file: 'libphp8.2.so', debianPackage: 'libapache2-mod-php8.2' };
const SECURITY = { file: 'mod_security2.so', debianPackage: 'libapache2-mod-security2' };
const debianTree = (sysroot: string, mpm: string, modules: TreeFixture['modules']): TreeFixture => ({
  sysroot,
  serverRoot: '/etc/apache2',
  configFile: 'apache2.conf',
  mpm,
  modules,
});
const trees: TreeFixture[] = [
  debianTree('debian', 'mpm_event_module', []),
  { sysroot: 'rhel', serverRoot: '/etc/httpd', configFile: 'conf/httpd.conf', mpm: 'mpm_prefork_module', modules: [PHP] },
  debianTree('story-drupal-500mb', 'mpm_prefork_module', [PHP]),
  debianTree('story-stock-prefork', 'mpm_prefork_module', [PHP]),
  debianTree('story-fat-apache', 'mpm_prefork_module', [SECURITY]),
];

/** The directives of a dump as `Name args` keyed by name, last one wins, with where they came from. */
function lastByName(directives: Awaited<ReturnType<typeof apacheDumpConfig>>): Map<string, string> {
  const found = new Map<string, string>();
  for (const directive of directives) found.set(directive.name, `${directive.args} @ ${directive.file}:${directive.line ?? 0}`);
  return found;
}

describe('fixture trees with --sysroot', { concurrency: true }, () => {
  for (const tree of trees) {
    test(`${tree.sysroot}: passes -t, reads only its own files, loads one MPM`, async (t) => {
      const binary = requireTool(t, 'apache2');
      if (binary === undefined) return;
      if (!tree.modules.every((module) => requireModuleFile(t, module.file, module.debianPackage))) return;
      const options: ApacheOracleOptions = {
        sysroot: path.join(apacheFixtures, tree.sysroot),
        serverRoot: tree.serverRoot,
        configFile: tree.configFile,
        binary,
      };
      const result = await apacheConfigTest(options);
      assert.equal(result.exitCode, 0, result.stderr);
      assert.deepEqual(
        result.messages.map((message) => message.code),
        ['AH00558'],
        'only the missing global ServerName is expected to warn',
      );

      const includes = await apacheDumpIncludes(options);
      assert.deepEqual(includes[0], { file: path.posix.join(tree.serverRoot, tree.configFile), depth: 0, includedFromLine: null });
      for (const include of includes) {
        assert.ok(include.file.startsWith('/etc/'), include.file);
        assert.ok(fs.existsSync(path.join(apacheFixtures, tree.sysroot, include.file)), include.file);
      }

      const modules = await apacheDumpModules(options);
      const mpms = modules.filter((module) => module.name.startsWith('mpm_'));
      assert.deepEqual(mpms, [{ name: tree.mpm, kind: 'shared' }]);
    });
  }

  test('debian: a2enmod-style relative symlinks, default-ssl not enabled, per-vhost KeepAliveTimeout', async (t) => {
    const root = path.join(apacheFixtures, 'debian/etc/apache2');
    for (const dir of ['mods-enabled', 'conf-enabled', 'sites-enabled']) {
      for (const name of fs.readdirSync(path.join(root, dir))) {
        const target = fs.readlinkSync(path.join(root, dir, name));
        assert.equal(target, `../${dir.replace('-enabled', '-available')}/${name}`);
      }
    }
    const binary = requireTool(t, 'apache2');
    if (binary === undefined) return;
    const options = { sysroot: path.join(apacheFixtures, 'debian'), serverRoot: '/etc/apache2', configFile: 'apache2.conf', binary };
    const includes = await apacheDumpIncludes(options);
    assert.ok(!includes.some((include) => include.file.includes('default-ssl')));
    const directives = await apacheDumpConfig(options);
    const keepAliveTimeouts = directives
      .filter((directive) => directive.name === 'KeepAliveTimeout')
      .map(({ file, args, depth }) => ({ file, args, depth }));
    assert.deepEqual(keepAliveTimeouts, [
      { file: '/etc/apache2/apache2.conf', args: '5', depth: 0 },
      { file: '/etc/apache2/sites-enabled/example.org.conf', args: '3', depth: 1 },
    ]);
  });

  test('rhel: ServerRoot "/etc/httpd" stays in the fixture, PHP loads under prefork, conf.d/README is skipped', async (t) => {
    const binary = requireTool(t, 'apache2');
    if (binary === undefined) return;
    if (!requireModuleFile(t, PHP.file, PHP.debianPackage)) return;
    const sysroot = path.join(apacheFixtures, 'rhel');
    const options = { sysroot, serverRoot: '/etc/httpd', configFile: 'conf/httpd.conf', binary };
    const runCfg = await apacheDumpRunCfg(options);
    assert.equal(runCfg.serverRoot, '/etc/httpd');
    assert.equal(runCfg.errorLog, '/etc/httpd/logs/error_log');
    assert.deepEqual(runCfg.user, { name: '#48', id: 48 });
    assert.match(fs.readFileSync(path.join(sysroot, 'etc/httpd/conf/httpd.conf'), 'utf8'), /^ServerRoot "\/etc\/httpd"$/m);
    const modules = await apacheDumpModules(options);
    assert.ok(modules.some((module) => module.name === 'php_module'));
    assert.ok(modules.some((module) => module.name === 'cgi_module') && !modules.some((module) => module.name === 'cgid_module'));
    const includes = await apacheDumpIncludes(options);
    assert.deepEqual(
      includes.filter((include) => include.file.startsWith('/etc/httpd/conf.d/')).map((include) => include.file),
      ['/etc/httpd/conf.d/php.conf', '/etc/httpd/conf.d/userdir.conf', '/etc/httpd/conf.d/welcome.conf'],
    );
  });

  const stories: { sysroot: string; modules: TreeFixture['modules']; expected: Record<string, string> }[] = [
    {
      sysroot: 'story-drupal-500mb',
      modules: [PHP],
      expected: {
        StartServers: '3 @ /etc/apache2/mods-enabled/mpm_prefork.conf:13',
        MinSpareServers: '2 @ /etc/apache2/mods-enabled/mpm_prefork.conf:14',
        MaxSpareServers: '3 @ /etc/apache2/mods-enabled/mpm_prefork.conf:15',
        MaxClients: '15 @ /etc/apache2/mods-enabled/mpm_prefork.conf:16',
        MaxRequestsPerChild: '5000 @ /etc/apache2/mods-enabled/mpm_prefork.conf:17',
        KeepAlive: 'On @ /etc/apache2/apache2.conf:98',
        MaxKeepAliveRequests: '100 @ /etc/apache2/apache2.conf:105',
        KeepAliveTimeout: '2 @ /etc/apache2/apache2.conf:111',
      },
    },
    {
      sysroot: 'story-stock-prefork',
      modules: [PHP],
      expected: {
        StartServers: '5 @ /etc/apache2/mods-enabled/mpm_prefork.conf:11',
        MinSpareServers: '5 @ /etc/apache2/mods-enabled/mpm_prefork.conf:12',
        MaxSpareServers: '10 @ /etc/apache2/mods-enabled/mpm_prefork.conf:13',
        MaxClients: '150 @ /etc/apache2/mods-enabled/mpm_prefork.conf:14',
        MaxRequestsPerChild: '0 @ /etc/apache2/mods-enabled/mpm_prefork.conf:15',
      },
    },
    {
      sysroot: 'story-fat-apache',
      modules: [SECURITY],
      expected: {
        StartServers: '100 @ /etc/apache2/mods-enabled/mpm_prefork.conf:12',
        MinSpareServers: '10 @ /etc/apache2/mods-enabled/mpm_prefork.conf:13',
        MaxSpareServers: '10 @ /etc/apache2/mods-enabled/mpm_prefork.conf:14',
        ServerLimit: '10000 @ /etc/apache2/mods-enabled/mpm_prefork.conf:15',
        MaxClients: '10000 @ /etc/apache2/mods-enabled/mpm_prefork.conf:16',
        MaxRequestsPerChild: '2500 @ /etc/apache2/mods-enabled/mpm_prefork.conf:17',
        ListenBacklog: '1000 @ /etc/apache2/apache2.conf:117',
        EnableSendfile: 'On @ /etc/apache2/apache2.conf:118',
        EnableMMAP: 'On @ /etc/apache2/apache2.conf:119',
        KeepAlive: 'Off @ /etc/apache2/apache2.conf:98',
        SecRuleEngine: 'On @ /etc/modsecurity/modsecurity.conf:14',
        SecRequestBodyAccess: 'On @ /etc/modsecurity/modsecurity.conf:23',
        SetInputFilter: 'DEFLATE @ /etc/apache2/sites-enabled/www.conf:15',
        AllowOverride: 'All @ /etc/apache2/sites-enabled/www.conf:11',
      },
    },
  ];
  for (const story of stories) {
    test(`${story.sysroot}: Apache reads the story's numbers where the story put them`, async (t) => {
      const binary = requireTool(t, 'apache2');
      if (binary === undefined) return;
      if (!story.modules.every((module) => requireModuleFile(t, module.file, module.debianPackage))) return;
      const options = { sysroot: path.join(apacheFixtures, story.sysroot), serverRoot: '/etc/apache2', configFile: 'apache2.conf', binary };
      const found = lastByName(await apacheDumpConfig(options));
      for (const [name, expected] of Object.entries(story.expected)) assert.equal(found.get(name), expected, name);
      const info = await apacheConfigTest({ ...options, logLevel: 'info' });
      assert.equal(info.exitCode, 0, info.stderr);
      assert.ok(
        info.messages.some((message) => message.code === 'AH00188'),
        'MaxClients deprecation note at -e info',
      );
    });
  }
});

interface CaseInput {
  about: string;
  defines?: string[];
  logLevel?: string;
}

interface RecordedDirective {
  file: string;
  line: number | null;
  name: string;
  args?: string;
  argsLength?: number;
  argsSha256?: string;
  depth: number;
}

interface ExpectationFile {
  apache: string;
  before: string[];
  cases: Record<string, CaseInput & Record<string, unknown>>;
  [key: string]: unknown;
}

/** Longer arguments are recorded by length and digest, to keep the JSON readable. */
const MAX_RECORDED_ARGS = 1000;

async function recordCase(
  binary: string,
  root: string,
  caseFile: string,
  input: CaseInput,
  before: string[],
): Promise<Record<string, unknown>> {
  const options: ApacheOracleOptions = { serverRoot: root, configFile: caseFile, before, binary, envvars: null };
  if (input.defines !== undefined) options.defines = input.defines;
  if (input.logLevel !== undefined) options.logLevel = input.logLevel;
  const inDir = (text: string): string => text.split(`${root}/`).join('{dir}/');
  const relative = (file: string): string => (file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file);
  const result: ApacheConfigTestResult = await apacheConfigTest(options);
  const recorded: Record<string, unknown> = {
    exitCode: result.exitCode,
    syntaxOk: result.syntaxOk,
    error:
      result.error === undefined
        ? null
        : {
            file: relative(result.error.file),
            line: result.error.line,
            message: inDir(result.error.message),
            includedFrom: result.error.includedFrom.map((link) => ({ file: relative(link.file), line: link.line })),
          },
    messages: result.messages.map((message) => ({
      code: message.code ?? null,
      module: message.module ?? null,
      level: message.level ?? null,
      text: inDir(message.text),
    })),
  };
  if (result.exitCode !== 0) return recorded;
  recorded.includes = (await apacheDumpIncludes(options)).map((include) => ({ ...include, file: relative(include.file) }));
  recorded.directives = (await apacheDumpConfig(options))
    .filter((directive) => directive.file.startsWith(`${root}/`))
    .map(({ file, line, name, args, depth }): RecordedDirective => {
      if (args.length <= MAX_RECORDED_ARGS) return { file: relative(file), line, name, args, depth };
      const argsSha256 = createHash('sha256').update(args).digest('hex');
      return { file: relative(file), line, name, argsLength: args.length, argsSha256, depth };
    });
  return recorded;
}

for (const set of ['parser', 'mpm']) {
  test(`fixtures/apache/${set}/expected.json matches what apache2 says about every case`, async (t) => {
    const directory = path.join(apacheFixtures, set);
    const expectationPath = path.join(directory, 'expected.json');
    const expectations = JSON.parse(fs.readFileSync(expectationPath, 'utf8')) as ExpectationFile;
    const caseFiles = fs
      .readdirSync(directory)
      .filter((name) => name.endsWith('.conf'))
      .sort();
    assert.deepEqual(Object.keys(expectations.cases).sort(), caseFiles, 'every case file has an entry in expected.json and vice versa');

    const binary = requireTool(t, 'apache2');
    if (binary === undefined) return;
    // A short path for the server root keeps long checkout paths from reaching
    // Apache's 8190-byte limit on one message (the include-loop chain).
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), 't'));
    try {
      const root = path.join(temp, 'd');
      fs.symlinkSync(directory, root);
      const recorded = await mapLimited(caseFiles, 8, (caseFile) =>
        recordCase(binary, root, caseFile, expectations.cases[caseFile] as CaseInput, expectations.before),
      );
      if (UPDATE) {
        expectations.apache = await apacheVersion(binary);
        caseFiles.forEach((caseFile, index) => {
          const { about, defines, logLevel } = expectations.cases[caseFile] as CaseInput;
          expectations.cases[caseFile] = { about, ...(defines && { defines }), ...(logLevel && { logLevel }), ...recorded[index] };
        });
        fs.writeFileSync(expectationPath, `${JSON.stringify(expectations, null, 2)}\n`);
        return;
      }
      caseFiles.forEach((caseFile, index) => {
        const {
          about: _about,
          defines: _defines,
          logLevel: _logLevel,
          ...stored
        } = expectations.cases[caseFile] as CaseInput & Record<string, unknown>;
        assert.deepEqual(recorded[index], stored, `${set}/${caseFile} (recorded with ${expectations.apache})`);
      });
    } finally {
      fs.rmSync(temp, { recursive: true, force: true });
    }
  });
}
