import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { ProcReader } from '../../src/host/proc.js';
import { canonicalIpv6, tcpListeners, unixListeners } from '../../src/host/sockets.js';
import { loadApache } from '../../src/languages/apache/model.js';
import { askApache } from '../../src/live/apache.js';
import { temporaryDirectory, writeTree } from '../helpers/host-fixtures.js';

/*
 * Where the live mode sends its one HTTP request: an IP literal on loopback,
 * on a port the running Apache (root's parent, by its descriptors in /proc)
 * listens on, for a path a `<Location>` hands to server-status; built from
 * host, port and path, never from a URL a config wrote. The running Apache is
 * a fake /proc tree here; the server that answers is this test's own.
 */

const STATUS_PAGE = 'ServerMPM: event\nTotal Accesses: 7\nBusyWorkers: 1\nIdleWorkers: 49\nScoreboard: W_______\n';

function tcpTable(entries: readonly { address: string; port: number; inode: number }[]): string {
  const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
  const hex = (address: string) =>
    address
      .split('.')
      .map((octet) => Number(octet).toString(16).padStart(2, '0').toUpperCase())
      .reverse()
      .join('');
  return (
    header +
    entries
      .map(
        (entry, index) =>
          `   ${index}: ${hex(entry.address)}:${entry.port.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 ${entry.inode} 1 0000000000000000 100 0 0 10 0\n`,
      )
      .join('')
  );
}

/** A fake /proc in which root's apache2 (PID 100) holds listening sockets on these ports of 0.0.0.0. */
function runningApacheListeningOn(t: { after: (fn: () => void) => void }, ports: readonly number[]): ProcReader {
  const { dir, remove } = temporaryDirectory('tune-lint-proc-');
  t.after(remove);
  writeTree(dir, {
    '/proc/100/status': 'Name:\tapache2\nPid:\t100\nPPid:\t1\nUid:\t0\t0\t0\t0\n',
    '/proc/net/tcp': tcpTable(ports.map((port, index) => ({ address: '0.0.0.0', port, inode: 5000 + index }))),
  });
  fs.mkdirSync(path.join(dir, 'proc/100/fd'));
  ports.forEach((_, index) => fs.symlinkSync(`socket:[${5000 + index}]`, path.join(dir, `proc/100/fd/${3 + index}`)));
  return new ProcReader(dir);
}

function configListening(t: { after: (fn: () => void) => void }, listens: readonly string[], location = '/server-status') {
  const { dir, remove } = temporaryDirectory('tune-lint-status-');
  t.after(remove);
  const file = path.join(dir, 'httpd.conf');
  fs.writeFileSync(
    file,
    [
      `ServerRoot ${dir}`,
      'LoadModule status_module /usr/lib/apache2/modules/mod_status.so',
      `<Location ${location}>`,
      '    SetHandler server-status',
      '</Location>',
      ...listens.map((listen) => `Listen ${listen}`),
      '',
    ].join('\n'),
  );
  return loadApache(file, { fs: new ConfigFileSystem({ cwd: dir }), httpd: '2.4.71' });
}

