import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

let documentClient: DynamoDBDocumentClient | undefined;

/**
 * The shared document client. `DYNAMODB_ENDPOINT` points it at DynamoDB Local.
 * Retries are chosen, not defaulted: three attempts with the SDK's jittered back-off keep a
 * throttled request inside API Gateway's 30 s limit; time-outs bound a hung connection.
 * `DYNAMODB_REQUEST_TIMEOUT_MS` (default 5 s) gives a loaded DynamoDB Local more time in tests.
 */
export function dynamo(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(createClient(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}

function createClient(): DynamoDBClient {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  return new DynamoDBClient({
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: requestTimeoutMs() },
    ...(endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
  });
}

function requestTimeoutMs(): number {
  const configured = Number(process.env.DYNAMODB_REQUEST_TIMEOUT_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : 5_000;
}
