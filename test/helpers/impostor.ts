import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporaryDirectory } from './host-fixtures.js';
import { NOBODY } from './host-probe-runner.js';

/**
 * A local user's look-alike of a server, as an attacker on a shared host
 * would run one: a process named `mariadbd` (or any name), running as
 * `nobody`, that listens on a unix socket and/or a loopback TCP port in a
 * directory anyone may write, and writes down every byte a client sends it.
 * It greets a client as a MySQL server would, asking for
 * mysql_native_password, so a client that trusted it would send its login.
 * Its binary is Node itself, reached through a symlink with the server's
 * name, which is what /proc/PID/status shows as the process name.
 */
export interface Impostor {
  readonly pid: number;
  readonly dir: string;
  readonly socket: string;
  /** Everything clients sent, as latin1 text ('' when no one connected). */
  received(): string;
  stop(): Promise<void>;
}

/** Why no impostor can run here (it needs root to run as another user), or undefined. */
export function impostorUnavailable(): string | undefined {
  return process.geteuid?.() === 0 ? undefined : 'needs root to run a look-alike server as another user';
}

const SCRIPT = `
const net = require('node:net');
const fs = require('node:fs');
const [socket, log, greet, port] = process.argv.slice(2);
// Protocol 10 greeting: version, thread id, 20-byte scramble, capabilities with CLIENT_PLUGIN_AUTH, plugin name.
const scramble = Buffer.alloc(20, 0x41);
const body = Buffer.concat([
  Buffer.from([10]), Buffer.from('10.11.19-MariaDB\\0'), Buffer.from([1, 0, 0, 0]), scramble.subarray(0, 8), Buffer.from([0]),
  Buffer.from([0xff, 0xf7]), Buffer.from([33]), Buffer.from([2, 0]), Buffer.from([0xff, 0x81]), Buffer.from([21]),
  Buffer.alloc(10), scramble.subarray(8), Buffer.from([0]), Buffer.from('mysql_native_password\\0'),
]);
const greeting = Buffer.concat([Buffer.from([body.length & 0xff, (body.length >> 8) & 0xff, 0, 0]), body]);
const serve = (connection) => {
  fs.appendFileSync(log, '[connected]');
  connection.on('data', (chunk) => fs.appendFileSync(log, chunk.toString('latin1')));
  connection.on('error', () => undefined);
  if (greet === 'greet') connection.write(greeting);
};
fs.writeFileSync(log, '');
const servers = [];
if (socket !== '-') servers.push(net.createServer(serve).listen(socket));
if (port !== undefined) servers.push(net.createServer(serve).listen(Number(port), '127.0.0.1'));
let listening = 0;
for (const server of servers) server.on('listening', () => { if (++listening === servers.length) fs.writeFileSync(log + '.ready', ''); });
`;

export interface ImpostorOptions {
  /** The socket's file name, in the process's own directory. */
  readonly socketName?: string;
  /** A port of 127.0.0.1 to listen on too. */
  readonly port?: number;
  /** Run as root, in a directory only root may write: a real server that hangs, rather than a look-alike. */
  readonly asRoot?: boolean;
  /** Accept and never answer, instead of greeting as MySQL does. */
  readonly silent?: boolean;
}

/**
 * Starts a look-alike named `name` as nobody, listening on a socket in a
 * world-writable directory of its own and on a port of 127.0.0.1 when one is
 * given.
 */
export async function startImpostor(name: string, options: ImpostorOptions = {}): Promise<Impostor> {
  const { dir, remove } = temporaryDirectory('tune-lint-impostor-');
  fs.chmodSync(dir, 0o755);
  const run = path.join(dir, 'run');
  const runMode = options.asRoot === true ? 0o755 : 0o777;
  fs.mkdirSync(run, { mode: runMode });
  fs.chmodSync(run, runMode);
  const script = path.join(dir, 'server.cjs');
  fs.writeFileSync(script, SCRIPT, { mode: 0o644 });
  const binary = path.join(dir, name);
  fs.symlinkSync(process.execPath, binary);
  const socket = options.socketName === undefined ? '-' : path.join(run, options.socketName);
  const log = path.join(run, 'received.log');
  const greet = options.silent === true ? 'silent' : 'greet';
  const child = spawn(binary, [script, socket, log, greet, ...(options.port === undefined ? [] : [String(options.port)])], {
    uid: options.asRoot === true ? 0 : NOBODY,
    gid: options.asRoot === true ? 0 : NOBODY,
    stdio: 'ignore',
    cwd: run,
  });
  const pid = child.pid as number;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!fs.existsSync(`${log}.ready`)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      remove();
      throw new Error(`the look-alike ${name} did not start listening`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    pid,
    dir,
    socket,
    received: () => fs.readFileSync(log, 'latin1'),
    stop: async () => {
      if (child.exitCode === null) {
        process.kill(pid, 'SIGKILL');
        await exited;
      }
      remove();
    },
  };
}
