import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { selectRules } from '../../src/engine/selection.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import { lint } from '../../src/lint.js';
import { apacheConfigTest } from '../helpers/apache-oracle.js';
import { loopbackServerLines } from '../helpers/host-apache.js';
import { childrenOf, freeLoopbackPort } from '../helpers/processes.js';
import { requireTool } from '../helpers/tools.js';
import { said } from '../helpers/rule-fixtures.js';

/*
 * AP2003's claims about what httpd does at run time, checked against the
 * real server: each case is an MPM block the rule reports, the number the
 * rule says httpd runs with, and the steady number of children a real
 * apache2 (own ServerRoot in a temp dir, loopback high port, stopped by the
 * PID in its pidfile) settles at. `apache2 -t` says nothing about any of
 * them: the adjustments are silent.
 */

interface RuntimeCase {
  readonly name: string;
  readonly mpm: 'prefork' | 'worker' | 'event';
  readonly block: readonly string[];
  /** The number the rule's message must give, as `= N` or `only N`. */
  readonly claimed: number;
  /** Children a real apache2 keeps once idle maintenance has settled. */
  readonly children: number;
}

const CASES: readonly RuntimeCase[] = [
  {
    name: 'prefork raises MaxSpareServers 1 to MinSpareServers 3 + 1 and keeps 4 idle children',
    mpm: 'prefork',
    block: ['StartServers 7', 'MinSpareServers 3', 'MaxSpareServers 1', 'MaxRequestWorkers 20'],
    claimed: 4,
    children: 4,
  },
  {
    name: 'prefork starts only MaxRequestWorkers 3 of StartServers 8',
    mpm: 'prefork',
    block: ['StartServers 8', 'MinSpareServers 1', 'MaxSpareServers 10', 'MaxRequestWorkers 3'],
    claimed: 3,
    children: 3,
  },
  {
    name: 'event keeps 3 processes of 4 threads: MaxSpareThreads becomes 7 + 4 + 1 = 12, so 12 idle threads stay',
    mpm: 'event',
    block: [
      'ServerLimit 10',
      'ThreadLimit 4',
      'ThreadsPerChild 4',
      'MaxRequestWorkers 40',
      'MinSpareThreads 7',
      'MaxSpareThreads 1',
      'StartServers 5',
    ],
    claimed: 12,
    children: 3,
  },
  {
    name: 'event with MinSpareThreads 6: the bound is 11, so 12 idle threads are one process too many',
    mpm: 'event',
    block: [
      'ServerLimit 10',
      'ThreadLimit 4',
      'ThreadsPerChild 4',
      'MaxRequestWorkers 40',
      'MinSpareThreads 6',
      'MaxSpareThreads 1',
      'StartServers 5',
    ],
    claimed: 11,
    children: 2,
  },
  {
    name: 'worker behaves as event: MaxSpareThreads 1 becomes 12 with MinSpareThreads 7',
    mpm: 'worker',
    block: [
      'ServerLimit 10',
      'ThreadLimit 4',
      'ThreadsPerChild 4',
      'MaxRequestWorkers 40',
      'MinSpareThreads 7',
      'MaxSpareThreads 1',
      'StartServers 5',
    ],
    claimed: 12,
    children: 3,
  },
];

const MODULES = '/usr/lib/apache2/modules';

interface ServerSpec {
  readonly mpm: RuntimeCase['mpm'];
  /** Lines after the modules; `{port}` and `{root}` are replaced by the port and the server's directory. */
  readonly lines: readonly string[];
  /** Fills the server's directory before it starts. */
  readonly prepare?: (root: string) => void;
}

function configText(root: string, port: number, spec: ServerSpec, asRoot: boolean): string {
  return [
    ...loopbackServerLines(root, port, asRoot),
    'LogLevel info',
    `LoadModule mpm_${spec.mpm}_module ${MODULES}/mod_mpm_${spec.mpm}.so`,
    `LoadModule authz_core_module ${MODULES}/mod_authz_core.so`,
    `DocumentRoot "${root}"`,
    ...spec.lines.map((line) => line.replaceAll('{port}', String(port)).replaceAll('{root}', root)),
    '',
  ].join('\n');
}

function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Polls the child count until it is `expected` and has held for `stableMs`,
 * or the deadline passes; returns the last count. On a busy machine a dying
 * child stays counted for seconds, and httpd kills the next only after it, so
 * a plateau on the way down is not where the count settles.
 */
