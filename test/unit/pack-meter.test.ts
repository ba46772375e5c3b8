import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CheckoutError } from '#shared/grading/checkout/error.ts';
import { PackMeter } from '#shared/grading/checkout/pack.ts';

// The size of a fetched pack once inflated, counted as the response arrives (checkout/pack.ts).

const BLOB = 3;
const OFS_DELTA = 6;
const REF_DELTA = 7;

/** An object header as git's pack format writes it: type and size, then 7 bits of size per byte. */
function objectHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size % 16)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) | 0x80;
    bytes.push(rest % 128);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

/** A size as a delta's start writes it: 7 bits per byte, lowest first. */
function deltaSize(size: number): number[] {
  const bytes: number[] = [];
  let rest = size;
  do {
    bytes.push((rest % 128) | (rest >= 128 ? 0x80 : 0));
    rest = Math.floor(rest / 128);
  } while (rest > 0);
  return bytes;
}

const blob = (content: Buffer, declared = content.length) => Buffer.concat([objectHeader(BLOB, declared), deflateSync(content)]);

/** A delta against the object `back` bytes earlier (or, REF_DELTA, against an object id) that makes `target` bytes. */
function delta(target: number, kind: 'ofs' | 'ref' = 'ofs'): Buffer {
  const data = Buffer.from([...deltaSize(10), ...deltaSize(target), 0x90, 0x0a]);
  const base = kind === 'ofs' ? Buffer.from([0x85, 0x03]) : Buffer.alloc(20, 0xab);
  return Buffer.concat([objectHeader(kind === 'ofs' ? OFS_DELTA : REF_DELTA, data.length), base, deflateSync(data)]);
}

function pack(objects: readonly Buffer[], count = objects.length): Buffer {
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(count, 8);
  const body = Buffer.concat([head, ...objects]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

const pktLine = (payload: Buffer) => Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0')), payload]);

/** An upload-pack response: acknowledgement, then the pack on side-band channel 1 in `slice`-byte packets between progress lines. */
function response(packBytes: Buffer, slice = 1000): Buffer {
  const parts = [pktLine(Buffer.from('shallow ' + 'a'.repeat(40) + '\n')), Buffer.from('0000'), pktLine(Buffer.from('NAK\n'))];
  for (let at = 0; at < packBytes.length; at += slice) {
    parts.push(pktLine(Buffer.concat([Buffer.from([2]), Buffer.from('Counting objects\r')])));
    parts.push(pktLine(Buffer.concat([Buffer.from([1]), packBytes.subarray(at, at + slice)])));
  }
  parts.push(Buffer.from('0000'));
  return Buffer.concat(parts);
}

/** Feeds `bytes` to a meter of `maxBytes` in chunks of `chunk` bytes: the total counted, or the error. */
async function meter(bytes: Buffer, maxBytes: number, chunk = bytes.length): Promise<number | Error> {
  const counting = new PackMeter(maxBytes);
  try {
    for (let at = 0; at < bytes.length; at += chunk) await counting.write(bytes.subarray(at, at + chunk));
    return counting.total;
  } catch (error) {
    return error as Error;
  } finally {
    counting.close();
  }
}

const tooLarge = (limit: string) => new CheckoutError(`the repository is larger than the limit of ${limit}`);

describe('the pack meter', () => {
  const files = [Buffer.from('echo hello\n'), Buffer.alloc(5000, 'x'), Buffer.from(createHash('sha512').update('seed').digest('hex'))];
  const ordinary = response(pack([...files.map((file) => blob(file)), delta(70_000)]), 700);
  const inflated = 11 + 5000 + 128 + 70_000;

  it('counts every object once inflated, a delta as what it makes, however the response is cut', async () => {
    for (const chunk of [1, 2, 7, 64, 1000, ordinary.length]) expect(await meter(ordinary, 1024 * 1024, chunk)).toBe(inflated);
    expect(await meter(response(pack([delta(1234, 'ref')])), 1024 * 1024, 3)).toBe(1234);
  });

  it('refuses as soon as the objects pass the limit', async () => {
    expect(await meter(ordinary, inflated - 1, 5)).toEqual(tooLarge('73 KB'));
    expect(await meter(ordinary, inflated)).toBe(inflated);
  });

  it('refuses a huge zero blob on its header, before inflating any of it', async () => {
    const header = objectHeader(BLOB, 1024 ** 3);
    // Only the pack's start and the object's header: no data at all.
    const start = pack([header], 1).subarray(0, 12 + header.length);
    expect(await meter(response(start), 50 * 1024 * 1024)).toEqual(tooLarge('50 MB'));
  });

  it('refuses a delta that makes more than the limit from a few bytes', async () => {
    expect(await meter(response(pack([blob(Buffer.from('x')), delta(2 ** 40)])), 50 * 1024 * 1024, 9)).toEqual(tooLarge('50 MB'));
  });

  it('refuses an object that inflates to more than its header declares, without inflating the rest', async () => {
    const lying = blob(Buffer.alloc(64 * 1024 * 1024), 10);
    const error = await meter(response(pack([lying]), 60_000), 1024 ** 3);
    expect(error).toBeInstanceOf(CheckoutError);
    expect((error as Error).message).toBe('the repository could not be fetched (the server sent a damaged pack)');
    // And one that inflates to less.
    expect(await meter(response(pack([blob(Buffer.from('abc'), 4)])), 1024)).toBeInstanceOf(CheckoutError);
  });

  it('leaves what is not a pack to the git client', async () => {
    expect(await meter(Buffer.from('<html>Not found</html>'), 10)).toBe(0);
    expect(await meter(response(Buffer.from('JUNK and more junk after it')), 10)).toBe(0);
  });
});
