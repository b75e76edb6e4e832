import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import { selectRules } from '../../src/engine/selection.js';
import { dumpApacheConfig } from '../../src/languages/apache/dump.js';
import { loadApache, type ApacheConfig } from '../../src/languages/apache/model.js';
import { lint } from '../../src/lint.js';

/*
 * Where a distribution's start script puts part of the configuration on
 * httpd's command line: openSUSE's (the MPM compiled into httpd-<mpm>,
 * -DSYSCONFIG, -C/-c Includes of the files it writes from
 * /etc/sysconfig/apache2) and RHEL 5/6's (HTTPD= picks httpd, httpd.worker or
 * httpd.event). The trees are real: an openSUSE Leap 15.6 host's
 * /etc/apache2 and a CentOS 6 host's /etc/httpd from fixtures/real-world,
 * with the real sysconfig files of fixtures/apache/layouts where a case needs
 * them, changed as their own comments tell an admin to.
 */

const REAL_WORLD = path.join(process.cwd(), 'fixtures', 'real-world');
const LAYOUTS = path.join(process.cwd(), 'fixtures', 'apache', 'layouts');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-start-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A copy of a real-world tree, with files written over it (undefined removes one). */
function tree(name: string, files: Readonly<Record<string, string | undefined>> = {}): string {
  const dir = fs.mkdtempSync(path.join(scratch, `${name}-`));
  fs.cpSync(path.join(REAL_WORLD, name), dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(dir, file);
    if (text === undefined) fs.rmSync(target);
    else {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, text);
    }
  }
  return dir;
}

function load(dir: string, main: string, httpd: string): ApacheConfig {
  return loadApache(path.join(dir, main), { fs: new ConfigFileSystem({ cwd: dir, sysroot: dir }), httpd });
}

async function findings(dir: string, main: string, target: string): Promise<string[]> {
  const result = await lint({
    paths: [path.join(dir, main)],
    cwd: dir,
    sysroot: dir,
    targets: parseTargetSpec(target),
    host: { ram: { value: 4 * 1024 ** 3, source: 'test' }, cpus: { value: 2, source: 'test' } },
    rules: selectRules(builtinRules, 'recommended', new Map()),
  });
  return result.diagnostics.map((diagnostic) => `${diagnostic.ruleId} ${diagnostic.message}`);
}

const suseSysconfig = fs.readFileSync(path.join(LAYOUTS, 'opensuse-sysconfig-apache2'), 'utf8');
const rhelSysconfig = fs.readFileSync(path.join(LAYOUTS, 'rhel6-sysconfig-httpd'), 'utf8');
const SUSE_MAIN = 'etc/apache2/httpd.conf';
const RHEL_MAIN = 'etc/httpd/conf/httpd.conf';