async function settledChildren(parent: number, expected: number, stableMs: number, deadlineMs: number): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  let count = childrenOf(parent).length;
  let since = Date.now();
  while (Date.now() < deadline) {
    await sleep(200);
    const now = childrenOf(parent).length;
    if (now !== count) {
      count = now;
      since = Date.now();
    } else if (count === expected && Date.now() - since >= stableMs) {
      return count;
    }
  }
  return count;
}

/** Starts apache2 on a config, hands back its parent PID and port, and always stops it by PID and removes the directory. */
async function withRunningApache(
  t: TestContext,
  binary: string,
  spec: ServerSpec,
  use: (parent: number, port: number, root: string) => Promise<void>,
): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-runtime-'));
  fs.chmodSync(root, 0o755);
  const pidFile = path.join(root, 'apache2.pid');
  const seen = new Set<number>();
  const parentPid = (): number => {
    try {
      return Number(fs.readFileSync(pidFile, 'utf8').trim()) || 0;
    } catch {
      return 0;
    }
  };
  try {
    fs.writeFileSync(path.join(root, 'index.html'), '<p>tune-lint</p>\n');
    spec.prepare?.(root);
    const conf = path.join(root, 'apache2.conf');
    const port = await freeLoopbackPort();
    fs.writeFileSync(conf, configText(root, port, spec, process.geteuid?.() === 0));
    const started = spawnSync(binary, ['-d', root, '-f', conf, '-k', 'start'], {
      encoding: 'utf8',
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' },
      timeout: 20_000,
    });
    assert.equal(started.status, 0, started.stderr);
    const deadline = Date.now() + 10_000;
    while (parentPid() === 0 && Date.now() < deadline) await sleep(50);
    const parent = parentPid();
    assert.ok(parent > 0, 'apache2 wrote no pidfile');
    await use(parent, port, root);
    for (const child of childrenOf(parent)) seen.add(child);
  } finally {
    const parent = parentPid();
    if (parent > 0 && alive(parent)) {
      for (const child of childrenOf(parent)) seen.add(child);
      process.kill(parent, 'SIGTERM');
      const deadline = Date.now() + 10_000;
      while (alive(parent) && Date.now() < deadline) await sleep(50);
    }
    for (const child of seen) if (alive(child)) process.kill(child, 'SIGKILL');
    const log = path.join(root, 'error.log');
    const errors = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
    fs.rmSync(root, { recursive: true, force: true });
    t.diagnostic(
      errors
        .split('\n')
        .filter((line) => /\[(mpm_\w+|core):(warn|error|crit|alert|emerg)\]/.test(line))
        .join('\n') || 'no warnings in the error log',
    );
  }
}

async function ruleMessages(ruleId: string, text: string): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-runtime-lint-'));
  try {
    fs.writeFileSync(path.join(dir, 'mpm.conf'), text);
    const result = await lint({
      paths: ['mpm.conf'],
      cwd: dir,
      targets: parseTargetSpec('httpd=2.4'),
      rules: selectRules(
        builtinRules.filter((rule) => rule.meta.id === ruleId),
        'all',
        new Map(),
      ),
      fixType: 'none',
    });
    return result.diagnostics.filter((d) => d.ruleId === ruleId).map((d) => `${d.severity} ${said(d)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('AP2003 run-time adjustments against a running apache2', { concurrency: true }, () => {
  for (const testCase of CASES) {
    it(testCase.name, async (t) => {
      const messages = await ruleMessages(
        'AP2003',
        [`LoadModule mpm_${testCase.mpm}_module ${MODULES}/mod_mpm_${testCase.mpm}.so`, ...testCase.block, ''].join('\n'),
      );
      assert.equal(messages.length, 1, messages.join('\n'));
      assert.match(messages[0] as string, new RegExp(`^warn .*(= |only |expected \\w+ )${testCase.claimed}\\b`));

      const binary = requireTool(t, 'apache2');
      if (binary === undefined) return;
      const silent = await apacheConfigTest({
        serverRoot: os.tmpdir(),
        configFile: '/dev/null',
        envvars: null,
        before: [
          'ServerName localhost',
          'ErrorLog /dev/null',
          `LoadModule mpm_${testCase.mpm}_module ${MODULES}/mod_mpm_${testCase.mpm}.so`,
          ...testCase.block,
        ],
        binary,
      });
      assert.equal(silent.exitCode, 0, silent.stderr);
      assert.deepEqual(silent.messages, [], 'apache2 -t prints nothing about a run-time adjustment');

      await withRunningApache(t, binary, { mpm: testCase.mpm, lines: testCase.block }, async (parent) => {
        assert.equal(await settledChildren(parent, testCase.children, 3000, 30_000), testCase.children);
      });
    });
  }
});

/**
 * Sends one keep-alive request for `host` to a loopback port, reads the whole
 * response, and measures how long the server keeps the idle connection open
 * before closing it, in seconds.
 */
async function idleSecondsBeforeClose(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let idleSince: number | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('the server kept the connection open for 15 s'));
    }, 15_000);
    socket.on('connect', () => socket.write(`GET /index.html HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString('latin1');
      const headerEnd = text.indexOf('\r\n\r\n');
      const length = Number(/^content-length:\s*(\d+)/im.exec(text)?.[1] ?? NaN);
      if (idleSince === undefined && headerEnd !== -1 && received.length >= headerEnd + 4 + length) idleSince = Date.now();
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (idleSince === undefined) reject(new Error(`connection closed before a full response: ${received.toString('latin1')}`));
      else resolve((Date.now() - idleSince) / 1000);
    });
  });
}

