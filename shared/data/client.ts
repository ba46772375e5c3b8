import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config.ts';
import { currentScope, describeRunningFunction } from '#shared/environment.ts';
import { dataRequests, grantName } from './data-actions.ts';

let documentClient: DynamoDBDocumentClient | undefined;

/**
 * The shared document client. `DYNAMODB_ENDPOINT` points it at DynamoDB Local.
 * Retries are chosen, not defaulted: three attempts with the SDK's jittered back-off keep a
 * throttled request inside API Gateway's 30 s limit; time-outs bound a hung connection.
 * `DYNAMODB_REQUEST_TIMEOUT_MS` (default 5 s) gives a loaded DynamoDB Local more time in tests.
 */
export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    const client = createClient();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        checkGrants(context.commandName ?? '', args.input as Record<string, unknown>);
        return next(args);
      },
      { step: 'initialize', name: 'localDataGrants', priority: 'high' },
    );
    documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }
  return documentClient;
}

function createClient(): DynamoDBClient {
  const endpoint = config('DYNAMODB_ENDPOINT');
  return new DynamoDBClient({
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: config('DYNAMODB_REQUEST_TIMEOUT_MS') },
    ...(endpoint
      ? {
          endpoint,
          region: config('AWS_REGION') ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
  });
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
