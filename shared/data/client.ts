import { Agent } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config.ts';
import { currentScope, describeRunningFunction } from '#shared/environment.ts';
import { dataRequests, grantName } from './data-actions.ts';
import { attemptRefused, commandOutcome, currentLedger, isBookkeeping, isWriteCommand } from './request-writes.ts';

let documentClient: DynamoDBDocumentClient | undefined;

/** The last overload of `add`: a middleware of the deserialize step, which sees each HTTP exchange. */
type DeserializeMiddleware = Parameters<DynamoDBClient['middlewareStack']['add']>[0];

/**
 * The shared document client. `DYNAMODB_ENDPOINT` points it at DynamoDB Local.
 * Retries are chosen, not defaulted: three attempts with the SDK's jittered back-off keep a
 * throttled request inside API Gateway's 30 s limit; time-outs bound a hung connection.
 * `DYNAMODB_REQUEST_TIMEOUT_MS` (default 5 s) gives a loaded DynamoDB Local more time in tests.
 *
 * Within an API request, every write command is recorded (shared/data/request-writes.ts): whether
 * it took effect, was refused or has an unknown outcome, so that an `error` answer can say which;
 * once the request has answered, nothing more is sent for it.
 */
export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    const client = createClient();
    // The SDK's logger middleware walks every command's input and output (a BatchGetItem's every
    // item) to hide sensitive fields from a logger that, unconfigured, writes nothing: CPU for nothing.
    client.middlewareStack.remove('loggerMiddleware');
    client.middlewareStack.add((next, context) => (args) => recordWrites(context, () => next(args)), {
      step: 'initialize',
      name: RECORD_WRITES,
      priority: 'high',
    });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        checkGrants(context.commandName ?? '', args.input as Record<string, unknown>);
        return next(args);
      },
      { step: 'initialize', name: 'localDataGrants', priority: 'high' },
    );
    const attemptMiddleware: DeserializeMiddleware = (next, context) => (args) => recordAttempt(context, () => next(args));
    client.middlewareStack.addRelativeTo(attemptMiddleware, {
      relation: 'before',
      toMiddleware: 'deserializerMiddleware',
      name: RECORD_ATTEMPTS,
    });
    documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }
  return documentClient;
}

/** Connections to DynamoDB Local at once (the SDK's default is 50): a deadline rush sends hundreds of requests together. */
const LOCAL_MAX_SOCKETS = 512;

function createClient(): DynamoDBClient {
  const endpoint = config('DYNAMODB_ENDPOINT');
  const requestTimeout = config('DYNAMODB_REQUEST_TIMEOUT_MS');
  return new DynamoDBClient({
    maxAttempts: 3,
    requestHandler: {
      // A loaded DynamoDB Local accepts hundreds of new connections at once (a rush opens up to
      // LOCAL_MAX_SOCKETS) in seconds, not milliseconds: locally a connection may take as long as a request.
      connectionTimeout: endpoint ? Math.max(2_000, requestTimeout) : 2_000,
      requestTimeout,
      // Without it the time-out only logs a warning and the request waits for ever (a worker would hold its jobs, silently).
      throwOnRequestTimeout: true,
      // One Lambda instance serves one request at a time; the local server serves all of them from one client.
      ...(endpoint ? { httpAgent: new Agent({ keepAlive: true, maxSockets: LOCAL_MAX_SOCKETS }) } : {}),
    },
    ...(endpoint
      ? {
          endpoint,
          region: config('AWS_REGION') ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
  });
}

/** What the attempts of one command did: how many were sent, and whether one has an unknown outcome. */
interface Attempts {
  sent: number;
  uncertain: boolean;
}
const attemptsOf = new WeakMap<object, Attempts>();

/** The middleware recording each command of a request (outermost: it sees the command's final result). */
export const RECORD_WRITES = 'requestWrites';
/** The middleware recording each attempt the SDK sends (innermost: right above the HTTP exchange). */
export const RECORD_ATTEMPTS = 'requestWriteAttempts';

/** One command within a request: refused once the request has answered; a write's outcome recorded. */
async function recordWrites<T>(context: { commandName?: string }, send: () => Promise<T>): Promise<T> {
  const ledger = currentLedger();
  if (!ledger) return send();
  const commandName = context.commandName ?? '';
  ledger.checkOpen(commandName);
  if (!isWriteCommand(commandName) || isBookkeeping()) return send();
  const attempts: Attempts = { sent: 0, uncertain: false };
  attemptsOf.set(context, attempts);
  const settle = ledger.start();
  try {
    const result = await send();
    settle(commandOutcome(attempts, true));
    return result;
  } catch (error) {
    settle(commandOutcome(attempts, false));
    throw error;
  }
}

/** One attempt the SDK sends: not once the request has answered (its retries included); for a write, counted. */
async function recordAttempt<T>(context: { commandName?: string }, send: () => Promise<T>): Promise<T> {
  currentLedger()?.checkOpen(context.commandName ?? '');
  const attempts = attemptsOf.get(context);
  if (!attempts) return send();
  attempts.sent++;
  try {
    return await send();
  } catch (error) {
    if (!attemptRefused(error)) attempts.uncertain = true;
    throw error;
  }
}

/**
 * Locally, what IAM does in AWS: a function may call only the actions its route-table entry grants
 * it, and a denial reads like AWS's. Outside a function scope (Lambda, the admin command line,
 * tests of the data layer) nothing is checked here.
 */
function checkGrants(commandName: string, input: Record<string, unknown>): void {
  const scope = currentScope();
  if (!scope) return;
  for (const request of dataRequests(commandName, input)) {
    if (scope.dataGrants.get(request.table)?.has(grantName(request))) continue;
    const resource = `table/${request.table}${request.index ? `/index/${request.index}` : ''}`;
    throw Object.assign(
      new Error(`${describeRunningFunction()} is not authorized to perform: dynamodb:${request.action} on resource: ${resource}`),
      { name: 'AccessDeniedException', $metadata: { httpStatusCode: 400 } },
    );
  }
}
