/**
 * Where the service may reach a platform: as for git checkouts and webhooks (shared/network/), never
 * this machine, its cloud metadata service or a private network, unless LTI_ALLOWED_HOSTS names the
 * host (`host:port`).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress, describeKind, isAllowedHost, isRefusedKind } from '#shared/network/addresses.ts';
import { config } from '#shared/config.ts';
import { platformAddressRefused, platformHostUnknown } from './failures.ts';

/** How long one DNS lookup of a platform's host may take. */
const LOOKUP_TIMEOUT_MS = 5_000;

export type Resolve = (hostname: string) => Promise<readonly { address: string }[]>;

const resolveAll: Resolve = (hostname) =>
  Promise.race([
    lookup(hostname, { all: true, verbatim: true }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('lookup timed out')), LOOKUP_TIMEOUT_MS).unref()),
  ]);

/** `LTI_ALLOWED_HOSTS`: the `host:port` pairs a registration may name on loopback or private addresses, and over plain http. */
export const allowedPlatformHosts = (): string[] => config('LTI_ALLOWED_HOSTS');

/** Refuses a platform URL whose host is not public (unless allowed) or cannot be found. */
export async function checkPlatformAddress(
  field: string,
  url: URL,
  allowedHosts: readonly string[],
  resolve: Resolve = resolveAll,
): Promise<void> {
  if (isAllowedHost(url, allowedHosts)) return;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(hostname) ? [{ address: hostname }] : await resolve(hostname).catch(() => []);
  if (addresses.length === 0) throw platformHostUnknown({ field, host: hostname });
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (isRefusedKind(kind)) throw platformAddressRefused({ field, address, kind: describeKind(kind) });
  }
}
