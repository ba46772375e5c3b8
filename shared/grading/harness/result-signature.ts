import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A harness's result, signed with the job's own key: a first line `hmac-sha256=<hex>`, the
 * HMAC-SHA256 of the bytes that follow it, then the result's JSON. The key is made by the worker
 * for one job and travels only inside the job (the build's input object, or the local sandbox's
 * standard input), so a result written by anyone else, or by another job's harness, does not
 * verify.
 */
const PREFIX = 'hmac-sha256=';

/** A fresh key for one job: 32 random bytes, base64url. */
export function newResultKey(): string {
  return randomBytes(32).toString('base64url');
}

const mac = (bytes: Uint8Array, key: string): string => createHmac('sha256', Buffer.from(key, 'base64url')).update(bytes).digest('hex');

export function signResult(text: string, key: string): string {
  return `${PREFIX}${mac(Buffer.from(text, 'utf8'), key)}\n${text}`;
}

/** The bytes a signed result carries when it was signed with `key`; undefined otherwise. */
export function verifiedBytes(signed: Uint8Array, key: string): Buffer | undefined {
  const bytes = Buffer.from(signed.buffer, signed.byteOffset, signed.byteLength);
  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || bytes.subarray(0, PREFIX.length).toString('latin1') !== PREFIX) return undefined;
  const given = bytes.subarray(PREFIX.length, newline);
  const body = bytes.subarray(newline + 1);
  const expected = Buffer.from(mac(body, key), 'latin1');
  return given.length === expected.length && timingSafeEqual(given, expected) ? body : undefined;
}