/*
 * AP2007 judges each vhost's own KeepAliveTimeout, although the core
 * documentation says name-based vhosts get the value of the first vhost on
 * the address: two vhosts on one address, the first with 3 s and the second
 * with 1 s; a request for the second vhost has its idle connection closed
 * after about 1 s, so its own value applies.
 */
describe('AP2007 name-based vhosts against a running apache2', () => {
  const vhosts = [
    '<VirtualHost *:{port}>',
    '    ServerName first.test',
    '    KeepAliveTimeout 3',
    '</VirtualHost>',
    '<VirtualHost *:{port}>',
    '    ServerName second.test',
    '    KeepAliveTimeout 1',
    '</VirtualHost>',
  ];

  it("a name-based vhost waits for its own KeepAliveTimeout, not the first vhost's", async (t) => {
    const binary = requireTool(t, 'apache2');
    if (binary === undefined) return;
    await withRunningApache(t, binary, { mpm: 'prefork', lines: ['StartServers 2', ...vhosts] }, async (_parent, port) => {
      const seconds = await idleSecondsBeforeClose(port, 'second.test');
      t.diagnostic(`second.test: idle connection closed after ${seconds.toFixed(2)} s`);
      assert.ok(seconds >= 0.5 && seconds < 2, `closed after ${seconds} s; the first vhost's 3 s would close it after about 3 s`);
    });
  });
});

