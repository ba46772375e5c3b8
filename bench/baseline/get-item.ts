import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The cold-start baseline: a Lambda handler that performs one DynamoDB GetItem with the same SDK
 * packages as the service (the document client over client-dynamodb), bundled with the same
 * esbuild settings. Anything a real handler weighs beyond this is the service's own.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { userId?: string }) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.USERS_TABLE ?? 'Users', Key: { userId: event.userId ?? 'nobody' } }),
  );
  return { statusCode: 200, body: JSON.stringify(Item ?? null) };
};
