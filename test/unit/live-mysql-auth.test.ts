import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as net from 'node:net';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { askMysql } from '../../src/live/mysql.js';
import { temporaryDirectory } from '../helpers/host-fixtures.js';

/*
 * What crosses the socket when a server asks for the password. A server
 * speaking the MySQL protocol in this process asks the way MySQL 8's
 * caching_sha2_password does on a cold cache ("perform full authentication"),
 * or switches to mysql_clear_password; every byte the client sends is kept.
 * On a unix socket MySQL wants the password itself for the first (it takes
 * the socket for a secure channel and refuses the RSA exchange there, as the
 * real MySQL 9.7 of test/oracle/mysql9-oracle.test.ts does), and the socket is
 * one a trusted server holds (mysql-client.ts); the second, which hands the
 * password to PAM or LDAP, is refused.
 */

const PASSWORD = 'tl-s3cret-Pw';

function packet(sequence: number, body: Buffer): Buffer {
  const header = Buffer.from([body.length & 0xff, (body.length >> 8) & 0xff, (body.length >> 16) & 0xff, sequence]);
  return Buffer.concat([header, body]);
}

function greeting(scramble: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from([10]),
    Buffer.from('8.0.40\0'),
    Buffer.from([7, 0, 0, 0]),
    scramble.subarray(0, 8),
    Buffer.from([0]),
    Buffer.from([0xff, 0xf7]), // capabilities, low: protocol 4.1, secure connection; no SSL
    Buffer.from([255]),
    Buffer.from([2, 0]),
    Buffer.from([0xff, 0xdf]), // capabilities, high: plugin auth
    Buffer.from([21]),
    Buffer.alloc(10),
    scramble.subarray(8),
    Buffer.from([0]),
    Buffer.from('caching_sha2_password\0'),
  ]);
}

const OK = Buffer.from([0, 0, 0, 2, 0, 0, 0]);
const ERROR = Buffer.concat([Buffer.from([0xff, 0x28, 0x04]), Buffer.from('#HY000enough')]);

interface Exchange {
  /** Every packet body the client sent, in order. */
  readonly sent: Buffer[];
  /** What the client answered "perform full authentication" with. */
  answered?: string;
}

/** A server on a socket that asks for the password the way `mode` says, and records the client's packets. */
async function fakeServer(
  t: { after: (fn: () => Promise<void> | void) => void },
  mode: 'full-authentication' | 'clear-text',
): Promise<{ socket: string; exchange: Exchange }> {
  const { dir, remove } = temporaryDirectory('tune-lint-auth-');
  t.after(remove);
  const socketPath = path.join(dir, 'mysqld.sock');
  const exchange: Exchange = { sent: [] };
  const scramble = Buffer.from(crypto.randomBytes(20).map((byte) => (byte % 94) + 33));
  const server = net.createServer((connection) => {
    let buffered = Buffer.alloc(0);
    let step = 0;
    connection.write(packet(0, greeting(scramble)));
    connection.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4) {
        const length = buffered.readUIntLE(0, 3);
        if (buffered.length < 4 + length) return;
        const sequence = buffered[3] as number;
        const body = buffered.subarray(4, 4 + length);
        buffered = buffered.subarray(4 + length);
        exchange.sent.push(Buffer.from(body));
        step++;
        const reply = (bytes: Buffer) => connection.write(packet(sequence + 1, bytes));
        if (step === 1) {
          const plugin = mode === 'clear-text' ? 'mysql_clear_password' : 'caching_sha2_password';
          reply(Buffer.concat([Buffer.from([0xfe]), Buffer.from(`${plugin}\0`), scramble, Buffer.from([0])]));
        } else if (mode === 'full-authentication' && step === 2) {
          reply(Buffer.from([0x01, 0x04]));
        } else if (mode === 'full-authentication' && step === 3) {
          // As MySQL on a socket: the answer is the password and a NUL; a request for the RSA key (0x02) is a wrong password.
          exchange.answered = body.toString();
          reply(exchange.answered === `${PASSWORD}\0` ? OK : ERROR);
        } else {
          reply(ERROR);
          connection.end();
        }
      }
    });
    connection.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { socket: socketPath, exchange };
}

const everything = (exchange: Exchange) => Buffer.concat(exchange.sent).toString('latin1');

describe('the password on the socket', () => {
  it("caching_sha2_password's full authentication on the trusted server's socket: the password, as MySQL's own client sends it", async (t) => {
    const { socket, exchange } = await fakeServer(t, 'full-authentication');
    const notes: string[] = [];
    await askMysql({ user: 'tl', password: PASSWORD, socket: undefined, source: 'test' }, { path: socket, pid: 1 }, 1_000, notes);
    assert.equal(exchange.answered, `${PASSWORD}\0`, notes.join('; '));
  });

  it('a server that asks for mysql_clear_password gets no password', async (t) => {
    const { socket, exchange } = await fakeServer(t, 'clear-text');
    const notes: string[] = [];
    const fact = await askMysql(
      { user: 'tl', password: PASSWORD, socket: undefined, source: 'test' },
      { path: socket, pid: 1 },
      1_000,
      notes,
    );
    assert.equal(fact, undefined);
    assert.ok(!everything(exchange).includes(PASSWORD), 'the password was handed to mysql_clear_password');
    assert.match(notes.join('\n'), /not asked: .*mysql_clear_password/);
  });
});
