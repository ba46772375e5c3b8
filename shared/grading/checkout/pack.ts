import { createInflate, type Inflate } from 'node:zlib';
import { CheckoutError } from './error.ts';
import { formatBytes } from './files.ts';

/** Pack object types (git's pack format): 1–4 whole objects, 6 and 7 deltas against another object. */
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** A size in a pack header or delta header never needs more bytes than this (2^63). */
const MAX_VARINT_BYTES = 10;

const damaged = () => new CheckoutError('the repository could not be fetched (the server sent a damaged pack)');

/**
 * Follows a `git-upload-pack` response as it arrives and throws CheckoutError once the objects in
 * its pack add up to more than `maxBytes` once inflated, before anything inflates them: a whole
 * object counts the size its header declares (checked before any of it is inflated), a delta the
 * size of the object it makes (read from the first bytes of the delta). Each object is inflated
 * here only to find where it ends, its output counted and dropped, and refused once it passes the
 * size its header declared. Memory stays a few buffers whatever the pack holds.
 *
 * The response is read as isomorphic-git reads it: pkt-lines, whose side-band channel 1 carries
 * the pack. Anything it would refuse (not a pack, a bad pkt-line) stops the counting and is left
 * to isomorphic-git to refuse.
 */
export class PackMeter {
  readonly #maxBytes: number;
  readonly #tooLargeError: () => CheckoutError;
  #total = 0;
  // pkt-line layer
  #lineHeader = '';
  #lineLeft = 0;
  #lineChannel: number | undefined;
  // pack layer
  #stage: 'signature' | 'header' | 'data' | 'trailer' | 'done' = 'signature';
  #signature: number[] = [];
  #objectsLeft = 0;
  #header: number[] = [];
  #object: ObjectInflater | undefined;

  /** `tooLarge`: the error once over `maxBytes` (by default, that the repository is larger than `maxBytes`). */
  constructor(maxBytes: number, tooLarge?: () => CheckoutError) {
    this.#maxBytes = maxBytes;
    this.#tooLargeError = tooLarge ?? (() => new CheckoutError(`the repository is larger than the limit of ${formatBytes(maxBytes)}`));
  }

  /** The inflated size counted so far. */
  get total(): number {
    return this.#total;
  }

