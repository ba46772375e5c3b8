/**
 * Builds zip archives for tests, including hostile ones no zip tool makes: names with `..` or
 * absolute paths, links and devices (Unix modes in the external attributes), encrypted flags,
 * and sizes that lie about what an entry inflates to.
 */
import { deflateRawSync } from 'node:zlib';

export interface ZipEntrySpec {
  readonly name: string;
  readonly content?: Buffer | string;
  /** A Unix mode (type and permissions), written as Unix "made by". */
  readonly mode?: number;
  /** The uncompressed size to declare instead of the real one. */
  readonly declaredSize?: number;
  /** Deflate the content (default for content over 64 bytes). */
  readonly deflate?: boolean;
  readonly encrypted?: boolean;
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function makeZip(entries: readonly ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const spec of entries) {
    const content = Buffer.isBuffer(spec.content) ? spec.content : Buffer.from(spec.content ?? '', 'utf8');
    const deflate = spec.deflate ?? content.length > 64;
    const packed = deflate ? deflateRawSync(content) : content;
    // An encrypted entry starts with its 12-byte encryption header.
    const data = spec.encrypted ? Buffer.concat([Buffer.alloc(12), packed]) : packed;
    const name = Buffer.from(spec.name, 'utf8');
    const flags = 0x800 | (spec.encrypted ? 1 : 0);
    const size = spec.declaredSize ?? content.length;
    const crc = crc32(content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(spec.mode === undefined ? 20 : (3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(spec.mode === undefined ? 0 : (spec.mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
