import { CfnOutput, Duration, Fn, RemovalPolicy, Stack, TimeZone, Validations, type CfnElement, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, ProjectionType, Table, type Attribute } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tables as tableDefinitions, type TableDefinition } from '#shared/data/tables.ts';
import { routeKeys, routes, type RouteDefinition, type RouteName } from '#shared/http/routes.ts';
import { functionAccess, GRADING_WORKER_TABLES, type TableAccess, type TableKey } from './access.ts';
import { ApiFunction } from './api-function.ts';
import type { DeploymentSettings } from './settings.ts';

export interface CourseSubmissionStackProps extends StackProps {
  readonly settings: DeploymentSettings;
}

/** The handler of every request no route matches. */
const NOT_FOUND_HANDLER = 'not-found';
/** The grading functions, which serve no route: the queue's consumer and the sandbox it calls. */
const WORKER_HANDLER = 'grading-worker';
const RUNNER_HANDLER = 'grading-runner';
/** The route whose function the nightly schedule also invokes, for every unarchived course. */
const NIGHTLY_SUMMARIES_HANDLER = 'generate-summaries' satisfies RouteName;

/** The worker waits for the runner, so it gets Lambda's maximum. */
const WORKER_TIMEOUT = Duration.minutes(15);
/** Below the worker's, so the worker always outlives the run and records its outcome. */
const RUNNER_TIMEOUT = Duration.minutes(14);
/** A wake-up stays invisible while a worker may still be grading it. */
const GRADING_VISIBILITY_TIMEOUT = WORKER_TIMEOUT.plus(Duration.minutes(1));
/** Receives of one wake-up before it goes to the dead-letter queue (the worker crashed each time). */
const GRADING_MAX_RECEIVES = 3;

/**
 * Time limits beyond the default 25 s. API Gateway still cuts an HTTP request at 30 s; the nightly
 * run of generate-summaries (a non-HTTP invocation) covers every course, so it may take longer.
 */
const ROUTE_TIMEOUTS: Partial<Record<RouteName, Duration>> = { [NIGHTLY_SUMMARIES_HANDLER]: Duration.minutes(15) };

/**
 * The deployed service: a DynamoDB table per table definition, the token signing secret, one
 * Lambda function per route-table entry (all its paths routed to it) behind an HTTP API, the
 * grading queue with its worker and runner functions, the nightly summaries schedule, and the
 * alarms. Functions' access is derived from `shared/http/routes.ts` and `shared/data/tables.ts`.
 */
