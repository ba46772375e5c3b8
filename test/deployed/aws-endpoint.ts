import { randomBytes, randomUUID } from 'node:crypto';
import { chmod } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ACCOUNT, REGION, type Deployment, type LambdaFunction, type Secret } from './cloudformation.ts';
import type { CodeBuildService } from './codebuild.ts';
import { mergePolicies, type PolicyEvaluator, type Principal } from './iam.ts';
import { MAX_PAYLOAD_BYTES, type Credentials, type LambdaService } from './lambda-service.ts';
import type { Reply, S3Route, S3Service, Signer } from './s3.ts';
import { md5OfAttributes, sendRefusal, type MessageAttribute, type QueueService, type SendRefusal } from './sqs.ts';

/** A call the test does not emulate: it fails the test, as a call AWS would refuse would. */
export interface UnemulatedCall {
  readonly principal: string;
  readonly service: string;
  readonly operation: string;
}

interface SecretVersion {
  readonly versionId: string;
  readonly value: string;
  readonly createdDate: Date;
  stages: string[];
}

const json = (status: number, body: unknown, contentType: string, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { 'content-type': contentType, ...headers },
  body: JSON.stringify(body),
});
const DYNAMODB_JSON = 'application/x-amz-json-1.0';
const SQS_JSON = 'application/x-amz-json-1.0';
const SECRETS_JSON = 'application/x-amz-json-1.1';
const CODEBUILD_JSON = 'application/x-amz-json-1.1';

const tableArn = (name: string) => (name.startsWith('arn:') ? name : `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`);

/**
 * The AWS the functions talk to (through the SDK's standard `AWS_ENDPOINT_URL_*` variables). It
 * knows the caller by the access key of its role session, evaluates the caller's IAM policies from
 * the template for every action and every resource the request touches, answers AccessDenied as
 * AWS does, and otherwise serves the request: DynamoDB is forwarded byte for byte to DynamoDB
 * Local; SQS, Secrets Manager, Lambda invocations, S3 (s3.ts) and CodeBuild (codebuild.ts) are
 * emulated from the template. Builds in a VPC reach it only through a Unix socket per VPC that
 * serves S3 as the VPC's gateway endpoints do (`serveVpc`).
 */
export class AwsEndpoint {
  readonly unemulated: UnemulatedCall[] = [];
  url = '';
  private server: Server | undefined;
  private readonly signers = new Map<string, Signer>();
  private readonly vpcServers: Server[] = [];
  private readonly vpcSockets = new Map<string, Promise<string | undefined>>();
  private readonly secretVersions = new Map<string, SecretVersion[]>();
  private deployment!: Deployment;
  private lambda!: LambdaService;
  private queues!: QueueService;
  private s3!: S3Service;
  private codebuild!: CodeBuildService;
  private readonly evaluator: PolicyEvaluator;
  private readonly dynamodbEndpoint: string;

  /** Started before the template is resolved: queue URLs name this endpoint (see `queueUrlBase`). */
  constructor(evaluator: PolicyEvaluator, dynamodbEndpoint: string) {
    this.evaluator = evaluator;
    this.dynamodbEndpoint = dynamodbEndpoint;
  }

  /** Serves the deployment's resources: its secrets get their first version now. */
  connect(
    deployment: Deployment,
    services: { lambda: LambdaService; queues: QueueService; s3: S3Service; codebuild: CodeBuildService },
  ): void {
    this.deployment = deployment;
    this.lambda = services.lambda;
    this.queues = services.queues;
    this.s3 = services.s3;
    this.codebuild = services.codebuild;
    for (const secret of deployment.secrets) {
      this.secretVersions.set(secret.arn, [
        { versionId: randomUUID(), value: secret.secretString ?? generateSecret(secret), createdDate: new Date(), stages: ['AWSCURRENT'] },
      ]);
    }
  }

  /** Credentials of a role session (or the operator): requests signed with them act as `principal`. */
  issueCredentials(principal: Principal): Credentials {
    const accessKeyId = `ASIA${randomBytes(10).toString('hex').toUpperCase().slice(0, 16)}`;
    const credentials = {
      accessKeyId,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(60).toString('base64'),
    };
    this.signers.set(accessKeyId, { principal, secretAccessKey: credentials.secretAccessKey, sessionToken: credentials.sessionToken });
    return credentials;
  }