async function statusServer(t: { after: (fn: () => Promise<void>) => void }): Promise<{ port: number; requests: string[] }> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.headers.host ?? ''} ${request.url ?? ''}`);
    response.end(STATUS_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as { port: number }).port, requests };
}

describe("the live status page: loopback, the running server's own port, no URL from a file", () => {
  it('asks 127.0.0.1 on a port the running Apache listens on, and nothing else', async (t) => {
    const server = await statusServer(t);
    const notes: string[] = [];
    const reader = runningApacheListeningOn(t, [server.port]);
    const fact = await askApache(
      configListening(t, [String(server.port)]),
      reader,
      [{ pid: 100, ppid: 1, name: 'apache2', rss: 0 }],
      notes,
    );
    assert.deepEqual(notes, []);
    assert.equal(fact?.value.status?.url, `http://127.0.0.1:${server.port}/server-status?auto`);
    assert.deepEqual(server.requests, [`127.0.0.1:${server.port} /server-status?auto`]);
  });

  it('Listen lines that only look like loopback are never asked', async (t) => {
    const server = await statusServer(t);
    const reader = runningApacheListeningOn(t, [80, server.port]);
    const hostile = [
      '127.0.0.1@attacker.example:80',
      '127.0.0.1.attacker.example:80',
      'localhost:80',
      '127.0.0.1:80@x',
      '127.000.000.001x:80',
    ];
    const notes: string[] = [];
    const fact = await askApache(configListening(t, hostile), reader, [{ pid: 100, ppid: 1, name: 'apache2', rss: 0 }], notes);
    assert.equal(fact, undefined);
    assert.deepEqual(notes, ['Apache status not asked: no plain-HTTP Listen takes connections on a loopback address']);
    assert.deepEqual(server.requests, []);
  });

  it('a loopback port the running Apache does not hold is not asked, whoever answers there', async (t) => {
    const server = await statusServer(t);
    const reader = runningApacheListeningOn(t, [server.port + 1 > 65535 ? 1 : server.port + 1]);
    const notes: string[] = [];
    const parents = [{ pid: 100, ppid: 1, name: 'apache2', rss: 0 }];
    assert.equal(await askApache(configListening(t, [`127.0.0.1:${server.port}`]), reader, parents, notes), undefined);
    assert.deepEqual(notes, [
      `Apache status not asked: the running Apache listens on none of the loopback ports its config names (${server.port})`,
    ]);
    const noneOfRoot: string[] = [];
    assert.equal(await askApache(configListening(t, [`127.0.0.1:${server.port}`]), reader, [], noneOfRoot), undefined);
    assert.match(noneOfRoot[0] ?? '', /the running Apache \(none of root runs\) listens on none/);
    assert.deepEqual(server.requests, []);
  });

  it('a <Location> path that is not a plain path is not put on a request line', async (t) => {
    const server = await statusServer(t);
    const reader = runningApacheListeningOn(t, [server.port]);
    const notes: string[] = [];
    const parents = [{ pid: 100, ppid: 1, name: 'apache2', rss: 0 }];
    const config = configListening(t, [String(server.port)], '"/status x HTTP/1.0\\r\\nHost: evil"');
    assert.equal(await askApache(config, reader, parents, notes), undefined);
    assert.deepEqual(server.requests, []);
  });
});

describe('socket tables of /proc/net', () => {
  it('reads listening TCP sockets of both families in network order', (t) => {
    const { dir, remove } = temporaryDirectory('tune-lint-net-');
    t.after(remove);
    writeTree(dir, {
      '/proc/net/tcp': tcpTable([
        { address: '127.0.0.1', port: 8080, inode: 11 },
        { address: '0.0.0.0', port: 80, inode: 12 },
      ]),
      '/proc/net/tcp6':
        '  sl  local_address                         remote_address                        st\n' +
        '   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 13 1\n' +
        '   1: 00000000000000000000000000000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 14 1\n' +
        '   2: 00000000000000000000000000000000:0051 00000000000000000000000000000000:0000 01 00000000:00000000 00:00000000 00000000     0        0 15 1\n',
      '/proc/net/unix':
        'Num       RefCount Protocol Flags    Type St Inode Path\n' +
        '0000000000000000: 00000002 00000000 00010000 0001 01 20342 /run/mysqld/mysqld.sock\n' +
        '0000000000000000: 00000002 00000000 00010000 0001 01 20343 /tmp/with space.sock\n' +
        '0000000000000000: 00000003 00000000 00000000 0001 03 20344 /run/mysqld/mysqld.sock\n' +
        '0000000000000000: 00000002 00000000 00010000 0002 01 20345 /run/dgram.sock\n' +
        '0000000000000000: 00000002 00000000 00010000 0001 01 20346\n',
    });
    const reader = new ProcReader(dir);
    const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
    if (little) {
      assert.deepEqual(tcpListeners(reader), [
        { inode: '11', address: '127.0.0.1', port: 8080 },
        { inode: '12', address: '0.0.0.0', port: 80 },
        { inode: '13', address: '::1', port: 8080 },
        { inode: '14', address: '::', port: 80 },
      ]);
    }
    assert.deepEqual(unixListeners(reader), [
      { inode: '20342', path: '/run/mysqld/mysqld.sock' },
      { inode: '20343', path: '/tmp/with space.sock' },
    ]);
  });

  it('IPv6 literals in their canonical form', () => {
    assert.equal(canonicalIpv6('0:0:0:0:0:0:0:1'), '::1');
    assert.equal(canonicalIpv6('::'), '::');
    assert.equal(canonicalIpv6('FE80:0:0::1'), 'fe80::1');
    assert.equal(canonicalIpv6('1::2::3'), undefined);
    assert.equal(canonicalIpv6('::1@x'), undefined);
    assert.equal(canonicalIpv6('1:2:3:4:5:6:7:8:9'), undefined);
  });
});
