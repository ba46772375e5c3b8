import { operationName } from '../test/support/dynamodb-commands.ts';
import './setup-env.ts';
import type { AddressInfo } from 'node:net';
import { startLocalApi } from '#infra/local/server.ts';
import { dynamo } from '#shared/data/client.ts';
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
  countCommands();
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

/** DynamoDB requests sent since the last reset, by command, with the keys of BatchGetItems and the transactions cancelled. */
export interface CommandCounts {
  readonly commands: Record<string, number>;
  readonly batchGetKeys: number;
  readonly cancelled: number;
  readonly failed: number;
}

/**
 * Counts the API server's DynamoDB requests (each command once, whatever the SDK's retries) and
 * answers the parent's `{ counts: 'read' | 'reset' }` with them (`{ counts }`), and its
 * `{ sample: true }` with the input of the last BatchGetItem and TransactWriteItems sent, as JSON.
 */
function countCommands(): void {
  let counts = { commands: {} as Record<string, number>, batchGetKeys: 0, cancelled: 0, failed: 0 };
  // The last BatchGetItem and transaction asked for: after a rush, a submission's own (the rush's physical-limit ideal replays them).
  const sample: Record<string, unknown> = {};
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const name = operationName(context.commandName);
      counts.commands[name] = (counts.commands[name] ?? 0) + 1;
      if (name === 'BatchGetItem' || name === 'TransactWriteItems') sample[name] = args.input;
      if (name.startsWith('BatchGet')) {
        const items = (args.input as { RequestItems?: Record<string, { Keys?: unknown[] }> }).RequestItems ?? {};
        counts.batchGetKeys += Object.values(items).reduce((sum, table) => sum + (table.Keys?.length ?? 0), 0);
      }
      try {
        return await next(args);
      } catch (error) {
        if ((error as Error).name === 'TransactionCanceledException') counts.cancelled++;
        else counts.failed++;
        throw error;
      }
    },
    { step: 'initialize', name: 'benchCountCommands', priority: 'high' },
  );
  process.on('message', (message: { counts?: 'read' | 'reset'; sample?: true }) => {
    if (message.counts === 'reset') counts = { commands: {}, batchGetKeys: 0, cancelled: 0, failed: 0 };
    if (message.counts) process.send?.({ counts });
    if (message.sample)
      process.send?.({ sample: JSON.stringify(sample, (_key, value: unknown) => (value instanceof Set ? [...value] : value)) });
  });
}