  /**
   * S3 as a VPC sees it, on a Unix socket (the emulated builds' only way out): requests are
   * evaluated against the policies of the VPC's S3 gateway endpoints too. Undefined when the VPC
   * has no S3 gateway endpoint (then nothing routes to S3).
   */
  serveVpc(vpcId: string, socketPath: string): Promise<string | undefined> {
    let socket = this.vpcSockets.get(vpcId);
    if (!socket) {
      socket = this.listenForVpc(vpcId, socketPath);
      this.vpcSockets.set(vpcId, socket);
    }
    return socket;
  }

  private async listenForVpc(vpcId: string, socketPath: string): Promise<string | undefined> {
    const endpoints = this.deployment.vpcEndpoints.filter(
      (endpoint) => endpoint.vpcId === vpcId && endpoint.type === 'Gateway' && endpoint.serviceName === `com.amazonaws.${REGION}.s3`,
    );
    if (endpoints.length === 0) return undefined;
    const route: S3Route = { vpcId, endpoints };
    const server = createServer((request, response) => void this.handle(request, response, route));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(socketPath, 0o666);
    this.vpcServers.push(server);
    return socketPath;
  }

  /** Puts a new value into a secret, as `put-secret-value` does: the old current version becomes AWSPREVIOUS. */
  rotateSecret(secret: Secret, value = generateSecret(secret)): void {
    const versions = this.secretVersions.get(secret.arn)!;
    for (const version of versions) {
      version.stages = version.stages.includes('AWSCURRENT') ? ['AWSPREVIOUS'] : version.stages.filter((stage) => stage !== 'AWSPREVIOUS');
    }
    versions.push({ versionId: randomUUID(), value, createdDate: new Date(), stages: ['AWSCURRENT'] });
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const server of [...(this.server ? [this.server] : []), ...this.vpcServers.splice(0)]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private async handle(request: IncomingMessage, response: ServerResponse, vpc?: S3Route): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let reply: Reply;
    try {
      reply = vpc ? await this.fromVpc(request, body, vpc) : await this.route(request, body);
    } catch (error) {
      reply = json(
        500,
        { __type: 'InternalFailure', message: `The test's AWS endpoint failed: ${(error as Error).stack}` },
        'application/json',
      );
    }
    response.writeHead(reply.status, { 'x-amzn-requestid': randomUUID(), ...reply.headers });
    response.end(reply.body);
  }

  /** A request from inside a VPC: only S3 is routed (its gateway endpoint); anything else finds no route. */
  private async fromVpc(request: IncomingMessage, body: Buffer, route: S3Route): Promise<Reply> {
    const credential = /Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\//.exec(String(request.headers.authorization ?? ''));
    if (credential && credential[3] !== 's3')
      return json(
        403,
        { message: `A build in ${route.vpcId} reached ${credential[3]} through the S3 gateway endpoint` },
        'application/json',
      );
    const signer = credential ? this.signers.get(credential[1]!) : undefined;
    if (credential && !signer)
      return s3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    return this.s3.handle(request, body, signer, (key) => this.signers.get(key), route);
  }