export class CourseSubmissionStack extends Stack {
  readonly tables: ReadonlyMap<TableKey, Table>;
  /** By handler name: every route-table entry, `not-found`, `grading-worker` and `grading-runner`. */
  readonly functions: ReadonlyMap<string, ApiFunction>;
  readonly signingSecret: Secret;
  /** Wake-ups for the grading worker, sent by the routes with `queue: 'send'`. */
  readonly gradingQueue: Queue;
  readonly gradingDeadLetterQueue: Queue;
  readonly nightlySummaries: Schedule;
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: CourseSubmissionStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const dataRemovalPolicy = settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    const tables = new Map<TableKey, Table>();
    for (const [key, definition] of Object.entries(tableDefinitions) as [TableKey, TableDefinition][]) {
      const table = new Table(this, definition.id, {
        partitionKey: stringKey(definition.partitionKey),
        ...(definition.sortKey ? { sortKey: stringKey(definition.sortKey) } : {}),
        ...(definition.timeToLiveAttribute ? { timeToLiveAttribute: definition.timeToLiveAttribute } : {}),
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: settings.production,
        removalPolicy: dataRemovalPolicy,
      });
      for (const index of definition.globalIndexes ?? []) {
        table.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: stringKey(index.partitionKey),
          ...(index.sortKey ? { sortKey: stringKey(index.sortKey) } : {}),
          projectionType: ProjectionType.ALL,
        });
      }
      tables.set(key, table);
      new CfnOutput(this, `${definition.id}TableName`, {
        description: `${definition.environmentVariable}: the ${definition.id} table`,
        value: table.tableName,
      });
    }
    this.tables = tables;

    this.signingSecret = new Secret(this, 'SigningSecret', {
      description: 'HS256 key of the API tokens (64 letters and digits, read as base64url)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: dataRemovalPolicy,
    });

    // Wake-ups only (the jobs live in the jobs table), so they need not outlive the stack.
    this.gradingDeadLetterQueue = new Queue(this, 'GradingDeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.gradingQueue = new Queue(this, 'GradingQueue', {
      visibilityTimeout: GRADING_VISIBILITY_TIMEOUT,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.gradingDeadLetterQueue, maxReceiveCount: GRADING_MAX_RECEIVES },
    });

    const functions = new Map<string, ApiFunction>();
    for (const [name, route] of Object.entries(routes) as [RouteName, RouteDefinition][]) {
      functions.set(name, this.routeFunction(name, route, dataRemovalPolicy));
    }
    const notFound = new ApiFunction(this, 'NotFound', {
      handler: NOT_FOUND_HANDLER,
      description: 'Every request no route matches: "Endpoint not found." or "Method not allowed."',
      logRemovalPolicy: dataRemovalPolicy,
    });
    functions.set(NOT_FOUND_HANDLER, notFound);

    // Students' code runs here. Its role may write its own log group and nothing else (no table,
    // secret or queue) and its environment names none, so a submission has nothing to steal or
    // reach. Its commands run in `sh`, which Lambda's Node.js runtime image has (/bin/sh).
    const runner = new ApiFunction(this, 'GradingRunner', {
      handler: RUNNER_HANDLER,
      description: "Runs students' code for the grading worker; may only write its own logs",
      memorySize: 2048,
      timeout: RUNNER_TIMEOUT,
      logRemovalPolicy: dataRemovalPolicy,
    });
    functions.set(RUNNER_HANDLER, runner);

    const worker = new ApiFunction(this, 'GradingWorker', {
      handler: WORKER_HANDLER,
      description: 'Per grading-queue wake-up: grades the oldest queued job through the runner',
      timeout: WORKER_TIMEOUT,
      environment: {
        ...this.tableEnvironment(GRADING_WORKER_TABLES),
        GRADING_RUNNER_FUNCTION: runner.function.functionName,
        // A job's lease outlasts the worker holding it, so no other worker takes over a live one.
        GRADING_LEASE_SECONDS: String(WORKER_TIMEOUT.toSeconds()),
        ...(settings.allowedGitHosts.length > 0 ? { ALLOWED_GIT_HOSTS: settings.allowedGitHosts.join(',') } : {}),
      },
      logRemovalPolicy: dataRemovalPolicy,
    });
    this.grantTables(worker, GRADING_WORKER_TABLES);
    worker.function.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [runner.function.functionArn] }),
    );
    worker.function.addEventSource(new SqsEventSource(this.gradingQueue, { batchSize: 1, reportBatchItemFailures: true }));
    functions.set(WORKER_HANDLER, worker);
    this.functions = functions;

    const summaries = functions.get(NIGHTLY_SUMMARIES_HANDLER)!.function;
    const schedulerRole = new Role(this, 'NightlySummariesRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
      description: `Lets the nightly schedule invoke functions/${NIGHTLY_SUMMARIES_HANDLER}.ts`,
    });
    Validations.of(schedulerRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.resolve(this.getLogicalId(summaries.node.defaultChild as CfnElement))}.Arn>:*]`,
      reason: 'The schedule may invoke the summaries function only; CDK grants its versions and aliases (:*) along with it.',
    });
    this.nightlySummaries = new Schedule(this, 'NightlySummaries', {
      description: 'Regenerates the grade summaries of every unarchived course',
      schedule: ScheduleExpression.expression(settings.summariesSchedule, TimeZone.of(settings.summariesTimeZone)),
      target: new LambdaInvoke(summaries, {
        role: schedulerRole,
        // Any event without an HTTP request context starts the run over every course.
        input: ScheduleTargetInput.fromObject({ source: 'nightly-summaries' }),
        // Delivery retries only (Lambda retries a failed run itself); a late run is skipped.
        maxEventAge: Duration.hours(2),
        retryAttempts: 3,
      }),
    });

    this.api = new HttpApi(this, 'Api', {
      description: 'Course submission API',
      createDefaultStage: false,
      defaultIntegration: integration(notFound),
      ...(settings.corsOrigins.length > 0
        ? {
            corsPreflight: {
              allowOrigins: [...settings.corsOrigins],
              allowMethods: [...new Set(routeKeys.map((key) => CorsHttpMethod[key.method]))],
              allowHeaders: ['authorization', 'content-type', 'prefer'],
              exposeHeaders: ['preference-applied', 'retry-after'],
              maxAge: Duration.hours(1),
            },
          }
        : {}),
    });
    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const key of routeKeys) {
      const target = functions.get(key.name)!;
      if (!integrations.has(key.name)) integrations.set(key.name, integration(target));
      this.api.addRoutes({ path: key.path, methods: [HttpMethod[key.method]], integration: integrations.get(key.name)! });
    }

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: dataRemovalPolicy,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });

    new Alarm(this, 'Api5xxAlarm', {
      alarmDescription: 'The API answered with 5xx (a function crashed or timed out)',
      metric: this.api.metricServerError({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    new Alarm(this, 'GradingDeadLettersAlarm', {
      alarmDescription:
        `A grading wake-up failed ${GRADING_MAX_RECEIVES} times (the worker crashed or timed out); ` +
        'see the grading-worker logs. Its job is taken over by the next wake-up once its lease runs out.',
      metric: this.gradingDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 0,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    new CfnOutput(this, 'ApiUrl', { description: 'The API base URL', value: `${stage.url}api` });
    new CfnOutput(this, 'AdminEnvironment', {
      description: 'Table variables for `npm run admin -- ... --aws`: export these',
      value: Fn.join(' ', [
        ...[...tables].map(([key, table]) => `${tableDefinitions[key].environmentVariable}=${table.tableName}`),
        `AWS_REGION=${this.region}`,
      ]),
    });

    this.acknowledgeFindings();
  }

  /** One route-table entry's function, granted exactly what the route table says it uses. */
  private routeFunction(name: RouteName, route: RouteDefinition, logRemovalPolicy: RemovalPolicy): ApiFunction {
    const access = functionAccess(route);
    const environment: Record<string, string> = this.tableEnvironment(access.tables);
    if (access.signingSecret) environment.SIGNING_SECRET_ARN = this.signingSecret.secretArn;
    if (access.sendsToGradingQueue) environment.GRADING_QUEUE_URL = this.gradingQueue.queueUrl;

    const apiFunction = new ApiFunction(this, constructId(name), {
      handler: name,
      description: `${route.method} ${route.path}: ${route.summary}`.slice(0, 256),
      environment,
      logRemovalPolicy,
      ...(ROUTE_TIMEOUTS[name] ? { timeout: ROUTE_TIMEOUTS[name] } : {}),
    });
    this.grantTables(apiFunction, access.tables);
    if (access.signingSecret) this.signingSecret.grantRead(apiFunction.function);
    if (access.sendsToGradingQueue) this.gradingQueue.grantSendMessages(apiFunction.function);
    return apiFunction;
  }

  /** Each table's name under its variable. */
  private tableEnvironment(access: ReadonlyMap<TableKey, TableAccess>): Record<string, string> {
    const environment: Record<string, string> = {};
    for (const [key] of access) environment[tableDefinitions[key].environmentVariable] = this.tables.get(key)!.tableName;
    return environment;
  }

  /** Read or read-write data access to each table (its indexes included). */
  private grantTables(apiFunction: ApiFunction, access: ReadonlyMap<TableKey, TableAccess>): void {
    for (const [key, level] of access) {
      const table = this.tables.get(key)!;
      if (level === 'read-write') table.grantReadWriteData(apiFunction.function);
      else table.grantReadData(apiFunction.function);
      if ((tableDefinitions[key] as TableDefinition).globalIndexes?.length) {
        Validations.of(apiFunction).acknowledge({
          id: `AwsSolutions-IAM5[Resource::<${this.resolve(this.getLogicalId(table.node.defaultChild as CfnElement))}.Arn>/index/*]`,
          reason: `Access to the ${tableDefinitions[key].id} table includes its own indexes, which its queries use.`,
        });
      }
    }
  }

  /** The cdk-nag (AwsSolutions) findings this design accepts, each with its reason. */
  private acknowledgeFindings(): void {
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'The functions authorize every request themselves: the token check reads the session and the ' +
        "caller's profile in the same BatchGetItem as the handler's own items; public routes take credentials in the body.",
    });
    Validations.of(this.signingSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Rotating the signing key ends every session at once, so it is rotated by hand (see README), not on a schedule.',
    });
  }
}

const stringKey = (name: string): Attribute => ({ name, type: AttributeType.STRING });

function integration(target: ApiFunction): HttpLambdaIntegration {
  return new HttpLambdaIntegration(`${target.node.id}Integration`, target.function, {
    payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
  });
}

/** `issue-token` → `IssueToken`. */
function constructId(routeName: string): string {
  return routeName.replace(/(^|[-_])(\w)/g, (_, _separator: string, letter: string) => letter.toUpperCase());
}

/** One JSON object per request; no headers, so no token ever reaches the logs. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    method: '$context.httpMethod',
    path: '$context.path',
    routeKey: '$context.routeKey',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);
