import { isIP } from 'node:net';

/**
 * The names the local server answers to: `localhost`, the loopback addresses (127.0.0.0/8 and
 * `[::1]`) and the address it listens on (when it is one address, not all of them), each with
 * the server's own port; plus `extra`: `host` (any port) or `host:port` entries from the
 * `LOCAL_API_HOSTS` setting. A web page can make a browser send the server anything, but only
 * with its own site's name in `Host` (that is how DNS rebinding reaches a local server): refusing
 * every other name keeps such pages out.
 */
export interface OwnNames {
  readonly port: number;
  readonly listenHost?: string;
  readonly extra?: readonly string[];
}

/** `host` or `host:port` as a URL reads it: lower-case name (IPv6 in brackets) and port ('' when absent); undefined when it is no host. */
function parseHost(value: string): { name: string; port: string } | undefined {
  // Only what a Host header may hold: no user, path, query or spaces for the URL parser to reinterpret.
  if (!/^[A-Za-z0-9.\-:[\]]+$/.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}`);
    // The URL drops a port that is http's default; an entry naming it still means that port only.
    return { name: url.hostname.toLowerCase(), port: url.port !== '' ? url.port : /:0*80$/.test(value) ? '80' : '' };
  } catch {
    return undefined;
  }
}

const isLoopback = (name: string) => name === 'localhost' || name === '[::1]' || (isIP(name) === 4 && name.startsWith('127.'));

/** `LOCAL_API_HOSTS`: a comma list of `host` or `host:port`, blanks dropped. */
export const localApiHosts = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/** Why a request whose `Host` header is `host` is refused, or undefined when it names this server. */
export function hostRefusal(host: string | undefined, own: OwnNames): string | undefined {
  const shown = JSON.stringify(host ?? '');
  const refusal = `This server does not answer to the host name ${shown}: call it as localhost, 127.0.0.1 or [::1] with port ${own.port}, or add the name to LOCAL_API_HOSTS.`;
  const wanted = host === undefined ? undefined : parseHost(host);
  if (!wanted) return refusal;
  // No port in Host means http's own.
  const port = wanted.port === '' ? '80' : wanted.port;
  const listening = own.listenHost ? parseHost(isIP(own.listenHost) === 6 ? `[${own.listenHost}]` : own.listenHost) : undefined;
  const everywhere = listening?.name === '0.0.0.0' || listening?.name === '[::]';
  if (port === String(own.port) && (isLoopback(wanted.name) || (listening && !everywhere && listening.name === wanted.name)))
    return undefined;
  for (const entry of own.extra ?? []) {
    const allowed = parseHost(entry);
    if (allowed?.name === wanted.name && (allowed.port === '' || allowed.port === port)) return undefined;
  }
  return refusal;
}
