/**
 * A minimal ELF64 little-endian file whose `.rodata` section holds `rodata`:
 * what a server binary's version strings look like to the probe, for builds
 * this machine does not have installed (MySQL's, say). Not runnable: no
 * program headers, no code.
 */
export function elfWithRodata(rodata: string, padding = 0): Buffer {
  const data = Buffer.concat([Buffer.alloc(padding), Buffer.from(rodata, 'latin1')]);
  const names = Buffer.from('\0.rodata\0.shstrtab\0', 'latin1');
  const headerSize = 64;
  const entrySize = 64;
  const rodataOffset = headerSize;
  const namesOffset = rodataOffset + data.length;
  const tableOffset = namesOffset + names.length;
  const header = Buffer.alloc(headerSize);
  header.writeUInt32BE(0x7f454c46, 0);
  header[4] = 2; // ELFCLASS64
  header[5] = 1; // little-endian
  header[6] = 1; // EV_CURRENT
  header.writeUInt16LE(3, 0x10); // ET_DYN
  header.writeUInt16LE(62, 0x12); // x86-64
  header.writeUInt32LE(1, 0x14);
  header.writeBigUInt64LE(BigInt(tableOffset), 0x28);
  header.writeUInt16LE(headerSize, 0x34);
  header.writeUInt16LE(entrySize, 0x3a);
  header.writeUInt16LE(3, 0x3c);
  header.writeUInt16LE(2, 0x3e);
  const table = Buffer.alloc(3 * entrySize);
  const section = (index: number, name: number, type: number, offset: number, size: number) => {
    const at = index * entrySize;
    table.writeUInt32LE(name, at);
    table.writeUInt32LE(type, at + 4);
    table.writeBigUInt64LE(BigInt(offset), at + 0x18);
    table.writeBigUInt64LE(BigInt(size), at + 0x20);
  };
  section(1, 1, 1, rodataOffset, data.length); // PROGBITS
  section(2, 9, 3, namesOffset, names.length); // STRTAB
  return Buffer.concat([header, data, names, table]);
}
