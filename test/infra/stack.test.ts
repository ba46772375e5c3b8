import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeKeys, type RouteDefinition } from '#shared/http/routes.ts';
import { tables } from '#shared/data/tables.ts';
import {
  functionNames,
  gradingFunctionNames,
  logicalId,
  routeEntries,
  synthesize,
  tableEntries,
  type Synthesized,
} from './synth.ts';

// One synthesis for the whole file, with real esbuild bundling of every function.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({}, { bundle: true });
}, 180_000);

const ofType = (type: string) => Object.entries(synth.resources).filter(([, resource]) => resource.Type === type);
const functionId = (name: string) => logicalId(synth.stack.functions.get(name)!.function);
const functionResource = (name: string) => synth.resources[functionId(name)]!;
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
const policyStatements = (name: string) => roleStatements(functionResource(name).Properties.Role['Fn::GetAtt'][0] as string);

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** Everything the named function's role allows, as sorted `action resource` pairs. */
function grants(name: string): string[] {
  const pairs = policyStatements(name).flatMap((statement) => {
    expect(statement.Effect, name).toBe('Allow');
    return asArray(statement.Action).flatMap((action) =>
      asArray(statement.Resource).map((resource) => `${action} ${JSON.stringify(resource)}`),
    );
  });
  return [...new Set(pairs)].sort();
}

/** What the route table says a route's function may do with each table (read-write wins). */
function expectedTables(route: RouteDefinition): Map<string, 'read' | 'read-write'> {
  const expected = new Map<string, 'read' | 'read-write'>();
  if (route.access !== 'public') {
    expected.set('sessions', 'read');
    expected.set('users', 'read');
  }
  for (const [key, level] of Object.entries(route.tables ?? {})) {
    if (expected.get(key) !== 'read-write') expected.set(key, level);
  }
  return expected;
}

/** The grading worker's tables (shared/grading/worker.ts): it claims jobs, records states and results. */
const WORKER_TABLES = new Map<string, 'read' | 'read-write'>([
  ['jobs', 'read-write'],
  ['submissions', 'read-write'],
  ['results', 'read-write'],
  ['gradeables', 'read'],
]);

/** Every function with the table access it must have, exactly. */
const expectedTableAccess = (): [string, Map<string, 'read' | 'read-write'>][] => [
  ...routeEntries.map(([name, route]): [string, Map<string, 'read' | 'read-write'>] => [name, expectedTables(route)]),
  ['not-found', new Map()],
  ['grading-worker', WORKER_TABLES],
  ['grading-runner', new Map()],
];

/** Time limits and memory that differ from an API handler's 25 s and 1024 MB. */
const LIMITS: Record<string, { Timeout: number; MemorySize: number }> = {
  'generate-summaries': { Timeout: 900, MemorySize: 1024 },
  'grading-worker': { Timeout: 900, MemorySize: 1024 },
  'grading-runner': { Timeout: 840, MemorySize: 2048 },
};

const WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const READS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];

