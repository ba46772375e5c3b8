import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { gatewayRouteKeys, routeKeys, routes } from '#functions/definitions.ts';
import { routeRows, workerRows } from '#functions/test-rows.ts';
import type { RouteDefinition } from '#shared/http/routes.ts';
import { functionAccess, RESOURCE_VARIABLES, type FunctionName } from '#infra/function-access.ts';
import { functionSettings, type FunctionSetting } from '#shared/config.ts';
import { startBuildInput } from '#shared/grading/builds/codebuild.ts';
import { functionNames, gradingFunctionNames, logicalId, routeEntries, synthesize, tableEntries, type Synthesized } from './synth.ts';

// One synthesis for the whole file, with real esbuild bundling of every function.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({}, { bundle: true });
}, 1_800_000);

const ofType = (type: string) => Object.entries(synth.resources).filter(([, resource]) => resource.Type === type);
const functionId = (name: FunctionName) => logicalId(synth.stack.functions.get(name)!.function);
const functionResource = (name: FunctionName) => synth.resources[functionId(name)]!;
const getAtt = (id: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id, attribute] });

/** The statements of every policy attached to the role with this logical id. */
function roleStatements(roleId: string): { Effect: string; Action: string | string[]; Resource: unknown }[] {
  expect(synth.resources[roleId]!.Properties.ManagedPolicyArns).toBeUndefined();
  expect(synth.resources[roleId]!.Properties.Policies).toBeUndefined();
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
}

/** The statements of every policy attached to the role of the named function. */
const policyStatements = (name: FunctionName) => roleStatements(functionResource(name).Properties.Role['Fn::GetAtt'][0] as string);

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** A resource of a policy statement: a reference to a resource of the template, or an ARN joined from one. */
interface ResourceReference {
  readonly Ref?: string;
  readonly 'Fn::GetAtt'?: readonly [string, string];
  readonly 'Fn::Join'?: readonly [string, readonly unknown[]];
}

/** A granted resource by what it is: a table key (`enrollments/index/byUser`), `signingSecret`, `gradingQueue`, a function. */
function resourceName(resource: ResourceReference): string {
  const tableKeyById = new Map(tableEntries.map(([key]) => [logicalId(synth.stack.tables.get(key)!), key as string]));
  const named = (id: string): string => {
    if (tableKeyById.has(id)) return tableKeyById.get(id)!;
    if (id === logicalId(synth.stack.signingSecret)) return 'signingSecret';
    if (id === logicalId(synth.stack.ltiKey)) return 'ltiKey';
    if (id === logicalId(synth.stack.recordKeys)) return 'recordKeys';
    if (id === logicalId(synth.stack.gradingQueue)) return 'gradingQueue';
    if (id === logicalId(synth.stack.webhooks.queue)) return 'webhookQueue';
    if (id === logicalId(synth.stack.summariesQueue)) return 'summariesQueue';
    if (id === logicalId(synth.stack.ltiScores.queue)) return 'ltiScoreQueue';
    if (id === logicalId(synth.stack.gradingSandbox.jobsBucket)) return 'jobsBucket';
    if (id === logicalId(synth.stack.submissions.bucket)) return 'submissionsBucket';
    if (id === logicalId(synth.stack.gradingSandbox.project)) return 'gradingProject';
    const fn = [...synth.stack.functions].find(([, f]) => logicalId(f.function) === id);
    if (fn) return fn[0];
    throw new Error(`Unexpected resource ${id}`);
  };
  if (resource.Ref) return named(resource.Ref);
  if (resource['Fn::GetAtt']) return named(resource['Fn::GetAtt'][0]);
  const parts = resource['Fn::Join']![1];
  // The harness: an object of the CDK assets bucket, named by its hash.
  if (parts.some((part) => typeof part === 'string' && part.endsWith(`/${synth.stack.gradingSandbox.harness.s3ObjectKey}`)))
    return 'harness';
  const [first, suffix] = parts as [ResourceReference, string];
  return `${resourceName(first)}${suffix}`;
}

/** Everything the named function's role allows, as sorted `action resource` pairs. */
function grants(name: FunctionName): string[] {
  const pairs = policyStatements(name).flatMap((statement) => {
    expect(statement.Effect, name).toBe('Allow');
    return asArray(statement.Action).flatMap((action) =>
      asArray(statement.Resource).map((resource) => `${action} ${JSON.stringify(resource)}`),
    );
  });
  return [...new Set(pairs)].sort();
}

/**
 * What each function's role is expected to allow besides writing its own logs: its folder's `policy`
 * (functions/<name>/test-rows.ts), stated there by hand.
 */
const EXPECTED_POLICIES: Record<FunctionName, readonly string[]> = Object.fromEntries(
  Object.entries({ ...routeRows, ...workerRows }).map(([name, rows]) => [name, rows.policy]),
) as Record<FunctionName, readonly string[]>;

/** Time limits and memory that differ from an API handler's 25 s and 1024 MB. */
const LIMITS: Record<string, { Timeout: number; MemorySize: number }> = {
  'generate-summaries': { Timeout: 900, MemorySize: 1024 },
  'lti-roster-sync': { Timeout: 900, MemorySize: 1024 },
  'grading-worker': { Timeout: 900, MemorySize: 1024 },
  'summaries-worker': { Timeout: 900, MemorySize: 1024 },
  'webhook-relay': { Timeout: 50, MemorySize: 1024 },
  'course-job-sweeper': { Timeout: 60, MemorySize: 1024 },
  'lti-score': { Timeout: 60, MemorySize: 1024 },
};

