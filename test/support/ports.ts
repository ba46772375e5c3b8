/** Ports for servers whose address must be known before they start (a deployment's settings name it). */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback port free now: the system picks it, and it is released for the caller to listen on. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
