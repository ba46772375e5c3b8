import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress, describeKind, isAllowedHost, isRefusedKind } from '#shared/network/addresses.ts';

/**
 * Where a webhook may be delivered: the same rules as repository checkouts (no loopback,
 * link-local, private or otherwise non-public address unless the host is allowed), and https
 * unless the host is allowed (a receiver on the operator's own network).
 */
export type Resolve = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

const LOOKUP_TIMEOUT_MS = 5_000;

const resolveAll: Resolve = (hostname) =>
  Promise.race([
    lookup(hostname, { all: true, verbatim: true }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('lookup timed out')), LOOKUP_TIMEOUT_MS).unref()),
  ]);

export type AddressCheck =
  { readonly ok: true; readonly address: string; readonly family: 4 | 6 } | { readonly ok: false; readonly problem: string };

export async function checkWebhookAddress(url: URL, allowedHosts: readonly string[], resolve: Resolve = resolveAll): Promise<AddressCheck> {
  const allowed = isAllowedHost(url, allowedHosts);
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:')) {
    return { ok: false, problem: 'The url must be an absolute https:// URL.' };
  }
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: readonly { address: string; family: number }[];
  if (isIP(hostname)) {
    addresses = [{ address: hostname, family: isIP(hostname) }];
  } else {
    addresses = await resolve(hostname).catch(() => []);
  }
  const [first] = addresses;
  if (!first) return { ok: false, problem: `The host ${hostname.slice(0, 253)} could not be found.` };
  if (!allowed) {
    for (const { address } of addresses) {
      const kind = classifyAddress(address);
      if (isRefusedKind(kind)) {
        return {
          ok: false,
          problem: `The url's host has the address ${address}, which is ${describeKind(kind)}; webhooks are not delivered to such addresses.`,
        };
      }
    }
  }
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
