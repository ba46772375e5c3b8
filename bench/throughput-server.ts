import './setup-env.ts';
import type { AddressInfo } from 'node:net';
import { startLocalApi } from '#infra/local/server.ts';
import { startBaselineServer, type BaselineConfig } from './baseline/http-server.ts';

/**
 * A server for the throughput section, in a process of its own so the load generator does not
 * share its event loop: `api` (the local API, workers: 0) or a baseline (`values`, `token`).
 * Environment: the bench's DYNAMODB_ENDPOINT, TABLE_PREFIX, SIGNING_SECRET_FILE; BENCH_BASELINE
 * holds the baseline's configuration as JSON. Reports its URL to the parent over IPC.
 */
const kind = process.argv[2];
let url: string;
if (kind === 'api') {
  const api = await startLocalApi({ port: 0, workers: 0 });
  url = api.url.replace('localhost', '127.0.0.1').replace(/\/api$/, '');
} else if (kind === 'values' || kind === 'token') {
  const server = await startBaselineServer(kind, JSON.parse(process.env.BENCH_BASELINE ?? '{}') as BaselineConfig);
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
} else {
  throw new Error(`usage: throughput-server.ts api|values|token`);
}
process.send?.({ url });
process.on('disconnect', () => process.exit(0));