  private async route(request: IncomingMessage, body: Buffer): Promise<Reply> {
    const authorization = String(request.headers.authorization ?? '');
    const credential = /Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\//.exec(authorization);
    // A presigned URL carries its credential in the query string (S3 only here).
    if (!credential && /[?&]X-Amz-Credential=[^&]*%2Fs3%2Faws4_request/i.test(request.url ?? '')) {
      return this.s3.handle(request, body, undefined, (key) => this.signers.get(key));
    }
    // A browser-based POST upload carries its credential in the form (S3 only).
    if (!credential && request.method === 'POST' && /^multipart\/form-data/i.test(String(request.headers['content-type'] ?? ''))) {
      return this.s3.handle(request, body, undefined, (key) => this.signers.get(key));
    }
    const signer = credential ? this.signers.get(credential[1]!) : undefined;
    const principal = signer?.principal;
    if (!principal) {
      return json(
        403,
        { __type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' },
        'application/json',
      );
    }
    const service = credential![3]!;
    const target = String(request.headers['x-amz-target'] ?? '');
    if (service === 's3') return this.s3.handle(request, body, signer, (key) => this.signers.get(key));
    if (service === 'codebuild' && target.startsWith('CodeBuild_20161006.')) {
      const operation = target.slice(target.indexOf('.') + 1);
      const reply = await this.codebuild.api(principal, operation, JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>);
      return reply ?? this.notEmulated(principal, 'codebuild', operation, CODEBUILD_JSON);
    }
    if (service === 'dynamodb' && target.startsWith('DynamoDB_20120810.'))
      return this.dynamodb(principal, request, body, target.slice(target.indexOf('.') + 1));
    if (service === 'sqs') return this.sqs(principal, request, body, target);
    if (service === 'secretsmanager' && target.startsWith('secretsmanager.'))
      return this.secretsManager(principal, body, target.slice(target.indexOf('.') + 1));
    if (service === 'lambda') return this.lambdaApi(principal, request, body);
    return this.notEmulated(principal, service, target || `${request.method} ${request.url}`);
  }

  private notEmulated(principal: Principal, service: string, operation: string, contentType = 'application/x-amz-json-1.0'): Reply {
    this.unemulated.push({ principal: principal.label, service, operation });
    return json(
      400,
      {
        __type: 'com.amazon.coral.service#AccessDeniedException',
        Message: `The deployed-artifact test does not emulate ${service} ${operation}`,
        message: `The deployed-artifact test does not emulate ${service} ${operation}`,
      },
      contentType,
    );
  }

  // --- DynamoDB: evaluated per table and index, then forwarded to DynamoDB Local ------------

  private async dynamodb(principal: Principal, request: IncomingMessage, body: Buffer, operation: string): Promise<Reply> {
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    const checks = dynamodbChecks(operation, input);
    if (!checks) return this.notEmulated(principal, 'dynamodb', operation);
    // Every table and index the request touches is evaluated (and every denial recorded); AWS names the first.
    const unique = [...new Map(checks.map((check) => [`${check.action} ${check.resource}`, check])).values()];
    const decisions = await Promise.all(
      unique.map(({ action, resource }) => this.evaluator.authorize(principal, action, resource, { purpose: `DynamoDB ${operation}` })),
    );
    const denied = decisions.find((decision) => !decision.allowed);
    if (denied) return json(400, { __type: 'com.amazon.coral.service#AccessDeniedException', Message: denied.message }, DYNAMODB_JSON);
    return forward(this.dynamodbEndpoint, request, body);
  }

  // --- SQS ----------------------------------------------------------------------------------

  private async sqs(principal: Principal, request: IncomingMessage, body: Buffer, target: string): Promise<Reply> {
    const queues = this.queues;
    const query = !target;
    const queryFields = query ? queryInput(body) : undefined;
    const input = queryFields ?? (JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>);
    const operation = query ? String(input.Action ?? '') : target.replace(/^AmazonSQS\./, '');
    const error = (status: number, code: string, queryCode: string, message: string): Reply =>
      query
        ? {
            status,
            headers: { 'content-type': 'text/xml' },
            body: `<ErrorResponse><Error><Type>Sender</Type><Code>${queryCode}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
          }
        : json(status, { __type: code, message }, SQS_JSON, { 'x-amzn-query-error': `${queryCode};Sender` });
    const actions: Record<string, string> = {
      SendMessage: 'sqs:SendMessage',
      SendMessageBatch: 'sqs:SendMessage',
      GetQueueUrl: 'sqs:GetQueueUrl',
      GetQueueAttributes: 'sqs:GetQueueAttributes',
    };
    const action = actions[operation];
    if (!action) return this.notEmulated(principal, 'sqs', operation);
    const queue =
      operation === 'GetQueueUrl'
        ? queues.find(`https://sqs.${REGION}.amazonaws.com/${input.QueueOwnerAWSAccountId ?? ACCOUNT}/${input.QueueName}`)
        : queues.find(String(input.QueueUrl ?? ''));
    if (!queue)
      return error(
        400,
        'com.amazonaws.sqs#QueueDoesNotExist',
        'AWS.SimpleQueueService.NonExistentQueue',
        'The specified queue does not exist.',
      );
    const decision = await this.evaluator.authorize(principal, action, queue.arn, {
      resourcePolicy: mergePolicies(queue.policies),
      purpose: `SQS ${operation}`,
    });
    if (!decision.allowed) return error(403, 'com.amazon.coral.service#AccessDeniedException', 'AccessDenied', decision.message);
    const senderId = principal.role
      ? `AROA${principal.role.logicalId.slice(0, 12).toUpperCase()}:${principal.arn.split('/').pop()}`
      : principal.arn;

    const refused = (refusal: SendRefusal) => error(400, `com.amazonaws.sqs#${refusal.name}`, refusal.queryCode, refusal.message);
    if (operation === 'SendMessage') {
      const attributes = queryFields ? queryAttributes(queryFields) : ((input.MessageAttributes ?? {}) as Record<string, MessageAttribute>);
      const message = { body: String(input.MessageBody ?? ''), attributes, delaySeconds: Number(input.DelaySeconds ?? 0) };
      const refusal = sendRefusal(queue, [message], false);
      if (refusal) return refused(refusal);
      const sent = queues.send(queue, message.body, attributes, senderId, message.delaySeconds);
      const md5Attributes = Object.keys(attributes).length > 0 ? { MD5OfMessageAttributes: md5OfAttributes(attributes) } : {};
      if (query) {
        return {
          status: 200,
          headers: { 'content-type': 'text/xml' },
          body: `<SendMessageResponse><SendMessageResult><MessageId>${sent.messageId}</MessageId><MD5OfMessageBody>${sent.md5OfBody}</MD5OfMessageBody>${md5Attributes.MD5OfMessageAttributes ? `<MD5OfMessageAttributes>${md5Attributes.MD5OfMessageAttributes}</MD5OfMessageAttributes>` : ''}</SendMessageResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></SendMessageResponse>`,
        };
      }
      return json(200, { MD5OfMessageBody: sent.md5OfBody, MessageId: sent.messageId, ...md5Attributes }, SQS_JSON);
    }
    if (query) return this.notEmulated(principal, 'sqs', `${operation} (query protocol)`);
    if (operation === 'SendMessageBatch') {
      const entries = (
        (input.Entries ?? []) as {
          Id: string;
          MessageBody?: string;
          DelaySeconds?: number;
          MessageAttributes?: Record<string, MessageAttribute>;
        }[]
      ).map((entry) => ({
        id: entry.Id,
        body: entry.MessageBody ?? '',
        attributes: entry.MessageAttributes ?? {},
        delaySeconds: entry.DelaySeconds ?? 0,
      }));
      const refusal = sendRefusal(queue, entries, true);
      if (refusal) return refused(refusal);
      const successful = entries.map(({ id, body, attributes, delaySeconds }) => {
        const sent = queues.send(queue, body, attributes, senderId, delaySeconds);
        return {
          Id: id,
          MessageId: sent.messageId,
          MD5OfMessageBody: sent.md5OfBody,
          ...(Object.keys(attributes).length > 0 ? { MD5OfMessageAttributes: md5OfAttributes(attributes) } : {}),
        };
      });
      return json(200, { Successful: successful, Failed: [] }, SQS_JSON);
    }
    if (operation === 'GetQueueUrl') return json(200, { QueueUrl: queue.url }, SQS_JSON);
    return json(
      200,
      {
        Attributes: {
          QueueArn: queue.arn,
          VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
          ApproximateNumberOfMessages: String(queues.depth(queue)),
        },
      },
      SQS_JSON,
    );
  }

  // --- Secrets Manager ------------------------------------------------------------------------

  private async secretsManager(principal: Principal, body: Buffer, operation: string): Promise<Reply> {
    const input = JSON.parse(body.toString('utf8') || '{}') as {
      SecretId?: string;
      VersionId?: string;
      VersionStage?: string;
      SecretString?: string;
    };
    const notFound = (message: string) => json(400, { __type: 'ResourceNotFoundException', Message: message }, SECRETS_JSON);
    if (!['GetSecretValue', 'DescribeSecret', 'PutSecretValue'].includes(operation))
      return this.notEmulated(principal, 'secretsmanager', operation);
    const id = String(input.SecretId ?? '');
    const secret = this.deployment.secrets.find(
      (candidate) => candidate.arn === id || candidate.name === id || candidate.arn.startsWith(`${id}-`),
    );
    // IAM sees the full ARN when the secret exists, else the id as given.
    const resource = secret?.arn ?? (id.startsWith('arn:') ? id : `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${id}`);
    const decision = await this.evaluator.authorize(principal, `secretsmanager:${operation}`, resource, {
      purpose: `Secrets Manager ${operation}`,
    });
    if (!decision.allowed) return json(400, { __type: 'AccessDeniedException', Message: decision.message }, SECRETS_JSON);
    if (!secret) return notFound("Secrets Manager can't find the specified secret.");
    if (operation === 'PutSecretValue') {
      if (typeof input.SecretString !== 'string')
        return json(400, { __type: 'InvalidParameterException', Message: 'SecretString is required.' }, SECRETS_JSON);
      this.rotateSecret(secret, input.SecretString);
      const current = this.secretVersions.get(secret.arn)!.at(-1)!;
      return json(200, { ARN: secret.arn, Name: secret.name, VersionId: current.versionId, VersionStages: current.stages }, SECRETS_JSON);
    }
    const versions = this.secretVersions.get(secret.arn)!;
    if (operation === 'DescribeSecret') {
      return json(
        200,
        {
          ARN: secret.arn,
          Name: secret.name,
          VersionIdsToStages: Object.fromEntries(
            versions.filter((version) => version.stages.length > 0).map((version) => [version.versionId, version.stages]),
          ),
        },
        SECRETS_JSON,
      );
    }
    const stage = input.VersionStage ?? (input.VersionId ? undefined : 'AWSCURRENT');
    const version = versions.find(
      (candidate) =>
        (input.VersionId ? candidate.versionId === input.VersionId : true) && (stage ? candidate.stages.includes(stage) : true),
    );
    if (!version) {
      return notFound(
        stage
          ? `Secrets Manager can't find the specified secret value for staging label: ${stage}`
          : `Secrets Manager can't find the specified secret value for VersionId: ${input.VersionId}`,
      );
    }
    return json(
      200,
      {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: version.versionId,
        SecretString: version.value,
        VersionStages: version.stages,
        CreatedDate: version.createdDate.getTime() / 1000,
      },
      SECRETS_JSON,
    );
  }

  // --- Lambda: Invoke -------------------------------------------------------------------------

  private async lambdaApi(principal: Principal, request: IncomingMessage, body: Buffer): Promise<Reply> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(url.pathname);
    if (request.method !== 'POST' || !match) return this.notEmulated(principal, 'lambda', `${request.method} ${url.pathname}`);
    const reference = decodeURIComponent(match[1]!);
    const qualifier =
      url.searchParams.get('Qualifier') ?? /^(?:arn:[^:]+:lambda:[^:]+:\d{12}:function:)?[^:]+:([^:]+)$/.exec(reference)?.[1];
    const name = reference
      .replace(/^arn:[^:]+:lambda:[^:]+:\d{12}:function:/, '')
      .replace(/^\d{12}:function:/, '')
      .split(':')[0]!;
    const fn = this.deployment.functions.find((candidate) => candidate.name === name);
    const resource = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}${qualifier && qualifier !== '$LATEST' ? `:${qualifier}` : ''}`;
    const decision = await this.evaluator.authorize(principal, 'lambda:InvokeFunction', resource, {
      resourcePolicy: fn ? this.deployment.functionPolicies.get(fn.arn) : undefined,
      purpose: 'Lambda Invoke',
    });
    const lambdaError = (status: number, type: string, message: string) => ({
      status,
      headers: { 'content-type': 'application/json', 'x-amzn-errortype': type },
      body: JSON.stringify({ Type: 'User', message }),
    });
    if (!decision.allowed) return lambdaError(403, 'AccessDeniedException', decision.message);
    if (!fn || (qualifier && qualifier !== '$LATEST'))
      return lambdaError(404, 'ResourceNotFoundException', `Function not found: ${resource}`);
    if (body.length > MAX_PAYLOAD_BYTES)
      return lambdaError(
        413,
        'RequestTooLargeException',
        `Request must be smaller than ${MAX_PAYLOAD_BYTES} bytes for the InvokeFunction operation`,
      );
    const invocationType = String(request.headers['x-amz-invocation-type'] ?? 'RequestResponse');
    const payload = body.length === 0 ? '{}' : body.toString('utf8');
    const purpose = `invoked by ${principal.label}`;
    if (invocationType === 'DryRun') return { status: 204, body: '' };
    if (invocationType === 'Event') {
      void this.invoke(fn, payload, purpose);
      return { status: 202, headers: { 'content-type': 'application/json' }, body: '' };
    }
    const result = await this.invoke(fn, payload, purpose);
    return {
      status: 200,
      headers: {
        'content-type': 'application/json',
        'x-amz-executed-version': '$LATEST',
        ...(result.functionError ? { 'x-amz-function-error': result.functionError } : {}),
      },
      body: result.payload,
    };
  }

  private invoke(fn: LambdaFunction, payload: string, purpose: string) {
    return this.lambda.invoke(fn, payload, purpose);
  }
}

/** Every (action, resource) IAM authorizes for a DynamoDB operation; undefined when not modelled. */
export function dynamodbChecks(operation: string, input: Record<string, unknown>): { action: string; resource: string }[] | undefined {
  const single = (action: string) => [{ action, resource: tableArn(String(input.TableName)) }];
  switch (operation) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
    case 'DescribeTable':
    case 'DescribeTimeToLive':
    case 'DescribeContinuousBackups':
      return single(`dynamodb:${operation}`);
    case 'Query':
    case 'Scan':
      return [
        {
          action: `dynamodb:${operation}`,
          resource: `${tableArn(String(input.TableName))}${input.IndexName ? `/index/${input.IndexName}` : ''}`,
        },
      ];
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys(input.RequestItems ?? {}).map((table) => ({ action: `dynamodb:${operation}`, resource: tableArn(table) }));
    case 'TransactWriteItems': {
      const kinds: Record<string, string> = {
        Put: 'PutItem',
        Update: 'UpdateItem',
        Delete: 'DeleteItem',
        ConditionCheck: 'ConditionCheckItem',
      };
      return (input.TransactItems as Record<string, { TableName: string }>[]).flatMap((item) =>
        Object.entries(item).map(([kind, operationInput]) => ({
          action: `dynamodb:${kinds[kind] ?? kind}`,
          resource: tableArn(operationInput.TableName),
        })),
      );
    }
    case 'TransactGetItems':
      return (input.TransactItems as { Get: { TableName: string } }[]).map((item) => ({
        action: 'dynamodb:GetItem',
        resource: tableArn(item.Get.TableName),
      }));
    case 'ListTables':
      return [{ action: 'dynamodb:ListTables', resource: '*' }];
    default:
      return undefined;
  }
}

/** Forwards a request byte for byte and answers with what came back. */
function forward(endpoint: string, request: IncomingMessage, body: Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = { ...request.headers };
    delete headers.host;
    delete headers.connection;
    const outgoing = httpRequest(`${endpoint}${request.url ?? '/'}`, { method: request.method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const replyHeaders: Record<string, string> = {};
        for (const name of ['content-type', 'x-amz-crc32', 'x-amzn-requestid']) {
          const value = incoming.headers[name];
          if (typeof value === 'string') replyHeaders[name] = value;
        }
        resolve({ status: incoming.statusCode ?? 500, headers: replyHeaders, body: Buffer.concat(chunks) });
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function queryInput(body: Buffer): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body.toString('utf8')));
}

function queryAttributes(input: Record<string, string>): Record<string, MessageAttribute> {
  const attributes: Record<string, MessageAttribute> = {};
  for (let index = 1; input[`MessageAttribute.${index}.Name`] !== undefined; index++) {
    const prefix = `MessageAttribute.${index}`;
    attributes[input[`${prefix}.Name`]!] = {
      DataType: input[`${prefix}.Value.DataType`] ?? 'String',
      ...(input[`${prefix}.Value.StringValue`] !== undefined ? { StringValue: input[`${prefix}.Value.StringValue`] } : {}),
      ...(input[`${prefix}.Value.BinaryValue`] !== undefined ? { BinaryValue: input[`${prefix}.Value.BinaryValue`] } : {}),
    };
  }
  return attributes;
}

function s3Error(status: number, code: string, message: string): Reply {
  return {
    status,
    headers: { 'content-type': 'application/xml' },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`,
  };
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A value as Secrets Manager's GenerateSecretString would make it. */
export function generateSecret(secret: Secret): string {
  const options = (secret.generate ?? {}) as Record<string, unknown>;
  const length = Number(options.PasswordLength ?? 32);
  const exclude = String(options.ExcludeCharacters ?? '');
  const groups = [
    options.ExcludeLowercase === true ? '' : 'abcdefghijklmnopqrstuvwxyz',
    options.ExcludeUppercase === true ? '' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    options.ExcludeNumbers === true ? '' : '0123456789',
    options.ExcludePunctuation === true ? '' : '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
    options.IncludeSpace === true ? ' ' : '',
  ]
    .map((group) => [...group].filter((character) => !exclude.includes(character)).join(''))
    .filter((group) => group.length > 0);
  const all = groups.join('');
  const pick = (alphabet: string) => alphabet[randomBytes(1)[0]! % alphabet.length]!;
  let value: string;
  do {
    value = Array.from({ length }, () => pick(all)).join('');
  } while (
    options.RequireEachIncludedType !== false &&
    length >= groups.length &&
    !groups.every((group) => [...value].some((character) => group.includes(character)))
  );
  if (typeof options.SecretStringTemplate === 'string' && typeof options.GenerateStringKey === 'string') {
    return JSON.stringify({ ...JSON.parse(options.SecretStringTemplate), [options.GenerateStringKey]: value });
  }
  return value;
}