  /** Counts the next bytes of the response; rejects with CheckoutError once over the limit. */
  async write(chunk: Uint8Array): Promise<void> {
    let at = 0;
    while (at < chunk.length && this.#stage !== 'done') {
      if (this.#lineLeft === 0) {
        this.#lineHeader += String.fromCharCode(chunk[at] ?? 0);
        at += 1;
        if (this.#lineHeader.length < 4) continue;
        const hex = this.#lineHeader;
        this.#lineHeader = '';
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return this.#stop();
        const length = Number.parseInt(hex, 16);
        if (length === 0 || length === 1) continue; // flush and delimiter packets
        if (length < 4) return this.#stop();
        this.#lineLeft = length - 4;
        this.#lineChannel = undefined;
        continue;
      }
      if (this.#lineChannel === undefined) {
        this.#lineChannel = chunk[at] ?? 0;
        at += 1;
        this.#lineLeft -= 1;
        continue;
      }
      const take = Math.min(this.#lineLeft, chunk.length - at);
      const payload = chunk.subarray(at, at + take);
      at += take;
      this.#lineLeft -= take;
      if (this.#lineChannel === 1) await this.#pack(payload);
    }
  }

  /** Stops counting for good (the response is not one this meter understands) and frees the inflater. */
  #stop(): void {
    this.#stage = 'done';
    this.#object?.destroy();
    this.#object = undefined;
  }

  /** Releases the inflater of an object cut short (the response ended or failed). */
  close(): void {
    this.#stop();
  }

  async #pack(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) {
      switch (this.#stage) {
        case 'signature': {
          this.#signature.push(bytes[at] ?? 0);
          at += 1;
          if (this.#signature.length < 12) break;
          const signature = Buffer.from(this.#signature);
          if (signature.toString('latin1', 0, 4) !== 'PACK') return this.#stop();
          this.#objectsLeft = signature.readUInt32BE(8);
          this.#stage = this.#objectsLeft > 0 ? 'header' : 'trailer';
          break;
        }
        case 'header': {
          this.#header.push(bytes[at] ?? 0);
          at += 1;
          const header = parseHeader(this.#header);
          if (header === 'more') break;
          if (header === 'damaged') throw damaged();
          this.#header = [];
          // A whole object counts what it declares; a delta, what it makes (known once its start is inflated).
          if (header.type !== OFS_DELTA && header.type !== REF_DELTA) this.#add(header.size);
          else if (header.size > this.#maxBytes - this.#total) this.#tooLarge();
          this.#object = new ObjectInflater(header.size, header.type === OFS_DELTA || header.type === REF_DELTA);
          this.#stage = 'data';
          break;
        }
        case 'data': {
          const object = this.#object;
          if (!object) return this.#stop();
          const { consumed, ended } = await object.write(bytes.subarray(at));
          at += consumed;
          if (object.targetSize !== undefined && !object.targetCounted) {
            object.targetCounted = true;
            this.#add(object.targetSize);
          }
          if (!ended) break;
          await object.finish();
          this.#object = undefined;
          this.#objectsLeft -= 1;
          this.#stage = this.#objectsLeft > 0 ? 'header' : 'trailer';
          break;
        }
        case 'trailer':
        case 'done':
          this.#stage = 'done';
          return;
      }
    }
  }

  #add(bytes: number): void {
    this.#total += bytes;
    if (this.#total > this.#maxBytes) this.#tooLarge();
  }

  #tooLarge(): never {
    this.#stop();
    throw this.#tooLargeError();
  }
}

/** An object's header (type, inflated size, and a delta's base), read from its bytes so far. */
function parseHeader(bytes: readonly number[]): { type: number; size: number } | 'more' | 'damaged' {
  const first = bytes[0] ?? 0;
  const type = (first >> 4) & 0b111;
  if (type === 0 || type === 5) return 'damaged';
  let size = first & 0b1111;
  let at = 1;
  if (first & 0x80) {
    let shift = 4;
    for (;;) {
      if (at >= bytes.length) return 'more';
      if (at > MAX_VARINT_BYTES) return 'damaged';
      const byte = bytes[at] ?? 0;
      at += 1;
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(byte & 0x80)) break;
    }
  }
  if (type === REF_DELTA) return bytes.length < at + 20 ? 'more' : { type, size };
  if (type === OFS_DELTA) {
    // The base's offset: a varint ending with a byte whose high bit is clear.
    for (let index = at; index < bytes.length; index += 1) {
      if (index - at >= MAX_VARINT_BYTES) return 'damaged';
      if (!((bytes[index] ?? 0) & 0x80)) return { type, size };
    }
    return 'more';
  }
  return { type, size };
}

/**
 * One object's deflated data: inflated as it arrives, only to find where it ends, its output
 * counted and dropped (a delta's first bytes kept to read the size of what it makes).
 */
class ObjectInflater {
  readonly #declared: number;
  readonly #delta: boolean;
  readonly #inflate: Inflate;
  readonly #ended: Promise<void>;
  #output = 0;
  #start: number[] = [];
  #failure: Error | undefined;
  targetSize: number | undefined;
  targetCounted = false;

  constructor(declared: number, delta: boolean) {
    this.#declared = declared;
    this.#delta = delta;
    this.#inflate = createInflate();
    this.#inflate.on('data', (chunk: Buffer) => {
      this.#output += chunk.length;
      if (this.#output > this.#declared) {
        this.#failure ??= damaged();
        this.#inflate.destroy();
      }
      if (this.#delta && this.targetSize === undefined) this.#readDeltaStart(chunk);
    });
    this.#ended = new Promise<void>((resolve) => {
      this.#inflate.on('end', resolve);
      this.#inflate.on('close', resolve);
    });
    this.#inflate.on('error', (error) => {
      this.#failure ??= error instanceof CheckoutError ? error : damaged();
    });
  }

  /** A delta starts with two sizes: its base's, then the object it makes. */
  #readDeltaStart(chunk: Buffer): void {
    for (const byte of chunk) {
      if (this.#start.length >= 2 * MAX_VARINT_BYTES) break;
      this.#start.push(byte);
    }
    let at = 0;
    const sizes: number[] = [];
    while (sizes.length < 2) {
      let size = 0;
      let shift = 0;
      for (;;) {
        if (at >= this.#start.length) {
          if (this.#start.length >= 2 * MAX_VARINT_BYTES) this.#failure ??= damaged();
          return;
        }
        const byte = this.#start[at] ?? 0;
        at += 1;
        size += (byte & 0x7f) * 2 ** shift;
        shift += 7;
        if (!(byte & 0x80)) break;
      }
      sizes.push(size);
    }
    this.targetSize = sizes[1];
  }

  /** Feeds `bytes`: how many of them were the object's, and whether its data ended there. */
  async write(bytes: Uint8Array): Promise<{ consumed: number; ended: boolean }> {
    const before = this.#inflate.bytesWritten;
    const written = new Promise<void>((resolve) => {
      this.#inflate.write(bytes, () => resolve());
    });
    // Destroyed (too much output, damaged data), the stream may never call back.
    await Promise.race([written, this.#ended]);
    if (this.#failure) throw this.#failure;
    const consumed = this.#inflate.bytesWritten - before;
    // zlib takes no byte past the end of the data: fewer taken than given means it ended there.
    return { consumed, ended: consumed < bytes.length };
  }

  /** Once the data ended: checks the object inflated to the size its header declared. */
  async finish(): Promise<void> {
    await this.#ended;
    this.#inflate.destroy();
    if (this.#failure) throw this.#failure;
    if (this.#output !== this.#declared) throw damaged();
    if (this.#delta && this.targetSize === undefined) throw damaged();
  }

  destroy(): void {
    this.#inflate.destroy();
  }
}