describe('functions', () => {
  it('has one function per route-table entry plus the $default one, the grading worker, the webhook delivery function, the summaries worker, the outbox relay, the course job sweeper and the LTI score function', () => {
    expect(ofType('AWS::Lambda::Function')).toHaveLength(routeEntries.length + 1 + gradingFunctionNames.length + 5);
    expect([...synth.stack.functions.keys()].sort()).toEqual([...functionNames].sort());
  });

  it('runs every function on Node 24, arm64, as bundled ESM with source maps', () => {
    for (const name of functionNames) {
      const { Properties } = functionResource(name);
      expect(Properties, name).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        ...(LIMITS[name] ?? { Timeout: 25, MemorySize: 1024 }),
        Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps' } },
      });
      const logGroup = synth.resources[Properties.LoggingConfig.LogGroup.Ref]!;
      expect(logGroup.Properties.RetentionInDays, name).toBe(30);
    }
  });

  it('carries no test rows or deployed-day steps in any bundle (their grants as `action resource`, the matrix’s outcomes, the day’s phases)', () => {
    for (const name of functionNames) {
      const hash = (functionResource(name).Properties.Code.S3Key as string).replace(/\.zip$/, '');
      const bundle = readFileSync(join(synth.app.outdir, `asset.${hash}`, 'index.mjs'), 'utf8');
      expect(bundle, name).not.toMatch(/["'`](dynamodb|sqs|s3|secretsmanager|codebuild):[A-Za-z]+ [a-z]/);
      expect(bundle, name).not.toContain('matrix-nobody');
      expect(bundle, name).not.toContain('signed in through the identity provider');
    }
  });

  it('bundles a self-contained ESM handler that answers with the envelope', () => {
    const hash = (functionResource('not-found').Properties.Code.S3Key as string).replace(/\.zip$/, '');
    const bundle = join(synth.app.outdir, `asset.${hash}`, 'index.mjs');
    expect(readdirSync(join(synth.app.outdir, `asset.${hash}`)).sort()).toEqual(['index.mjs', 'index.mjs.map', 'multipart.mjs']);
    const script = `
      const { handler } = await import(${JSON.stringify(bundle)});
      const event = { version: '2.0', routeKey: '$default', rawPath: '/api/nope', rawQueryString: '', headers: {},
        requestContext: { http: { method: 'GET', path: '/api/nope' }, requestId: 'r' }, isBase64Encoded: false };
      const result = await handler(event, { awsRequestId: 'r', functionName: 'f', getRemainingTimeInMillis: () => 1000 });
      process.stdout.write(result.body);`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: synth.app.outdir,
      env: { PATH: process.env.PATH, POWERTOOLS_LOG_LEVEL: 'ERROR' },
    });
    const lines = output.toString().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual({ status: 'fail', message: 'Endpoint not found.' });
    // The fail answer is counted in CloudWatch's embedded metric format, by route.
    const metric = JSON.parse(lines[0]!);
    expect(metric).toMatchObject({ FailAnswers: 1, route: '$default', service: 'course-submission-api' });
    expect(metric._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'CourseSubmissionApi', Dimensions: [['service', 'route']] });
  });

  it('bundles the grading worker as a loadable handler', () => {
    const bundle = (name: FunctionName) => {
      const hash = (functionResource(name).Properties.Code.S3Key as string).replace(/\.zip$/, '');
      return join(synth.app.outdir, `asset.${hash}`, 'index.mjs');
    };
    const script = `
      const worker = await import(${JSON.stringify(bundle('grading-worker'))});
      const answer = await worker.handler({ Records: [] });
      process.stdout.write(JSON.stringify({ answer }));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: synth.app.outdir,
      env: { PATH: process.env.PATH, POWERTOOLS_LOG_LEVEL: 'ERROR' },
    });
    expect(JSON.parse(output.toString())).toEqual({ answer: { batchItemFailures: [] } });
  });

  it('bundles the CodeBuild engine beside the grading worker, loaded by its first job only', () => {
    const hash = (functionResource('grading-worker').Properties.Code.S3Key as string).replace(/\.zip$/, '');
    const folder = join(synth.app.outdir, `asset.${hash}`);
    expect(readdirSync(folder).sort()).toEqual([
      'checkout-child.mjs',
      'codebuild-engine.mjs',
      'index.mjs',
      'index.mjs.map',
      'multipart.mjs',
      's3-sdk.mjs',
      'secrets-manager-sdk.mjs',
      'sqs-sdk.mjs',
    ]);
    // The CodeBuild client, the S3 client (a files version's objects are listed and linked through
    // the S3 companion file), the Secrets Manager client (the grading records' keys), the SQS client
    // (its webhook events) and the local engine are not in the handler's own bundle.
    const handler = readFileSync(join(folder, 'index.mjs'), 'utf8');
    expect(handler).not.toContain('StartBuildCommand');
    expect(handler).not.toContain('AmazonS3');
    expect(handler).not.toContain('AmazonSQS');
    expect(handler).not.toContain('The grading runner could not be started');
    const script = `
      const engine = await import(${JSON.stringify(join(folder, 'codebuild-engine.mjs'))});
      process.stdout.write(JSON.stringify([typeof engine.codeBuildSandbox, typeof engine.runJobsInCodeBuild]));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: synth.app.outdir,
      env: { PATH: process.env.PATH, POWERTOOLS_LOG_LEVEL: 'ERROR' },
    });
    expect(JSON.parse(output.toString())).toEqual(['function', 'function']);
  });

  it('carries the S3, Secrets Manager and SQS clients and the git clients beside the bundles that load them, not in them', () => {
    const companions = {
      's3-sdk.mjs': ['AmazonS3', 'S3Client'],
      'secrets-manager-sdk.mjs': ['secretsmanager', 'SecretsManagerClient'],
      'sqs-sdk.mjs': ['AmazonSQS', 'SQSClient'],
      'git-head.mjs': ['git-upload-pack', 'resolveHead'],
      'commit-files.mjs': ['git-upload-pack', 'commitFiles'],
    };
    const carriers = new Map<string, [name: FunctionName, folder: string][]>();
    for (const name of functionNames) {
      const hash = (functionResource(name).Properties.Code.S3Key as string).replace(/\.zip$/, '');
      const folder = join(synth.app.outdir, `asset.${hash}`);
      const files = readdirSync(folder);
      const handler = readFileSync(join(folder, 'index.mjs'), 'utf8');
      for (const [file, [marker]] of Object.entries(companions)) {
        expect(handler, name).not.toContain(marker);
        // Named by the bundle (it loads it on first use) exactly when it is in the asset.
        expect(files.includes(file), `${name}: ${file}`).toBe(handler.includes(file));
        if (files.includes(file)) carriers.set(file, [...(carriers.get(file) ?? []), [name, folder]]);
      }
    }
    expect(carriers.get('s3-sdk.mjs')?.length).toBeGreaterThanOrEqual(4);
    expect(carriers.get('secrets-manager-sdk.mjs')?.length).toBeGreaterThan(functionNames.length / 2);
    // The SQS client goes with exactly the functions allowed to send to a queue.
    const senders = functionNames.filter((name) => EXPECTED_POLICIES[name].some((grant) => grant.startsWith('sqs:SendMessage ')));
    expect(senders.length).toBeGreaterThanOrEqual(5);
    expect(carriers.get('sqs-sdk.mjs')?.map(([name]) => name)).toEqual(senders);
    // Only a submission from git reads a repository's head.
    expect(carriers.get('git-head.mjs')?.map(([name]) => name)).toEqual(['submit-vcs']);
    // Only a similarity run reads a repository version's commit, with the checkout process it starts beside it.
    expect(carriers.get('commit-files.mjs')?.map(([name]) => name)).toEqual(['summaries-worker']);
    expect(readdirSync(carriers.get('commit-files.mjs')![0]![1])).toContain('checkout-child.mjs');
    // Each companion file loads on its own and exports the client.
    const script = `
      const loaded = [];
      for (const [file, exported] of ${JSON.stringify(Object.entries(companions).map(([file, [, exported]]) => [join(carriers.get(file)![0]![1], file), exported]))}) {
        loaded.push(typeof (await import(file))[exported]);
      }
      process.stdout.write(JSON.stringify(loaded));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: synth.app.outdir,
      env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1' },
    });
    expect(JSON.parse(output.toString())).toEqual(['function', 'function', 'function', 'function', 'function']);
  });

  it('alarms on each function’s errors and throttles', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    for (const name of functionNames) {
      const id = logicalId(synth.stack.functions.get(name)!.function);
      const metrics = alarms
        .filter((alarm) => alarm.Namespace === 'AWS/Lambda' && alarm.Dimensions?.[0]?.Value?.Ref === id)
        .map((alarm) => alarm.MetricName);
      expect(metrics.sort(), name).toEqual(['Errors', 'Throttles']);
    }
  });
});

describe('HTTP API', () => {
  it('routes every route key of the route table, HEAD beside each GET, plus $default', () => {
    const keys = ofType('AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties.RouteKey);
    const gets = routeKeys.filter((key) => key.method === 'GET');
    expect(gets.length).toBeGreaterThan(0);
    expect(keys.sort()).toEqual(
      [...routeKeys.map((key) => `${key.method} ${key.path}`), ...gets.map((key) => `HEAD ${key.path}`), '$default'].sort(),
    );
  });

  it('sends each path and alias to its entry’s function with payload format 2.0', () => {
    const targetOf = (routeKey: string) => {
      const [, route] = ofType('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === routeKey)!;
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
      const integration = synth.resources[integrationId]!.Properties;
      expect(integration).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      return integration.IntegrationUri['Fn::GetAtt'][0] as string;
    };
    for (const key of gatewayRouteKeys) {
      expect(targetOf(`${key.method} ${key.path}`), `${key.method} ${key.path}`).toBe(
        logicalId(synth.stack.functions.get(key.name)!.function),
      );
    }
    expect(targetOf('$default')).toBe(logicalId(synth.stack.functions.get('not-found')!.function));
  });

  it('has no CORS configuration without corsOrigins, and the default throttling', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Api', { CorsConfiguration: Match.absent() });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 },
    });
  });

  it('writes JSON access logs to a log group with limited retention', () => {
    const [, stage] = ofType('AWS::ApiGatewayV2::Stage')[0]!;
    const { DestinationArn, Format } = stage.Properties.AccessLogSettings;
    expect(synth.resources[DestinationArn['Fn::GetAtt'][0]]!.Properties.RetentionInDays).toBe(30);
    expect(JSON.parse(Format)).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
  });

  it('alarms on 5xx answers', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Threshold: 1,
    });
  });

  it('alarms on error envelopes, which answer HTTP 200 and so never reach the 5xx alarm', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'CourseSubmissionApi',
      MetricName: 'ErrorAnswers',
      Dimensions: [{ Name: 'service', Value: 'course-submission-api' }],
      Statistic: 'Sum',
      Threshold: 1,
    });
  });

  it('sends every alarm to one SNS topic, TLS only, with no subscription unless alarmEmail is set', () => {
    const [topicId] = ofType('AWS::SNS::Topic')[0]!;
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(functionNames.length * 2);
    for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmActions, id).toEqual([{ Ref: topicId }]);
    expect(ofType('AWS::SNS::Subscription')).toEqual([]);
    const statements = ofType('AWS::SNS::TopicPolicy').flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
  });

  it('outputs the API URL and each table name under its variable', () => {
    const outputs = synth.template.toJSON().Outputs as Record<string, { Description: string; Value: unknown }>;
    expect(JSON.stringify(outputs.ApiUrl?.Value)).toContain('/api');
    for (const [key, definition] of tableEntries) {
      const output = outputs[`${definition.id}TableName`]!;
      expect(output.Description.startsWith(`${definition.environmentVariable}:`)).toBe(true);
      expect(output.Value).toEqual({ Ref: logicalId(synth.stack.tables.get(key)!) });
    }
  });
});

describe('tables', () => {
  it('creates each defined table with string keys, on demand, with point-in-time recovery', () => {
    expect(ofType('AWS::DynamoDB::Table')).toHaveLength(tableEntries.length);
    for (const [key, definition] of tableEntries) {
      const table = synth.resources[logicalId(synth.stack.tables.get(key)!)]!;
      const keySchema = [{ AttributeName: definition.partitionKey, KeyType: 'HASH' }];
      if (definition.sortKey) keySchema.push({ AttributeName: definition.sortKey, KeyType: 'RANGE' });
      expect(table.Properties, definition.id).toMatchObject({
        KeySchema: keySchema,
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
      expect(table.Properties.AttributeDefinitions.every((a: { AttributeType: string }) => a.AttributeType === 'S')).toBe(true);
      expect(table.Properties.TimeToLiveSpecification, definition.id).toEqual(
        definition.timeToLiveAttribute ? { AttributeName: definition.timeToLiveAttribute, Enabled: true } : undefined,
      );
      expect((table.Properties.GlobalSecondaryIndexes ?? []).map((i: { IndexName: string }) => i.IndexName)).toEqual(
        (definition.globalIndexes ?? []).map((index) => index.name),
      );
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties.DeletionProtectionEnabled).toBeFalsy();
    }
  });
});

describe('least privilege', () => {
  it('grants each function exactly the actions it calls, on exactly the tables, indexes, secret, queue and function it uses', () => {
    expect(Object.keys(EXPECTED_POLICIES).sort()).toEqual([...functionNames].sort());
    for (const name of functionNames) {
      const ownLogs = JSON.stringify(getAtt(logicalId(synth.stack.functions.get(name)!.logGroup)));
      const granted = grants(name)
        .filter((grant) => !grant.endsWith(` ${ownLogs}`))
        .map((grant) => {
          const [action, resource] = [grant.slice(0, grant.indexOf(' ')), grant.slice(grant.indexOf(' ') + 1)];
          return `${action} ${resourceName(JSON.parse(resource))}`;
        });
      expect(granted.sort(), name).toEqual([...EXPECTED_POLICIES[name]].sort());
      expect(
        grants(name).filter((grant) => grant.endsWith(` ${ownLogs}`)),
        name,
      ).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => `${action} ${ownLogs}`));
    }
  });

  it('names in each function’s environment exactly the tables, secret, queues and grading sandbox it is granted', () => {
    for (const name of functionNames) {
      const variables = functionResource(name).Properties.Environment.Variables as Record<string, unknown>;
      const used = new Set(EXPECTED_POLICIES[name].map((grant) => grant.split(' ')[1]!.split('/')[0]!));
      const expected: Record<string, unknown> = { API_FUNCTION: name };
      for (const [key, definition] of tableEntries) {
        if (used.has(key)) expected[definition.environmentVariable] = { Ref: logicalId(synth.stack.tables.get(key)!) };
      }
      if (used.has('signingSecret')) expected.SIGNING_SECRET_ARN = { Ref: logicalId(synth.stack.signingSecret) };
      if (used.has('ltiKey')) expected.LTI_KEY_ARN = { Ref: logicalId(synth.stack.ltiKey) };
      if (used.has('recordKeys')) expected.RECORD_KEYS_ARN = { Ref: logicalId(synth.stack.recordKeys) };
      if (EXPECTED_POLICIES[name].includes('sqs:SendMessage gradingQueue'))
        expected.GRADING_QUEUE_URL = { Ref: logicalId(synth.stack.gradingQueue) };
      if (EXPECTED_POLICIES[name].includes('sqs:SendMessage webhookQueue'))
        expected.WEBHOOK_QUEUE_URL = { Ref: logicalId(synth.stack.webhooks.queue) };
      if (used.has('submissionsBucket')) expected.SUBMISSIONS_BUCKET = { Ref: logicalId(synth.stack.submissions.bucket) };
      if (EXPECTED_POLICIES[name].includes('sqs:SendMessage summariesQueue'))
        expected.SUMMARIES_QUEUE_URL = { Ref: logicalId(synth.stack.summariesQueue) };
      if (EXPECTED_POLICIES[name].includes('sqs:SendMessage ltiScoreQueue'))
        expected.LTI_SCORE_QUEUE_URL = { Ref: logicalId(synth.stack.ltiScores.queue) };
      if (used.has('gradingProject')) {
        const sandbox = synth.stack.gradingSandbox;
        expected.GRADING_PROJECT = { Ref: logicalId(sandbox.project) };
        expected.GRADING_BUCKET = { Ref: logicalId(sandbox.jobsBucket) };
        expected.GRADING_HARNESS = expect.anything();
        expected.GRADING_IMAGES = JSON.stringify({ default: 'aws/codebuild/standard:7.0' });
      }
      const resourceVariables = Object.fromEntries(
        Object.entries(variables).filter(([variable]) => RESOURCE_VARIABLES.has(variable) && variable !== 'API_ROUTE'),
      );
      expect(resourceVariables, name).toEqual(expected);
      const route = (routes as Record<string, RouteDefinition>)[name];
      expect(variables.API_ROUTE, name).toBe(route ? `${route.method} ${route.path}` : undefined);
    }
  });

  it('generates the signing secret at deploy time, 64 characters or more', () => {
    synth.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: Match.anyValue(), ExcludePunctuation: true },
    });
    const [, secret] = ofType('AWS::SecretsManager::Secret')[0]!;
    expect(secret.Properties.GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(64);
  });

  it('gives the worker its lease time and the git hosts it may fetch from', () => {
    const variables = functionResource('grading-worker').Properties.Environment.Variables;
    expect(variables.GRADING_LEASE_SECONDS).toBe('900');
    expect(variables.ALLOWED_GIT_HOSTS).toBeUndefined();
  });

  it('has no unacknowledged cdk-nag (AwsSolutions) errors', () => {
    const report = new cdkNag.AwsSolutionsChecks().validateScope(synth.stack);
    const errors = report.violations
      .filter((violation) => violation.severity === 'error')
      .map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(errors).toEqual([]);
  });
});

describe('grading queue', () => {
  const queueId = () => logicalId(synth.stack.gradingQueue);
  const deadLetterId = () => logicalId(synth.stack.gradingDeadLetterQueue);

  it('moves a wake-up received 3 times to a dead-letter queue; both encrypted, TLS only', () => {
    const webhookQueues = [
      synth.stack.webhooks.queue,
      synth.stack.webhooks.deadLetterQueue,
      synth.stack.summariesQueue,
      synth.stack.summariesDeadLetterQueue,
      synth.stack.ltiScores.queue,
      synth.stack.ltiScores.deadLetterQueue,
    ].map(logicalId);
    expect(
      ofType('AWS::SQS::Queue')
        .map(([id]) => id)
        .filter((id) => !webhookQueues.includes(id))
        .sort(),
    ).toEqual([queueId(), deadLetterId()].sort());
    expect(synth.resources[queueId()]!.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: getAtt(deadLetterId()),
      maxReceiveCount: 3,
    });
    expect(synth.resources[deadLetterId()]!.Properties.RedrivePolicy).toBeUndefined();
    for (const id of [queueId(), deadLetterId()]) {
      expect(synth.resources[id]!.Properties.SqsManagedSseEnabled, id).toBe(true);
      const policies = ofType('AWS::SQS::QueuePolicy').filter(([, policy]) => policy.Properties.Queues[0].Ref === id);
      expect(
        policies.flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement),
        id,
      ).toEqual([
        {
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'sqs:*',
          Resource: getAtt(id),
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        },
      ]);
    }
  });

  it('feeds the worker one wake-up at a time, reporting failures per message', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => mapping.Properties.EventSourceArn['Fn::GetAtt'][0] === queueId(),
    );
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toEqual({
      EventSourceArn: getAtt(queueId()),
      FunctionName: { Ref: functionId('grading-worker') },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      // The cap on concurrent grading jobs (gradingConcurrency, 20 by default).
      ScalingConfig: { MaximumConcurrency: 20 },
    });
  });

  it('hides a wake-up longer than a worker runs, leases its job as long, and outlives the grading build', () => {
    const worker = functionResource('grading-worker').Properties;
    const [, project] = ofType('AWS::CodeBuild::Project')[0]!;
    expect(synth.resources[queueId()]!.Properties.VisibilityTimeout).toBeGreaterThan(worker.Timeout);
    expect(Number(worker.Environment.Variables.GRADING_LEASE_SECONDS)).toBeGreaterThanOrEqual(worker.Timeout);
    expect(project.Properties.TimeoutInMinutes * 60).toBeLessThan(worker.Timeout);
  });

  it('alarms as soon as a wake-up reaches the dead-letter queue', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(deadLetterId(), 'QueueName') }],
      Statistic: 'Maximum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });
});

describe('summaries queue', () => {
  it('feeds the summaries worker one job at a time, hidden longer than it runs, to a dead-letter queue after 3 receives', () => {
    const queueId = logicalId(synth.stack.summariesQueue);
    const worker = functionResource('summaries-worker').Properties;
    expect(synth.resources[queueId]!.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: getAtt(logicalId(synth.stack.summariesDeadLetterQueue)),
      maxReceiveCount: 3,
    });
    expect(synth.resources[queueId]!.Properties.SqsManagedSseEnabled).toBe(true);
    expect(synth.resources[queueId]!.Properties.VisibilityTimeout).toBeGreaterThan(worker.Timeout);
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => mapping.Properties.EventSourceArn['Fn::GetAtt'][0] === queueId,
    );
    expect(mappings.map(([, mapping]) => mapping.Properties)).toEqual([
      {
        EventSourceArn: getAtt(queueId),
        FunctionName: { Ref: functionId('summaries-worker') },
        BatchSize: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 2 },
      },
    ]);
  });
});

describe('nightly summaries', () => {
  it('invokes generate-summaries at 03:00 UTC with a non-HTTP event, the run over every course', () => {
    // The nightly runs (summaries, roster sync), the webhook outbox relay's, the grading wake-up and the course job sweep.
    expect(ofType('AWS::Scheduler::Schedule')).toHaveLength(5);
    const { Properties } = synth.resources[logicalId(synth.stack.nightlySummaries)]!;
    expect(Properties).toMatchObject({
      ScheduleExpression: 'cron(0 3 * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
      State: 'ENABLED',
      Target: { Arn: getAtt(functionId('generate-summaries')) },
    });
    expect(JSON.parse(Properties.Target.Input)).toEqual({ source: 'nightly-summaries' });
  });

  it('runs as a role the scheduler assumes, which may invoke that function only', () => {
    const { Properties } = synth.resources[logicalId(synth.stack.nightlySummaries)]!;
    const roleId = Properties.Target.RoleArn['Fn::GetAtt'][0] as string;
    const trust = synth.resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' } })]);
    const summaries = getAtt(functionId('generate-summaries'));
    expect(roleStatements(roleId)).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: [summaries, { 'Fn::Join': ['', [summaries, ':*']] }],
      },
    ]);
  });

  it('invokes lti-roster-sync on the same schedule with a non-HTTP event, the sync of every linked course, as a role that may invoke it only', () => {
    const { Properties } = synth.resources[logicalId(synth.stack.nightlyRosterSync)]!;
    const rosterSync = getAtt(functionId('lti-roster-sync'));
    expect(Properties).toMatchObject({
      ScheduleExpression: 'cron(0 3 * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
      State: 'ENABLED',
      Target: { Arn: rosterSync },
    });
    expect(JSON.parse(Properties.Target.Input)).toEqual({ source: 'nightly-roster-sync' });
    const roleId = Properties.Target.RoleArn['Fn::GetAtt'][0] as string;
    expect(roleStatements(roleId)).toEqual([
      { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: [rosterSync, { 'Fn::Join': ['', [rosterSync, ':*']] }] },
    ]);
  });
});

describe('grading wake-up', () => {
  it('wakes a grading worker every minute (a job whose worker died is taken over), as a role that may send to the grading queue only', () => {
    const { Properties } = synth.resources[logicalId(synth.stack.gradingWakeUp)]!;
    const queue = getAtt(logicalId(synth.stack.gradingQueue));
    expect(Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED', Target: { Arn: queue } });
    const roleId = Properties.Target.RoleArn['Fn::GetAtt'][0] as string;
    const trust = synth.resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' } })]);
    expect(roleStatements(roleId)).toEqual([{ Action: 'sqs:SendMessage', Effect: 'Allow', Resource: queue }]);
  });

  it('leaves the jobs to heartbeat leases much shorter than the worker’s time', () => {
    const worker = synth.resources[functionId('grading-worker')]!.Properties;
    expect(worker.Environment.Variables.GRADING_HEARTBEAT_LEASE_SECONDS).toBeUndefined(); // the 2 minutes' default
    expect(Number(worker.Environment.Variables.GRADING_LEASE_SECONDS)).toBe(worker.Timeout);
  });
});

describe('course job sweep', () => {
  it('runs the sweeper every five minutes as a role the scheduler assumes, which may invoke the sweeper only', () => {
    const { Properties } = synth.resources[logicalId(synth.stack.courseJobSweep)]!;
    const sweeper = getAtt(functionId('course-job-sweeper'));
    expect(Properties).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED', Target: { Arn: sweeper } });
    const roleId = Properties.Target.RoleArn['Fn::GetAtt'][0] as string;
    const trust = synth.resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' } })]);
    expect(roleStatements(roleId)).toEqual([
      { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: [sweeper, { 'Fn::Join': ['', [sweeper, ':*']] }] },
    ]);
  });

  it('finds unfinished jobs through a sparse index of the summaries table that keeps only what the sweep reads', () => {
    const table = synth.resources[logicalId(synth.stack.tables.get('summaries')!)]!.Properties;
    expect(table.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'byUnfinished',
        KeySchema: [
          { AttributeName: 'unfinished', KeyType: 'HASH' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
        ],
        Projection: {
          ProjectionType: 'INCLUDE',
          NonKeyAttributes: ['term', 'course', 'state', 'leaseUntil', 'attempts', 'resends', 'resentAt'],
        },
      },
    ]);
  });
});

describe('webhook outbox relay', () => {
  it('runs every minute as a role the scheduler assumes, which may invoke the relay only', () => {
    const { Properties } = synth.resources[logicalId(synth.stack.webhooks.outboxSchedule!)]!;
    const relay = getAtt(functionId('webhook-relay'));
    expect(Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED', Target: { Arn: relay } });
    const roleId = Properties.Target.RoleArn['Fn::GetAtt'][0] as string;
    const trust = synth.resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' } })]);
    expect(roleStatements(roleId)).toEqual([
      { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: [relay, { 'Fn::Join': ['', [relay, ':*']] }] },
    ]);
  });
});

describe('grading sandbox', () => {
  const sandbox = () => synth.stack.gradingSandbox;

  it('runs each job as a fresh privileged CodeBuild build of the approved default image, in the VPC, capped in concurrency', () => {
    const projects = ofType('AWS::CodeBuild::Project');
    expect(projects).toHaveLength(1);
    const { Properties } = projects[0]![1];
    expect(Properties).toMatchObject({
      Environment: {
        Image: 'aws/codebuild/standard:7.0',
        ComputeType: 'BUILD_GENERAL1_SMALL',
        PrivilegedMode: true,
        Type: 'LINUX_CONTAINER',
      },
      Source: { Type: 'NO_SOURCE' },
      Artifacts: { Type: 'NO_ARTIFACTS' },
      ConcurrentBuildLimit: 20,
      VpcConfig: { VpcId: { Ref: logicalId(sandbox().vpc) } },
    });
    // One variable, the jobs bucket's name (no secret): the build finds its input by its own ARN, the rest travels inside it.
    expect(Properties.Environment.EnvironmentVariables).toEqual([
      { Name: 'JOBS_BUCKET', Type: 'PLAINTEXT', Value: { Ref: logicalId(sandbox().jobsBucket) } },
    ]);
    const spec = JSON.parse(Properties.Source.BuildSpec);
    const commands = spec.phases.build.commands.join('\n');
    expect(commands).toContain('node $job/harness.mjs');
    // One job after another, each fetched into a folder of its own, until the worker says there is none.
    expect(commands).toMatch(/while true; do\n {2}job=\/grading\/\$slot\n/);
    expect(commands).toMatch(/node --input-type=module -e '.*fetchJobInput.*' \$job\/input\.tgz \$slot/);
    expect(commands).toContain('rm -rf $job');
    // No shell variable: nothing the worker passes is pasted into a command.
    expect(JSON.stringify(spec).match(/\$\{?[A-Z][A-Z0-9_]*/g)).toBeNull();
  });

  it('starts a build with no URL, signature, key or credential: only the project, the image, how it is pulled and the time limit', () => {
    const { GRADING_PROJECT: project, GRADING_IMAGES: images } = functionResource('grading-worker').Properties.Environment.Variables;
    const image = JSON.parse(images).default as string;
    const request = startBuildInput(JSON.stringify(project), image, 30);
    expect(Object.keys(request).sort()).toEqual([
      'environmentTypeOverride',
      'imageOverride',
      'imagePullCredentialsTypeOverride',
      'projectName',
      'timeoutInMinutesOverride',
    ]);
    // The values: a key may name how CodeBuild pulls the image (imagePullCredentialsTypeOverride).
    expect(JSON.stringify(Object.values(request))).not.toMatch(/https?:|X-Amz-|Signature|Credential|Security-Token|ASIA|AKIA|resultKey/i);
  });

  it('has no way to the internet: isolated subnets only, no internet or NAT gateway, endpoints for S3 and logs only', () => {
    expect(ofType('AWS::EC2::NatGateway')).toEqual([]);
    expect(ofType('AWS::EC2::InternetGateway')).toEqual([]);
    expect(ofType('AWS::EC2::EgressOnlyInternetGateway')).toEqual([]);
    expect(ofType('AWS::EC2::Subnet').every(([, subnet]) => subnet.Properties.MapPublicIpOnLaunch === false)).toBe(true);
    // Routes lead nowhere but to the S3 gateway endpoint (no 0.0.0.0/0 route to a gateway).
    expect(ofType('AWS::EC2::Route')).toEqual([]);
    const endpoints = ofType('AWS::EC2::VPCEndpoint').map(([, endpoint]) => JSON.stringify(endpoint.Properties.ServiceName));
    expect(endpoints).toHaveLength(2);
    expect(endpoints.some((name) => name.includes('.s3'))).toBe(true);
    expect(endpoints.some((name) => name.includes('logs'))).toBe(true);
  });

  it('lets the S3 endpoint reach only the job objects', () => {
    const [, gateway] = ofType('AWS::EC2::VPCEndpoint').find(([, endpoint]) => endpoint.Properties.VpcEndpointType === 'Gateway')!;
    const statements = gateway.Properties.PolicyDocument.Statement;
    expect(statements).toHaveLength(1);
    expect(statements[0].Action).toEqual(['s3:GetObject', 's3:PutObject']);
    expect(
      asArray(statements[0].Resource)
        .map((resource: ResourceReference) => resourceName(resource))
        .sort(),
    ).toEqual(['jobsBucket/jobs/*']);
  });

  it("lets only the worker's role at the job objects, the builds' role read job inputs only, a presigned URL only through the grading VPC", () => {
    const bucket = logicalId(sandbox().jobsBucket);
    const policies = ofType('AWS::S3::BucketPolicy').filter(([, policy]) => policy.Properties.Bucket.Ref === bucket);
    expect(policies).toHaveLength(1);
    const workerRole = functionResource('grading-worker').Properties.Role['Fn::GetAtt'][0] as string;
    const buildRole = logicalId(sandbox().buildRole);
    const [gatewayId] = ofType('AWS::EC2::VPCEndpoint').find(([, endpoint]) => endpoint.Properties.VpcEndpointType === 'Gateway')!;
    const objects = { 'Fn::Join': ['', [getAtt(bucket), '/*']] };
    expect(policies[0]![1].Properties.PolicyDocument.Statement).toEqual([
      {
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:*',
        Resource: [getAtt(bucket), objects],
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
      {
        Sid: 'PresignedOnlyThroughTheGradingVpc',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:*',
        Resource: objects,
        Condition: { StringNotEquals: { 's3:authType': 'REST-HEADER', 'aws:SourceVpce': { Ref: gatewayId } } },
      },
      {
        Sid: 'BuildsOnlyReadJobInputs',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        NotAction: 's3:GetObject',
        Resource: objects,
        Condition: { ArnEquals: { 'aws:PrincipalArn': getAtt(buildRole) } },
      },
      {
        Sid: 'BuildsOnlyThroughTheGradingVpc',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:*',
        Resource: objects,
        Condition: { ArnEquals: { 'aws:PrincipalArn': getAtt(buildRole) }, StringNotEquals: { 'aws:SourceVpce': { Ref: gatewayId } } },
      },
      {
        Sid: 'BuildsReadNothingButJobInputs',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:GetObject',
        NotResource: { 'Fn::Join': ['', [getAtt(bucket), '/jobs/*/input.tgz']] },
        Condition: { ArnEquals: { 'aws:PrincipalArn': getAtt(buildRole) } },
      },
      {
        Sid: 'JobObjectsOnlyForTheWorkerAndItsBuilds',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:*',
        Resource: objects,
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': [getAtt(workerRole), getAtt(buildRole)] } },
      },
    ]);
  });

  it('lets a build read its own input and nothing else of the jobs bucket, and an insider read none of it (IAM evaluated)', async () => {
    const { loadDeployment } = await import('../deployed/cloudformation.ts');
    const { PolicyEvaluator, mergePolicies, sessionArn } = await import('../deployed/iam.ts');
    // The evaluator reads the endpoint policy's {"AWS": "*"} only as "*", as the deployed-artifact test gives it.
    const { anyPrincipalAsStar } = await import('../deployed/s3.ts');
    const deployment = loadDeployment(synth.app.synth().directory, synth.stack.stackName);
    const evaluator = new PolicyEvaluator();
    const jobs = deployment.buckets.find((candidate) => candidate.logicalId === logicalId(sandbox().jobsBucket))!;
    const [project] = deployment.codeBuildProjects;
    const gateway = deployment.vpcEndpoints.find((endpoint) => endpoint.type === 'Gateway')!;
    const buildArn = (uuid: string) => project!.arn.replace(':project/', ':build/') + `:${uuid}`;
    const mine = buildArn('11111111-2222-3333-4444-555555555555');
    const other = buildArn('66666666-7777-8888-9999-000000000000');
    // The build's session, its policies read as CodeBuild resolves ${codebuild:buildArn} for this build.
    const role = project!.serviceRole;
    const policies = role.policies.map((policy) => ({
      ...policy,
      document: JSON.parse(JSON.stringify(policy.document).replaceAll('${codebuild:buildArn}', mine)),
    }));
    const build = { label: 'build', arn: sessionArn(role, 'AWSCodeBuild-1'), role: { ...role, policies } };
    const workerRole = deployment.functions.find((fn) => fn.environment.GRADING_PROJECT)!.role;
    const worker = { label: 'worker', arn: sessionArn(workerRole, 'worker'), role: workerRole };
    const insiderRole = {
      logicalId: 'Insider',
      name: 'ReadOnlyConsole',
      arn: 'arn:aws:iam::123456789012:role/ReadOnlyConsole',
      trustPolicy: undefined,
      policies: [
        {
          name: 'ReadOnlyAccess',
          document: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['s3:Get*', 's3:List*'], Resource: '*' }] },
        },
      ],
    };
    const insider = { label: 'insider', arn: sessionArn(insiderRole, 'insider'), role: insiderRole };
    const ask = async (who: typeof build, action: string, key: string, throughVpc: boolean) =>
      (
        await evaluator.authorize(who, action, `${jobs.arn}/${key}`, {
          resourcePolicy: mergePolicies(jobs.policies),
          ...(throughVpc
            ? {
                vpcEndpointPolicies: [{ name: gateway.logicalId, policy: anyPrincipalAsStar(gateway.policy!) }],
                context: { 's3:authType': 'REST-QUERY-STRING', 'aws:SourceVpce': gateway.id, 'aws:SourceVpc': gateway.vpcId },
              }
            : { context: { 's3:authType': 'REST-HEADER' } }),
          purpose: 'stack test',
        })
      ).allowed;
    for (const slot of [1, 2]) {
      expect(await ask(build, 's3:GetObject', `jobs/${mine}/${slot}/input.tgz`, true), `its job ${slot}'s input`).toBe(true);
      expect(await ask(build, 's3:GetObject', `jobs/${mine}/${slot}/input.tgz`, false)).toBe(false);
      expect(await ask(build, 's3:GetObject', `jobs/${other}/${slot}/input.tgz`, true), "another build's input").toBe(false);
      for (const action of ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'])
        expect(await ask(build, action, `jobs/${mine}/${slot}/result.json`, true), `${action} of its result`).toBe(false);
      expect(await ask(build, 's3:PutObject', `jobs/${mine}/${slot}/input.tgz`, true)).toBe(false);
    }
    for (const key of [`jobs/${mine}/1/input.tgz`, `jobs/${mine}/1/result.json`]) {
      expect(await ask(insider, 's3:GetObject', key, false), `the insider reading ${key}`).toBe(false);
      expect(await ask(insider, 's3:GetObject', key, true), `the insider reading ${key} from the VPC`).toBe(false);
    }
    expect(evaluator.denials.find((denial) => denial.principal === 'insider')?.message).toMatch(
      /with an explicit deny in a resource-based policy/,
    );
    expect(await ask(worker, 's3:GetObject', `jobs/${mine}/1/result.json`, false)).toBe(true);
    expect(await ask(worker, 's3:PutObject', `jobs/${mine}/2/input.tgz`, false)).toBe(true);
  });

  it('gives the build a role that may write its own logs, attach to the VPC and read its own input, nothing else', () => {
    const { Properties } = ofType('AWS::CodeBuild::Project')[0]![1];
    const roleId = Properties.ServiceRole['Fn::GetAtt'][0] as string;
    const logs = JSON.stringify(getAtt(logicalId(sandbox().logGroup)));
    const granted = roleStatements(roleId)
      .flatMap((statement) => asArray(statement.Action).map((action) => `${action} ${JSON.stringify(statement.Resource)}`))
      .sort();
    const networkInterfaces = granted.filter((grant) => grant.startsWith('ec2:CreateNetworkInterfacePermission'));
    expect(networkInterfaces).toHaveLength(1);
    expect(granted.filter((grant) => !networkInterfaces.includes(grant))).toEqual(
      [
        `logs:CreateLogStream ${logs}`,
        `logs:PutLogEvents ${logs}`,
        `s3:GetObject ${JSON.stringify({ 'Fn::Join': ['', [getAtt(logicalId(sandbox().jobsBucket)), '/jobs/${codebuild:buildArn}/*/input.tgz']] })}`,
        ...[
          'CreateNetworkInterface',
          'DeleteNetworkInterface',
          'DescribeDhcpOptions',
          'DescribeNetworkInterfaces',
          'DescribeSecurityGroups',
          'DescribeSubnets',
          'DescribeVpcs',
        ].map((action) => `ec2:${action} "*"`),
      ].sort(),
    );
    const [permission] = roleStatements(roleId).filter((statement) =>
      asArray(statement.Action).includes('ec2:CreateNetworkInterfacePermission'),
    );
    expect((permission as { Condition?: unknown }).Condition).toMatchObject({
      StringEquals: { 'ec2:AuthorizedService': 'codebuild.amazonaws.com' },
    });
  });

  it('keeps job objects a day at most, encrypted, TLS only, never public', () => {
    const bucket = synth.resources[logicalId(sandbox().jobsBucket)]!.Properties;
    expect(bucket.LifecycleConfiguration.Rules).toContainEqual(expect.objectContaining({ ExpirationInDays: 1, Status: 'Enabled' }));
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
  });
});