describe("openSUSE's start (/etc/sysconfig/apache2, sysconfig.d)", () => {
  it('reads the files the start script wrote, with -DSYSCONFIG, and the MPM their module paths name', () => {
    const dir = tree('opensuse-vicibox');
    const config = load(dir, SUSE_MAIN, '2.4');
    const read = config.files.map((entry) => `/${path.relative(dir, entry.source.path)}`);
    assert.ok(read.includes('/etc/apache2/sysconfig.d/loadmodule.conf'));
    assert.ok(read.includes('/etc/apache2/sysconfig.d/global.conf'));
    assert.ok(read.includes('/etc/apache2/sysconfig.d/include.conf'), 'the -c Include, after the main file');
    assert.ok(!read.includes('/etc/apache2/loadmodule.conf'), 'httpd.conf reads it only in <IfDefine !SYSCONFIG>');
    assert.ok(config.defines.has('SYSCONFIG'));
    assert.equal(config.mpm?.name, 'prefork');
    assert.equal(config.loadedMpms()[0]?.module.use, undefined, 'compiled in, not loaded');
    assert.equal(config.modules.get('php_module')?.path, '/usr/lib64/apache2/mod_php8.so');
    assert.match(config.start?.notes.join(' ') ?? '', /modules of \/usr\/lib64\/apache2-prefork, so the MPM is prefork/);
  });

  it('sizes Apache on such a host: its MaxRequestWorkers against the RAM, not "no MPM is loaded"', async () => {
    const said = await findings(tree('opensuse-vicibox'), SUSE_MAIN, 'httpd=2.4');
    assert.ok(
      said.some((line) => line.startsWith('AP2001 MaxRequestWorkers 256 x 64 MiB')),
      said.join('\n'),
    );
    assert.ok(!said.some((line) => line.includes('left out of the memory budget')));
  });

  it('takes APACHE_MPM, APACHE_SERVER_FLAGS in all three spellings, and APACHE_MODULES where loadmodule.conf was not written', () => {
    const sysconfig = suseSysconfig
      .replace('APACHE_MPM=""', 'APACHE_MPM="worker"')
      .replace('APACHE_SERVER_FLAGS=""', 'APACHE_SERVER_FLAGS="SSL -D STATUS -DHTTP2"');
    assert.notEqual(sysconfig, suseSysconfig);
    const config = load(
      tree('opensuse-vicibox', { 'etc/sysconfig/apache2': sysconfig, 'etc/apache2/sysconfig.d/loadmodule.conf': undefined }),
      SUSE_MAIN,
      '2.4',
    );
    assert.equal(config.mpm?.name, 'worker');
    // openSUSE's worker block: MaxRequestWorkers 256 over ThreadsPerChild 25, which httpd rounds down (AH00513).
    assert.equal(config.mpm.values.MaxRequestWorkers.value, 250);
    for (const name of ['SYSCONFIG', 'SSL', 'STATUS', 'HTTP2']) assert.ok(config.defines.has(name), name);
    for (const module of ['proxy_wstunnel_module', 'php7_module', 'headers_module']) assert.ok(config.hasModule(module), module);
    assert.ok(config.hasModule('mod_php7.c'));
    assert.match(
      config.start?.notes.join(' ') ?? '',
      /loadmodule\.conf, which the start script writes from APACHE_MODULES, is not in the tree/,
    );
  });

  it('dump shows the start, and the modules the start script loads from APACHE_MODULES as shared, not compiled in', () => {
    const config = load(
      tree('opensuse-vicibox', { 'etc/sysconfig/apache2': suseSysconfig, 'etc/apache2/sysconfig.d/loadmodule.conf': undefined }),
      SUSE_MAIN,
      '2.4',
    );
    const dumped = dumpApacheConfig(config) as unknown as {
      start: { before: string[]; after: string[]; compiledMpm: string } | null;
      modules: { name: string; kind: string; path?: string }[];
    };
    assert.deepEqual(dumped.start?.before, ['Include /etc/apache2/sysconfig.d/global.conf']);
    assert.deepEqual(dumped.start.after, ['Include /etc/apache2/sysconfig.d/include.conf']);
    assert.equal(dumped.start.compiledMpm, 'prefork');
    assert.deepEqual(
      dumped.modules.filter((module) => ['php7_module', 'mpm_prefork_module'].includes(module.name)),
      [
        { name: 'mpm_prefork_module', kind: 'static' },
        { name: 'php7_module', kind: 'shared', path: '/usr/lib64/apache2/mod_php7.so' },
      ],
    );
  });

  it('an older httpd.conf that includes the written files itself gets no -C for them: each is read once', () => {
    const main = fs.readFileSync(path.join(REAL_WORLD, 'opensuse-vicibox', SUSE_MAIN), 'utf8');
    const older = main
      .replace(
        '<IfDefine !SYSCONFIG>\n  Include /etc/apache2/loadmodule.conf\n</IfDefine>',
        'Include /etc/apache2/sysconfig.d/loadmodule.conf',
      )
      .replace('<IfDefine !SYSCONFIG>\n  Include /etc/apache2/global.conf\n</IfDefine>', 'Include /etc/apache2/sysconfig.d/global.conf');
    assert.notEqual(older, main);
    const dir = tree('opensuse-vicibox', { [SUSE_MAIN]: older });
    const config = load(dir, SUSE_MAIN, '2.4');
    const read = config.files.map((entry) => `/${path.relative(dir, entry.source.path)}`);
    assert.equal(read.filter((file) => file === '/etc/apache2/sysconfig.d/loadmodule.conf').length, 1);
    assert.equal(read.filter((file) => file === '/etc/apache2/sysconfig.d/global.conf').length, 1);
    assert.deepEqual(config.start?.before, []);
    assert.deepEqual(config.start.after, ['Include /etc/apache2/sysconfig.d/include.conf']);
    assert.ok(config.hasModule('php_module'));
  });

  it('with APACHE_MPM empty and no loadmodule.conf to tell, assumes prefork and says so', () => {
    const config = load(
      tree('opensuse-vicibox', { 'etc/sysconfig/apache2': suseSysconfig, 'etc/apache2/sysconfig.d/loadmodule.conf': undefined }),
      SUSE_MAIN,
      '2.4',
    );
    assert.equal(config.mpm?.name, 'prefork');
    assert.match(config.start?.notes.join(' ') ?? '', /APACHE_MPM is empty in .*: prefork assumed/);
  });
});

