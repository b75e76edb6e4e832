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
 * mysql2 on its own answers the first with the bare password over any unix
 * socket; the live mode must ask for the server's RSA key and send the
 * password encrypted, and refuse the second.
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
  /** What the client sent in the end for the password, decrypted with the server's key. */
  decrypted?: string;
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
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
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
        } else if (mode === 'full-authentication' && step === 3 && body.length === 1 && body[0] === 0x02) {
          reply(Buffer.concat([Buffer.from([0x01]), Buffer.from(publicKey.export({ type: 'spki', format: 'pem' }))]));
        } else if (mode === 'full-authentication' && step === 4) {
          const xored = crypto.privateDecrypt(
            { key: privateKey, oaepHash: 'sha1', padding: crypto.constants.RSA_PKCS1_OAEP_PADDING },
            body,
          );
          exchange.decrypted = Buffer.from(xored.map((byte, index) => byte ^ (scramble[index % scramble.length] as number))).toString();
          reply(OK);
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
  it("caching_sha2_password's full authentication: the server's RSA key is asked for, the password sent encrypted", async (t) => {
    const { socket, exchange } = await fakeServer(t, 'full-authentication');
    const notes: string[] = [];
    await askMysql({ user: 'tl', password: PASSWORD, socket: undefined, source: 'test' }, { path: socket, pid: 1 }, 1_000, notes);
    assert.ok(exchange.sent.length >= 4, `the client stopped after ${exchange.sent.length} packets: ${notes.join('; ')}`);
    assert.deepEqual([...(exchange.sent[2] ?? [])], [0x02], 'the answer to "perform full authentication" is a request for the key');
    assert.equal(exchange.decrypted, `${PASSWORD}\0`, 'the server could decrypt the password with its key');
    assert.ok(!everything(exchange).includes(PASSWORD), 'the password crossed the socket in clear');
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
    assert.ok(!everything(exchange).includes(PASSWORD), 'the password crossed the socket in clear');
    assert.match(notes.join('\n'), /not asked: .*mysql_clear_password/);
  });
});