/** The status code of `GET path` for `host` on a loopback port. */
async function statusOf(port: number, host: string, requestPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
    socket.on('connect', () => socket.write(`GET ${requestPath} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = /^HTTP\/1\.\d (\d{3})/.exec(received)?.[1];
      if (status === undefined) reject(new Error(`no status line in: ${received.slice(0, 200)}`));
      else resolve(Number(status));
    });
  });
}

/*
 * The <Directory> merge model behind AP1014, AP2009, AP2010, AP2012 and
 * AP2016 (src/languages/apache/docroots.ts), checked against the real
 * server with AllowOverride, whose effect can be seen from outside: each
 * vhost's DocumentRoot holds a .htaccess with an invalid directive, so a
 * request answers 500 when httpd reads it and 200 when it does not. AP2012
 * must report exactly the DocumentRoots that answer 500.
 */
describe('the <Directory> merge model against a running apache2', () => {
  it('AP2012 reports exactly the DocumentRoots whose .htaccess httpd reads', async (t) => {
    const binary = requireTool(t, 'apache2');
    if (binary === undefined) return;
    const sites = [
      'deeper-none',
      'regex-section',
      'regex-parent-only',
      'regex-no-slash',
      'regex-all-then-none',
      'regex-none-after-all',
      'regex-none-same-level',
      'parent-all',
      'vhost-beats-later-server',
      'wildcard',
      'vhost-all',
      'none-then-type',
      'type-then-none',
    ];
    const vhost = (site: string, ...inside: string[]) => [
      '<VirtualHost *:{port}>',
      `    ServerName ${site}.test`,
      `    DocumentRoot "{root}/${site}/html"`,
      ...inside.map((line) => `    ${line}`),
      '</VirtualHost>',
    ];
    const lines = [
      '<Directory "{root}/deeper-none">',
      '    AllowOverride All',
      '</Directory>',
      '<Directory "{root}/deeper-none/html">',
      '    AllowOverride None',
      '</Directory>',
      // The manual says AllowOverride is only for non-regex <Directory>; httpd 2.4.71 honours it in <DirectoryMatch> too.
      '<DirectoryMatch "^{root}/regex-section/">',
      '    AllowOverride All',
      '</DirectoryMatch>',
      // A regex that matches only a parent level still counts for the directories below it.
      '<DirectoryMatch "^{root}/regex-parent-only/$">',
      '    AllowOverride All',
      '</DirectoryMatch>',
      '<DirectoryMatch "^{root}/regex-no-slash/html$">',
      '    AllowOverride All',
      '</DirectoryMatch>',
      // For reading .htaccess, regex sections come first: a non-regex None, deeper or not, wins over them...
      '<Directory ~ "^{root}/regex-all-then-none">',
      '    AllowOverride All',
      '</Directory>',
      '<Directory "{root}/regex-all-then-none/html">',
      '    AllowOverride None',
      '</Directory>',
      // ...and a regex None does not undo a non-regex All, deeper or not.
      '<Directory "{root}/regex-none-after-all">',
      '    AllowOverride All',
      '</Directory>',
      '<DirectoryMatch "^{root}/regex-none-after-all/html/$">',
      '    AllowOverride None',
      '</DirectoryMatch>',
      '<Directory "{root}/regex-none-same-level/html">',
      '    AllowOverride All',
      '</Directory>',
      '<DirectoryMatch "^{root}/regex-none-same-level/html/$">',
      '    AllowOverride None',
      '</DirectoryMatch>',
      '<Directory "{root}/parent-all">',
      '    AllowOverride All',
      '</Directory>',
      '<Directory "{root}/wildcard/*">',
      '    AllowOverride All',
      '</Directory>',
      '<Directory "{root}/vhost-all/html">',
      '    AllowOverride None',
      '</Directory>',
      // The words add up in order and None empties the set: the last word decides.
      '<Directory "{root}/none-then-type/html">',
      '    AllowOverride None FileInfo',
      '</Directory>',
      '<Directory "{root}/type-then-none/html">',
      '    AllowOverride FileInfo None',
      '</Directory>',
      ...vhost('deeper-none'),
      ...vhost('regex-section'),
      ...vhost('regex-parent-only'),
      ...vhost('regex-no-slash'),
      ...vhost('regex-all-then-none'),
      ...vhost('regex-none-after-all'),
      ...vhost('regex-none-same-level'),
      ...vhost('parent-all'),
      ...vhost('vhost-beats-later-server', '<Directory "{root}/vhost-beats-later-server/html">', '    AllowOverride None', '</Directory>'),
      ...vhost('wildcard'),
      ...vhost('vhost-all', '<Directory "{root}/vhost-all/html">', '    AllowOverride All', '</Directory>'),
      ...vhost('none-then-type'),
      ...vhost('type-then-none'),
      // Written after the vhosts, but httpd applies the server's sections before a vhost's of the same depth.
      '<Directory "{root}/vhost-beats-later-server/html">',
      '    AllowOverride All',
      '</Directory>',
    ];
    await withRunningApache(
      t,
      binary,
      {
        mpm: 'prefork',
        lines: ['StartServers 2', ...lines],
        prepare: (root) => {
          for (const site of sites) {
            fs.mkdirSync(path.join(root, site, 'html'), { recursive: true });
            fs.writeFileSync(path.join(root, site, 'html', 'index.html'), `<p>${site}</p>\n`);
            fs.writeFileSync(path.join(root, site, 'html', '.htaccess'), 'ThisIsNotADirective\n');
          }
        },
      },
      async (_parent, port, root) => {
        const read = new Set<string>();
        for (const site of sites) {
          const status = await statusOf(port, `${site}.test`, '/index.html');
          assert.ok(status === 200 || status === 500, `${site}: ${status}`);
          if (status === 500) read.add(site);
        }
        assert.deepEqual(
          [...read].sort(),
          [
            'none-then-type',
            'parent-all',
            'regex-no-slash',
            'regex-none-after-all',
            'regex-none-same-level',
            'regex-parent-only',
            'regex-section',
            'vhost-all',
            'wildcard',
          ],
          'what httpd itself does',
        );

        const messages = await ruleMessages(
          'AP2012',
          [...lines.map((line) => line.replaceAll('{root}', root).replaceAll('{port}', '80')), ''].join('\n'),
        );
        const reported = messages.map((message) => new RegExp(`for DocumentRoot ${root}/([a-z-]+)/html costs`).exec(message)?.[1]);
        assert.deepEqual(reported.sort(), [...read].sort(), messages.join('\n'));
      },
    );
  });
});