describe("RHEL 5/6's start (HTTPD= in /etc/sysconfig/httpd)", () => {
  const worker = rhelSysconfig.replace('#HTTPD=/usr/sbin/httpd.worker', 'HTTPD=/usr/sbin/httpd.worker');

  it('runs prefork without it, and PHP from libphp5.so', () => {
    const config = load(tree('rhel6-stackrecon'), RHEL_MAIN, '2.2');
    assert.equal(config.mpm?.name, 'prefork');
    assert.equal(config.modules.get('php5_module')?.path, 'modules/libphp5.so');
    assert.equal(config.start, undefined);
  });

  it('runs httpd.worker with it: the worker block, and the thread-safe libphp5-zts.so that php.conf loads for worker', async () => {
    assert.notEqual(worker, rhelSysconfig);
    const dir = tree('rhel6-stackrecon', { 'etc/sysconfig/httpd': worker });
    const config = load(dir, RHEL_MAIN, '2.2');
    assert.equal(config.mpm?.name, 'worker');
    assert.equal(config.mpm.values.MaxRequestWorkers.value, 300);
    assert.equal(config.modules.get('php5_module')?.path, 'modules/libphp5-zts.so');
    assert.match(config.start?.notes.join(' ') ?? '', /the MPM is worker, compiled into \/usr\/sbin\/httpd\.worker/);
    const said = await findings(dir, RHEL_MAIN, 'httpd=2.2');
    assert.ok(!said.some((line) => line.startsWith('AP1011')), said.join('\n'));
    assert.ok(said.includes('AP2006 KeepAlive Off under worker opens a new connection for every asset of a page'), said.join('\n'));
  });

  it('runs httpd.event for HTTPD=/usr/sbin/httpd.event, and takes -D names from OPTIONS, past a shell line', () => {
    // RHEL 6's init script sources the file as shell; admins raise limits there, a line systemd would skip.
    const sysconfig = `ulimit -n 65536\n${rhelSysconfig}`
      .replace('#HTTPD=/usr/sbin/httpd.worker', 'HTTPD=/usr/sbin/httpd.event')
      .replace('#OPTIONS=', 'OPTIONS="-DSSL -D STATUS"');
    const config = load(tree('rhel6-stackrecon', { 'etc/sysconfig/httpd': sysconfig }), RHEL_MAIN, '2.2');
    assert.equal(config.mpm?.name, 'event');
    assert.ok(config.defines.has('SSL') && config.defines.has('STATUS'));
  });

  it('leaves httpd 2.4 to its LoadModule lines: the binary no longer picks the MPM', () => {
    const config = load(tree('rhel6-stackrecon', { 'etc/sysconfig/httpd': worker }), RHEL_MAIN, '2.4');
    assert.equal(config.mpm, undefined);
  });
});