describe('settings given to the functions that read them', () => {
  /** A value for every setting given only to the functions that read it, through its context value. */
  const EVERY_SETTING = {
    summariesJobMinUsers: 5,
    submissionsPerMinute: 30,
    maxVersions: 100,
    maxQueuedJobsPerStudent: 3,
    courseBurstPerMinute: 20,
    oidcIssuer: 'https://idp.example.edu',
    oidcClientId: 'api',
    oidcUserIdClaim: 'email',
    oidcUserIdSuffix: '@example.edu',
    oidcCreateUsers: 'true',
    oidcEmailsVerified: 'true',
    oidcSuperusers: 'true',
    passwordLogin: 'superusers',
    allowedGitHosts: 'git.example.edu',
    allowedWebhookHosts: 'hooks.example.edu',
    webhookRetrySchedule: '5,60',
    ltiAllowedHosts: 'lms.example.edu:8443',
    ltiFrontendUrl: 'https://courses.example.edu/lti',
  };

  /**
   * The settings a function's deployed code reads: those its bundle and the files beside it call
   * config() with (shared/config.ts; `config('PASSWORD_LOGIN')` survives minifying as
   * `f("PASSWORD_LOGIN")`, a definition's list of names does not look like a call, and code esbuild
   * left out reads nothing).
   */
  const settingsRead = (name: FunctionName): FunctionSetting[] => {
    const hash = (functionResource(name).Properties.Code.S3Key as string).replace(/\.zip$/, '');
    const folder = join(synth.app.outdir, `asset.${hash}`);
    const code = readdirSync(folder)
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => readFileSync(join(folder, file), 'utf8'))
      .join('\n');
    return functionSettings.filter((setting) => new RegExp(`[\\w$]\\(["'\`]${setting}["'\`]\\)`).test(code)).sort();
  };

  it("names in each function's definition exactly the settings its deployed code reads", () => {
    const named = Object.fromEntries(functionNames.map((name) => [name, [...functionAccess(name).settings].sort()]));
    const read = Object.fromEntries(functionNames.map((name) => [name, settingsRead(name)]));
    expect(named).toEqual(read);
    // Checking a password as a login does reads PASSWORD_LOGIN, wherever a password is taken.
    for (const name of ['issue-token', 'invalidate-token', 'change-password'] as const)
      expect(read[name], name).toContain('PASSWORD_LOGIN');
  });

  it('gives each function every setting its code reads that the deployment sets, and none it does not read', () => {
    const deployed = synthesize(EVERY_SETTING, { bundle: false });
    for (const name of functionNames) {
      const variables = deployed.resources[logicalId(deployed.stack.functions.get(name)!.function)]!.Properties.Environment.Variables;
      expect(functionSettings.filter((setting) => setting in variables).sort(), name).toEqual(settingsRead(name));
    }
  }, 600_000);
});
