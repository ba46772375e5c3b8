import { createServer } from 'node:http';

/** What the stand-in sends back: a JSON answer, with an error type for a refusal. */
export interface SecretsManagerAnswer {
  readonly status?: number;
  readonly errorType?: string;
  readonly json: unknown;
}

export interface SecretsManagerStandIn {
  /** Where AWS SDK clients reach it (see secretsManagerEnvironment). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A stand-in for Secrets Manager's JSON API on 127.0.0.1 (a free port): `answer` is given each
 * request's operation (its x-amz-target header, e.g. `secretsmanager.GetSecretValue`) and JSON
 * body (the secret asked for), and says what to answer (HTTP 200 unless it says otherwise).
 */
export async function startSecretsManager(
  answer: (target: string, body: { SecretId: string; VersionStage?: string }) => SecretsManagerAnswer,
): Promise<SecretsManagerStandIn> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { status = 200, errorType, json } = answer(String(request.headers['x-amz-target']), JSON.parse(body));
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
      response.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** The settings with which the AWS SDK's Secrets Manager client calls the stand-in at `url`. */
export const secretsManagerEnvironment = (url: string): Record<string, string> => ({
  AWS_ENDPOINT_URL_SECRETS_MANAGER: url,
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
});