describe('functions', () => {
  it('has one function per route-table entry plus the $default one and the grading worker and runner', () => {
    expect(ofType('AWS::Lambda::Function')).toHaveLength(routeEntries.length + 1 + gradingFunctionNames.length);
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

  it('bundles a self-contained ESM handler that answers with the envelope', () => {
    const hash = (functionResource('not-found').Properties.Code.S3Key as string).replace(/\.zip$/, '');
    const bundle = join(synth.app.outdir, `asset.${hash}`, 'index.mjs');
    expect(readdirSync(join(synth.app.outdir, `asset.${hash}`)).sort()).toEqual(['index.mjs', 'index.mjs.map']);
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
    expect(JSON.parse(output.toString())).toEqual({ status: 'fail', message: 'Endpoint not found.' });
  });

  it('bundles the grading worker and runner as loadable handlers', () => {
    const bundle = (name: string) => {
      const hash = (functionResource(name).Properties.Code.S3Key as string).replace(/\.zip$/, '');
      return join(synth.app.outdir, `asset.${hash}`, 'index.mjs');
    };
    const script = `
      const worker = await import(${JSON.stringify(bundle('grading-worker'))});
      const runner = await import(${JSON.stringify(bundle('grading-runner'))});
      const answer = await worker.handler({ Records: [] });
      process.stdout.write(JSON.stringify({ answer, runner: typeof runner.handler }));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: synth.app.outdir,
      env: { PATH: process.env.PATH, POWERTOOLS_LOG_LEVEL: 'ERROR' },
    });
    expect(JSON.parse(output.toString())).toEqual({ answer: { batchItemFailures: [] }, runner: 'function' });
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
  it('routes every route key of the route table, plus $default', () => {
    const keys = ofType('AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties.RouteKey);
    expect(keys.sort()).toEqual([...routeKeys.map((key) => `${key.method} ${key.path}`), '$default'].sort());
  });

  it('sends each path and alias to its entry’s function with payload format 2.0', () => {
    const targetOf = (routeKey: string) => {
      const [, route] = ofType('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === routeKey)!;
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
      const integration = synth.resources[integrationId]!.Properties;
      expect(integration).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      return integration.IntegrationUri['Fn::GetAtt'][0] as string;
    };
    for (const key of routeKeys) {
      expect(targetOf(`${key.method} ${key.path}`), key.path).toBe(logicalId(synth.stack.functions.get(key.name)!.function));
    }
    expect(targetOf('$default')).toBe(logicalId(synth.stack.functions.get('not-found')!.function));
  });

  it('has no CORS configuration without corsOrigins, and the default throttling', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Api', { CorsConfiguration: Match.absent() });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
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
  it('grants each function exactly the table access its route declares (plus the token check’s reads) or the worker’s', () => {
    const tableKeyById = new Map(tableEntries.map(([key]) => [logicalId(synth.stack.tables.get(key)!), key as string]));
    const entries = expectedTableAccess();
    expect(entries.map(([name]) => name).sort()).toEqual([...functionNames].sort());
    for (const [name, expected] of entries) {
      const actionsByTable = new Map<string, Set<string>>();
      for (const statement of policyStatements(name)) {
        const actions = asArray(statement.Action);
        if (!actions.some((action) => action.startsWith('dynamodb:'))) continue;
        for (const resource of asArray(statement.Resource as Record<string, any>)) {
          // The table itself, or its indexes: `<table arn>/index/*`. Never `*`.
          const arn = resource['Fn::GetAtt'] ?? resource['Fn::Join']?.[1]?.[0]?.['Fn::GetAtt'];
          expect(arn, `${name}: ${JSON.stringify(resource)}`).toBeDefined();
          if (resource['Fn::Join']) expect(resource['Fn::Join'][1][1]).toBe('/index/*');
          const key = tableKeyById.get(arn[0]);
          expect(key, `${name}: ${arn[0]}`).toBeDefined();
          const set = actionsByTable.get(key!) ?? new Set();
          actions.forEach((action) => set.add(action));
          actionsByTable.set(key!, set);
        }
      }
      expect([...actionsByTable.keys()].sort(), name).toEqual([...expected.keys()].sort());
      for (const [key, level] of expected) {
        const actions = [...actionsByTable.get(key)!];
        expect(actions, `${name} on ${key}`).toEqual(expect.arrayContaining(READS));
        if (level === 'read-write') expect(actions, `${name} on ${key}`).toEqual(expect.arrayContaining(WRITES));
        else expect(actions.filter((action) => WRITES.includes(action)), `${name} on ${key}`).toEqual([]);
      }

      const variables = Object.keys(functionResource(name).Properties.Environment.Variables).filter((v) => v.endsWith('_TABLE'));
      const expectedVariables = [...expected.keys()].map((key) => tables[key as keyof typeof tables].environmentVariable);
      expect(variables.sort(), name).toEqual(expectedVariables.sort());
    }
  });

  it('generates the signing secret at deploy time, readable by the token functions only', () => {
    synth.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: Match.anyValue(), ExcludePunctuation: true },
    });
    const [secretId, secret] = ofType('AWS::SecretsManager::Secret')[0]!;
    expect(secret.Properties.GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(64);

    const entries: [string, RouteDefinition | undefined][] = [
      ...routeEntries,
      ['not-found', undefined],
      ...gradingFunctionNames.map((name): [string, undefined] => [name, undefined]),
    ];
    for (const [name, route] of entries) {
      // Every route that checks a token verifies it; the token routes sign them.
      const expected = route !== undefined && (route.access !== 'public' || route.path.startsWith('/api/token'));
      const readsSecret = policyStatements(name).some(
        (statement) =>
          asArray(statement.Action).includes('secretsmanager:GetSecretValue') &&
          JSON.stringify(statement.Resource) === JSON.stringify({ Ref: secretId }),
      );
      expect(readsSecret, name).toBe(expected);
      expect(functionResource(name).Properties.Environment.Variables.SIGNING_SECRET_ARN, name).toEqual(
        expected ? { Ref: secretId } : undefined,
      );
    }
  });

  it('lets exactly the routes with queue: send send wake-ups, and gives them the queue URL', () => {
    const queueId = logicalId(synth.stack.gradingQueue);
    const senders = functionNames.filter((name) => grants(name).some((grant) => grant.startsWith('sqs:SendMessage ')));
    expect(senders).toEqual(routeEntries.filter(([, route]) => route.queue === 'send').map(([name]) => name));
    expect(senders).toEqual(['submit-vcs']);
    expect(grants('submit-vcs').filter((grant) => grant.startsWith('sqs:'))).toEqual(
      ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'].map((action) => `${action} ${JSON.stringify(getAtt(queueId))}`),
    );
    for (const name of functionNames) {
      expect(functionResource(name).Properties.Environment.Variables.GRADING_QUEUE_URL, name).toEqual(
        senders.includes(name) ? { Ref: queueId } : undefined,
      );
    }
  });

  it('lets the runner, where students’ code runs, write its own logs and nothing else', () => {
    const runner = synth.stack.functions.get('grading-runner')!;
    expect(policyStatements('grading-runner')).toEqual([
      { Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Effect: 'Allow', Resource: getAtt(logicalId(runner.logGroup)) },
    ]);
    // No table, secret, queue or function names: only the defaults every function has.
    expect(Object.keys(functionResource('grading-runner').Properties.Environment.Variables).sort()).toEqual([
      'NODE_OPTIONS',
      'POWERTOOLS_SERVICE_NAME',
    ]);
    // Nothing but the worker's role may invoke it (no resource policy for other principals).
    const permissions = ofType('AWS::Lambda::Permission').filter(
      ([, permission]) => JSON.stringify(permission.Properties.FunctionName).includes(functionId('grading-runner')),
    );
    expect(permissions).toEqual([]);
  });

  it('lets the worker use its tables, consume the grading queue and invoke the runner only', () => {
    const worker = synth.stack.functions.get('grading-worker')!;
    const queue = JSON.stringify(getAtt(logicalId(synth.stack.gradingQueue)));
    const logs = JSON.stringify(getAtt(logicalId(worker.logGroup)));
    const runner = JSON.stringify(getAtt(functionId('grading-runner')));
    // The table grants are checked with every function's above; here everything else, exactly.
    expect(grants('grading-worker').filter((grant) => !grant.startsWith('dynamodb:'))).toEqual(
      [
        `lambda:InvokeFunction ${runner}`,
        `logs:CreateLogStream ${logs}`,
        `logs:PutLogEvents ${logs}`,
        ...['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map(
          (action) => `sqs:${action} ${queue}`,
        ),
      ].sort(),
    );
    const variables = functionResource('grading-worker').Properties.Environment.Variables;
    expect(variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'course-submission-api',
      ...Object.fromEntries(
        [...WORKER_TABLES.keys()].map((key) => [
          tables[key as keyof typeof tables].environmentVariable,
          { Ref: logicalId(synth.stack.tables.get(key as keyof typeof tables)!) },
        ]),
      ),
      GRADING_RUNNER_FUNCTION: { Ref: functionId('grading-runner') },
      GRADING_LEASE_SECONDS: '900',
    });
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
    expect(ofType('AWS::SQS::Queue').map(([id]) => id).sort()).toEqual([queueId(), deadLetterId()].sort());
    expect(synth.resources[queueId()]!.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: getAtt(deadLetterId()),
      maxReceiveCount: 3,
    });
    expect(synth.resources[deadLetterId()]!.Properties.RedrivePolicy).toBeUndefined();
    for (const id of [queueId(), deadLetterId()]) {
      expect(synth.resources[id]!.Properties.SqsManagedSseEnabled, id).toBe(true);
      const policies = ofType('AWS::SQS::QueuePolicy').filter(([, policy]) => policy.Properties.Queues[0].Ref === id);
      expect(policies.flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement), id).toEqual([
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
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toEqual({
      EventSourceArn: getAtt(queueId()),
      FunctionName: { Ref: functionId('grading-worker') },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('hides a wake-up longer than a worker runs, leases its job as long, and outlives the runner', () => {
    const worker = functionResource('grading-worker').Properties;
    const runner = functionResource('grading-runner').Properties;
    expect(synth.resources[queueId()]!.Properties.VisibilityTimeout).toBeGreaterThan(worker.Timeout);
    expect(Number(worker.Environment.Variables.GRADING_LEASE_SECONDS)).toBeGreaterThanOrEqual(worker.Timeout);
    expect(runner.Timeout).toBeLessThan(worker.Timeout);
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

describe('nightly summaries', () => {
  it('invokes generate-summaries at 03:00 UTC with a non-HTTP event, the run over every course', () => {
    const schedules = ofType('AWS::Scheduler::Schedule');
    expect(schedules).toHaveLength(1);
    const { Properties } = schedules[0]![1];
    expect(Properties).toMatchObject({
      ScheduleExpression: 'cron(0 3 * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
      State: 'ENABLED',
      Target: { Arn: getAtt(functionId('generate-summaries')) },
    });
    expect(JSON.parse(Properties.Target.Input)).toEqual({ source: 'nightly-summaries' });
  });

  it('runs as a role the scheduler assumes, which may invoke that function only', () => {
    const { Properties } = ofType('AWS::Scheduler::Schedule')[0]![1];
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
});
