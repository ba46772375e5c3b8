import { isIP } from 'node:net';

/**
 * Which network addresses the runner may fetch a student's repository from, and webhooks may be
 * delivered to. Everything that reaches the machine itself, its cloud metadata service or a
 * private network is refused unless the host is explicitly allowed.
 */
export type AddressKind = 'public' | 'loopback' | 'link-local' | 'private' | 'unspecified' | 'reserved' | 'invalid';

/** Address kinds never fetched (unless the host is in `allowedHosts`). */
export const isRefusedKind = (kind: AddressKind): boolean => kind !== 'public';

const describe: Record<Exclude<AddressKind, 'public'>, string> = {
  loopback: 'a loopback address',
  'link-local': 'a link-local address',
  private: 'a private network address',
  unspecified: 'an unspecified address',
  reserved: 'a reserved address',
  invalid: 'an invalid address',
};

/** "a loopback address" etc., for messages; public addresses have no description. */
export const describeKind = (kind: AddressKind): string => (kind === 'public' ? 'a public address' : describe[kind]);

/** The four bytes of a dotted-quad IPv4 address, or undefined. */
export function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes.push(value);
  }
  return bytes;
}

/** The sixteen bytes of an IPv6 address (with an optional embedded IPv4 tail and zone), or undefined. */
export function parseIpv6(input: string): number[] | undefined {
  let text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (isIP(text) !== 6) return undefined;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIpv4(last);
    if (!v4) return undefined;
    tail = v4;
    text = text.slice(0, lastColon + 1) + '0:0';
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const all = [...head, ...Array<string>(Math.max(missing, 0)).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const group of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes.length === 16 ? bytes : undefined;
}

function classifyIpv4([a = 0, b = 0, c = 0, d = 0]: number[]): AddressKind {
  if (a === 0) return b === 0 && c === 0 && d === 0 ? 'unspecified' : 'reserved'; // 0.0.0.0/8 "this network"
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local'; // includes 169.254.169.254, the cloud metadata service
  if (a === 10) return 'private';
  if (a === 172 && b >= 16 && b <= 31) return 'private';
  if (a === 192 && b === 168) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'private'; // carrier-grade NAT, 100.64.0.0/10
  if (a === 192 && b === 0 && c === 0) return 'reserved'; // IETF protocol assignments (incl. 192.0.0.192 Oracle metadata)
  if (a === 198 && (b === 18 || b === 19)) return 'reserved'; // benchmarking
  if (a >= 224) return 'reserved'; // multicast, 240/4, broadcast
  return 'public';
}

function classifyIpv6(bytes: number[]): AddressKind {
  const isZero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const b0 = bytes[0] ?? 0;
  const b1 = bytes[1] ?? 0;
  if (isZero(0, 16)) return 'unspecified';
  if (isZero(0, 15) && bytes[15] === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d and the deprecated IPv4-compatible ::a.b.c.d: judge the IPv4 address.
  if (isZero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return classifyIpv4(bytes.slice(12));
  if (isZero(0, 12)) return classifyIpv4(bytes.slice(12));
  // NAT64 64:ff9b::/96 reaches IPv4 addresses too.
  if (b0 === 0x00 && b1 === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && isZero(4, 12)) return classifyIpv4(bytes.slice(12));
  if (b0 === 0xfe && (b1 & 0xc0) === 0x80) return 'link-local'; // fe80::/10
  if (b0 === 0xfe && (b1 & 0xc0) === 0xc0) return 'private'; // fec0::/10, deprecated site-local
  if ((b0 & 0xfe) === 0xfc) return 'private'; // fc00::/7 unique local
  if (b0 === 0xff) return 'reserved'; // multicast
  // fd00:ec2::254 (AWS metadata over IPv6) is inside fc00::/7 above.
  return 'public';
}

/** What kind of address `address` (an IPv4 or IPv6 literal, brackets allowed) is. */
export function classifyAddress(address: string): AddressKind {
  const v4 = parseIpv4(address);
  if (v4) return classifyIpv4(v4);
  const v6 = parseIpv6(address);
  if (v6) return classifyIpv6(v6);
  return 'invalid';
}

/** Whether `url`'s host (`host` or `host:port`, as written in the URL) is one of `allowedHosts`. */
export function isAllowedHost(url: URL, allowedHosts: readonly string[]): boolean {
  const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
  const hostname = url.hostname.toLowerCase();
  const candidates = new Set([hostname, url.host.toLowerCase(), `${hostname}:${port}`]);
  return allowedHosts.some((allowed) => candidates.has(allowed.trim().toLowerCase()));
}
