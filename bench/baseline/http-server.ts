import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { BatchGetCommand, QueryCommand, TransactWriteCommand, type BatchGetCommandInput } from '@aws-sdk/lib-dynamodb';
import { verifyPassword } from '#shared/auth/passwords.ts';
import { dynamo } from '#shared/data/client.ts';

/**
 * The throughput baselines: plain `node:http` servers making the same DynamoDB requests as the
 * service and nothing else (no token verification, routing, middleware or envelope rules).
 * - values: the one BatchGetItem of session, user, course, enrollment, gradeable, submission and
 *   queue counters (the keys are fixed for the bench);
 * - token: the credentials Query, the same scrypt verification, and the session transaction.
 */
export type BaselineKind = 'values' | 'token';

export interface BaselineConfig {
  /** values: the BatchGetItem request, as the service builds it for the bench's student. */
  readonly batchGet?: BatchGetCommandInput['RequestItems'];
  /** token: the table names. */
  readonly credentialsTable?: string;
  readonly sessionsTable?: string;
}

export function startBaselineServer(kind: BaselineKind, config: BaselineConfig): Promise<Server> {
  const server = createServer((request, response) => {
    const answer = kind === 'values' ? values(config) : token(request, config);
    answer.then(
      (data) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', data }));
      },
      () => {
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"status":"error"}');
      },
    );
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

async function values(config: BaselineConfig): Promise<unknown> {
  const output = await dynamo().send(new BatchGetCommand({ RequestItems: config.batchGet }));
  return output.Responses;
}

async function token(request: IncomingMessage, config: BaselineConfig): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const form = new URLSearchParams(Buffer.concat(chunks).toString());
  const userId = form.get('user_id') ?? '';
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: config.credentialsTable,
      KeyConditionExpression: 'userId = :userId',
      ExpressionAttributeValues: { ':userId': userId },
      ConsistentRead: true,
    }),
  );
  const passwordHash = Items.find((item) => item.kind === 'password')?.passwordHash as string | undefined;
  if (!passwordHash || !(await verifyPassword(form.get('password') ?? '', passwordHash))) throw new Error('wrong credentials');
  const tokenId = randomUUID();
  await dynamo().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: config.sessionsTable, Item: { userId, tokenId, issuedAt: new Date().toISOString() } } },
        {
          ConditionCheck: {
            TableName: config.credentialsTable,
            Key: { userId, kind: 'password' },
            ConditionExpression: 'passwordHash = :passwordHash',
            ExpressionAttributeValues: { ':passwordHash': passwordHash },
          },
        },
      ],
    }),
  );
  return { token: tokenId };
}
