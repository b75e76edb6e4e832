import type { ProcReader } from './proc.js';

/*
 * Which sockets a process listens on, from /proc alone: its descriptors
 * (/proc/PID/fd, `socket:[INODE]`) matched to the kernel's socket tables
 * (/proc/net/unix, /proc/net/tcp, /proc/net/tcp6) by inode. Node has no
 * SO_PEERCRED, so this is how tune-lint knows that a socket path or a port is
 * the running server's and not one a local user bound.
 */

/** The socket inodes among a process's open descriptors; empty when they cannot be read. */
export function socketInodes(reader: ProcReader, pid: number): ReadonlySet<string> {
  const inodes = new Set<string>();
  for (const fd of reader.list(`/proc/${pid}/fd`) ?? []) {
    const match = /^socket:\[(\d+)\]$/.exec(reader.link(`/proc/${pid}/fd/${fd}`) ?? '');
    if (match !== null) inodes.add(match[1] as string);
  }
  return inodes;
}

/** A listening unix stream socket: its inode and the path it was bound to (`@name` for the abstract namespace). */
export interface UnixListener {
  readonly inode: string;
  readonly path: string;
}

/** `__SO_ACCEPTCON` in the Flags column: the socket listens. */
const ACCEPTS_CONNECTIONS = 0x10000;
const SOCK_STREAM = 1;

/** The listening stream sockets of /proc/net/unix that have a path. */
export function unixListeners(reader: ProcReader): UnixListener[] {
  const table = reader.read('/proc/net/unix');
  if (!table.ok) return [];
  const listeners: UnixListener[] = [];
  for (const line of table.text.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the rest of the line, spaces and all.
    const match = /^\s*[0-9a-f]+: [0-9a-f]+ [0-9a-f]+ ([0-9a-f]+) ([0-9a-f]+) [0-9a-f]+ +(\d+) (.+)$/i.exec(line);
    if (match === null) continue;
    const flags = parseInt(match[1] as string, 16);
    const type = parseInt(match[2] as string, 16);
    if ((flags & ACCEPTS_CONNECTIONS) !== 0 && type === SOCK_STREAM)
      listeners.push({ inode: match[3] as string, path: match[4] as string });
  }
  return listeners;
}

/** A listening TCP socket: its inode, the address it is bound to (`0.0.0.0`, `127.0.0.1`, `::`, `::1`) and its port. */
export interface TcpListener {
  readonly inode: string;
  readonly address: string;
  readonly port: number;
}

const TCP_LISTEN = 0x0a;

/** The listening sockets of /proc/net/tcp and /proc/net/tcp6. */
export function tcpListeners(reader: ProcReader): TcpListener[] {
  const listeners: TcpListener[] = [];
  for (const [file, family] of [
    ['/proc/net/tcp', 4],
    ['/proc/net/tcp6', 6],
  ] as const) {
    const table = reader.read(file);
    if (!table.ok) continue;
    for (const line of table.text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [, local, , state, , , , , , inode] = fields;
      if (local === undefined || state === undefined || inode === undefined || parseInt(state, 16) !== TCP_LISTEN) continue;
      const [addressHex, portHex] = local.split(':');
      const address = addressHex === undefined ? undefined : decodeAddress(addressHex, family);
      if (address === undefined || portHex === undefined) continue;
      listeners.push({ inode, address, port: parseInt(portHex, 16) });
    }
  }
  return listeners;
}

/**
 * The kernel prints an address as 32-bit words in host byte order: on a
 * little-endian machine 127.0.0.1 is `0100007F`. Each word's bytes are
 * reversed back into network order.
 */
function decodeAddress(hex: string, family: 4 | 6): string | undefined {
  if (hex.length !== (family === 4 ? 8 : 32) || !/^[0-9a-f]+$/i.test(hex)) return undefined;
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const value = hex.slice(word, word + 8);
    const wordBytes = [0, 2, 4, 6].map((at) => parseInt(value.slice(at, at + 2), 16));
    bytes.push(...(LITTLE_ENDIAN ? wordBytes.reverse() : wordBytes));
  }
  if (family === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let at = 0; at < 16; at += 2) groups.push((((bytes[at] as number) << 8) | (bytes[at + 1] as number)).toString(16));
  return compressIpv6(groups);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** An IPv6 literal (`0:0::1`, `::ffff:127.0.0.1` is not taken) in RFC 5952's form, or undefined when it is not one. */
export function canonicalIpv6(text: string): string | undefined {
  const halves = text.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string | undefined) => (half === undefined || half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return compressIpv6(groups.map((group) => parseInt(group, 16).toString(16)));
}

/** RFC 5952's form: the longest run of two or more zero groups as `::` (`::1`, `::`, `fe80::1`). */
function compressIpv6(groups: readonly string[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < groups.length;) {
    let end = start;
    while (end < groups.length && groups[end] === '0') end++;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end === start ? start + 1 : end;
  }
  if (bestStart === -1) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}
