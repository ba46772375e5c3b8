import { CfnOutput, Duration, Fn, RemovalPolicy, Stack, TimeZone, Validations, type CfnElement, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { CorsHttpMethod, HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { ANSWER_METRICS } from '#shared/http/metrics.ts';
import { AttributeType, BillingMode, ProjectionType, Table, type Attribute } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke, SqsSendMessage } from 'aws-cdk-lib/aws-scheduler-targets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tables as tableDefinitions, type TableDefinition } from '#shared/data/tables.ts';
import { definitions, gatewayRouteKeys, type RouteName } from '#functions/definitions.ts';
import {
  functionAccess,
  functionEnvironment,
  functionNames,
  COURSE_JOB_SWEEPER_FUNCTION,
  LTI_SCORE_FUNCTION,
  GRADING_WORKER_FUNCTION,
  NOT_FOUND_FUNCTION,
  SUMMARIES_WORKER_FUNCTION,
  WEBHOOK_DELIVERY_FUNCTION,
  WEBHOOK_RELAY_FUNCTION,
  type FunctionName,
  type TableKey,
} from '#infra/function-access.ts';
import { parseSetting, signInProblems, type FunctionSetting } from '#shared/config.ts';
import { SWAGGER_UI_BUNDLING } from '#infra/docs-assets.ts';
import { apiCorsRules } from '#infra/cors.ts';
import { SUMMARIES_JOB_MAX_DELIVERIES } from '#shared/summaries/queue.ts';
import { SWEEP_RATE_MINUTES } from '#shared/summaries/sweep.ts';
import { ApiFunction } from './api-function.ts';
import { FunctionGroups } from './function-groups.ts';
import { GradingSandbox } from './grading-sandbox.ts';
import { ServiceFunction } from './service-function.ts';
import { SubmissionsBucket } from './submissions-bucket.ts';
import type { DeploymentSettings } from './settings.ts';
import { LTI_SCORE_TIMEOUT, LtiScoreQueues } from './lti-scores.ts';
import { deadLetteredQueue } from './queues.ts';
import { WEBHOOK_DELIVERY_TIMEOUT, WEBHOOK_RELAY_TIMEOUT, WebhookDelivery, webhookSettings } from './webhooks.ts';

export interface CourseSubmissionStackProps extends StackProps {
  readonly settings: DeploymentSettings;
}

/** The route whose function the nightly schedule also invokes, for every unarchived course. */
const NIGHTLY_SUMMARIES_HANDLER = 'generate-summaries' satisfies RouteName;
/** The route whose function the nightly schedule also invokes, for every course linked to an LMS course. */
const NIGHTLY_ROSTER_HANDLER = 'lti-roster-sync' satisfies RouteName;

/**
 * The context value that sets each setting given only to the functions that read it (shared/config.ts,
 * `functionSettings`); the rest of them come from the deployment settings and the worker's time limit
 * (`functionSettingValues`).
 */
const SETTING_CONTEXTS = {
  SUMMARIES_JOB_MIN_USERS: 'summariesJobMinUsers',
  SUBMISSIONS_PER_MINUTE: 'submissionsPerMinute',
  MAX_VERSIONS: 'maxVersions',
  MAX_QUEUED_JOBS_PER_STUDENT: 'maxQueuedJobsPerStudent',
  COURSE_BURST_PER_MINUTE: 'courseBurstPerMinute',
  OIDC_ISSUER: 'oidcIssuer',
  OIDC_CLIENT_ID: 'oidcClientId',
  OIDC_USER_ID_CLAIM: 'oidcUserIdClaim',
  OIDC_USER_ID_SUFFIX: 'oidcUserIdSuffix',
  OIDC_CREATE_USERS: 'oidcCreateUsers',
  OIDC_EMAILS_VERIFIED: 'oidcEmailsVerified',
  OIDC_SUPERUSERS: 'oidcSuperusers',
  PASSWORD_LOGIN: 'passwordLogin',
  LTI_ALLOWED_HOSTS: 'ltiAllowedHosts',
  LTI_FRONTEND_URL: 'ltiFrontendUrl',
} as const satisfies Partial<Record<FunctionSetting, string>>;

/** A context value as a setting's raw text (unset, null or empty: unset). */
const contextText = (value: unknown): string | undefined =>
  value === undefined || value === null || value === '' ? undefined : String(value);

/** The worker waits for the grading build, so it gets Lambda's maximum. */
const WORKER_TIMEOUT = Duration.minutes(15);
/** Below the worker's, so the worker always outlives the build and records its outcome. */
const BUILD_TIMEOUT = Duration.minutes(13);
/** A wake-up stays invisible while a worker may still be grading it. */
const GRADING_VISIBILITY_TIMEOUT = WORKER_TIMEOUT.plus(Duration.minutes(1));
/**
 * How often a worker is woken whatever is queued: a worker that died stops renewing its job's lease
 * (GRADING_HEARTBEAT_LEASE_SECONDS) while its own wake-up stays invisible for the worker's whole
 * time limit, so this wake-up is what has the job taken over within minutes when nothing else comes.
 */
const GRADING_WAKE_UP_RATE = Duration.minutes(1);
/** Receives of one wake-up before it goes to the dead-letter queue (the worker crashed each time). */
const GRADING_MAX_RECEIVES = 3;

/** A summaries job runs up to Lambda's maximum (its lease in shared/summaries/job.ts is the same). */
const SUMMARIES_WORKER_TIMEOUT = Duration.minutes(15);

/** How often the course job sweeper runs (shared/summaries/sweep.ts). */
const COURSE_JOB_SWEEP_RATE = Duration.minutes(SWEEP_RATE_MINUTES);
/** The sweeper's time limit: a Query of the unfinished jobs and a write and a send for each; well below its rate. */
const COURSE_JOB_SWEEPER_TIMEOUT = Duration.minutes(1);

/**
 * Route handlers whose time limit is not the API's 25 s. API Gateway still cuts an HTTP request at
 * 30 s; the nightly run of generate-summaries (a non-HTTP invocation) covers every course, so it
 * may take longer.
 */
const ROUTE_TIMEOUTS: Partial<Record<FunctionName, Duration>> = {
  [NIGHTLY_SUMMARIES_HANDLER]: Duration.minutes(15),
  [NIGHTLY_ROSTER_HANDLER]: Duration.minutes(15),
};

/** The functions that serve no route, each fed by its queue (the outbox relay and the sweeper by their schedules), with its time limit. */
const QUEUE_FUNCTION_TIMEOUTS: Partial<Record<FunctionName, Duration>> = {
  [GRADING_WORKER_FUNCTION]: WORKER_TIMEOUT,
  [WEBHOOK_DELIVERY_FUNCTION]: WEBHOOK_DELIVERY_TIMEOUT,
  [SUMMARIES_WORKER_FUNCTION]: SUMMARIES_WORKER_TIMEOUT,
  [WEBHOOK_RELAY_FUNCTION]: WEBHOOK_RELAY_TIMEOUT,
  [COURSE_JOB_SWEEPER_FUNCTION]: COURSE_JOB_SWEEPER_TIMEOUT,
  [LTI_SCORE_FUNCTION]: LTI_SCORE_TIMEOUT,
};

/** What each function is, for its description. */
function functionDescription(name: FunctionName): string {
  const definition = definitions[name];
  if (definition.kind === 'worker') return definition.summary;
  return `${definition.method} ${definition.path}: ${definition.summary}`.slice(0, 256);
}

/**
 * The deployed service: a DynamoDB table per table definition, the token signing secret, one
 * Lambda function per route-table entry (all its paths routed to it) behind an HTTP API, the
 * grading queue with its worker function and the grading sandbox, the webhook queue with its
 * delivery function, the nightly summaries schedule, and the alarms. Functions' access is derived from their definitions (`functions/<name>/definition.ts`) and `shared/data/tables.ts`.
 */
export class CourseSubmissionStack extends Stack {
  readonly tables: ReadonlyMap<TableKey, Table>;
  /** By handler name: every route-table entry and `not-found` (route handlers), `grading-worker` and `webhook-delivery`. */
  readonly functions: ReadonlyMap<FunctionName, ServiceFunction>;
  readonly signingSecret: Secret;
  readonly ltiKey: Secret;
  readonly recordKeys: Secret;
  /** Wake-ups for the grading worker, sent by the routes with `queue: 'send'`. */
  readonly gradingQueue: Queue;
  readonly gradingDeadLetterQueue: Queue;
  /** Summaries jobs (large courses), sent by the routes with `summariesQueue: 'send'`, for the summaries worker. */
  readonly summariesQueue: Queue;
  readonly summariesDeadLetterQueue: Queue;
  readonly nightlySummaries: Schedule;
  /** Syncs every linked course's roster from its LMS, on the nightly summaries' schedule. */
  readonly nightlyRosterSync: Schedule;
  /** Wakes a grading worker every GRADING_WAKE_UP_RATE, so that a job whose worker died is taken over. */
  readonly gradingWakeUp: Schedule;
  /** Runs the course job sweeper every COURSE_JOB_SWEEP_RATE, so that no summaries job or gradebook export is stranded. */
  readonly courseJobSweep: Schedule;
  /** The webhook queue, its dead-letter queue and the delivery function's feed. */
  readonly webhooks: WebhookDelivery;
  /** The LTI score queue, its dead-letter queue and the lti-score function's feed. */
  readonly ltiScores: LtiScoreQueues;
  readonly api: HttpApi;
  /** Where students' code runs: a CodeBuild project in a VPC without a way out. */
  readonly gradingSandbox: GradingSandbox;
  /** Every alarm publishes here; the `alarmEmail` context subscribes an address. */
  readonly alarmTopic: Topic;
  /** The nested stacks of the route functions, each function's group chosen by its name. */
  readonly functionGroups: FunctionGroups;
  /** Submitted files: unconfirmed uploads and each version's files (shared/storage/keys.ts). */
  readonly submissions: SubmissionsBucket;

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
          ...(index.attributes
            ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.attributes] }
            : { projectionType: ProjectionType.ALL }),
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

    // No keys until `npm run admin -- rotate-lti-key --aws` gives it some (the key set is empty until then).
    this.ltiKey = new Secret(this, 'LtiKey', {
      description: "The LTI tool's RSA keys (current and next, as JSON Web Keys)",
      generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'placeholder', excludePunctuation: true },
      removalPolicy: dataRemovalPolicy,
    });

    // Its first line seeds the Ed25519 key grading records are signed with (shared/grading/record-keys.ts).
    this.recordKeys = new Secret(this, 'RecordKeys', {
      description: 'Seeds of the Ed25519 keys grading records are signed with: line 1 signs, every line is published',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: dataRemovalPolicy,
    });

    // Wake-ups only (the jobs live in the jobs table), so they need not outlive the stack.
    ({ queue: this.gradingQueue, deadLetterQueue: this.gradingDeadLetterQueue } = deadLetteredQueue(
      this,
      { queue: 'GradingQueue', deadLetterQueue: 'GradingDeadLetterQueue' },
      { visibilityTimeout: GRADING_VISIBILITY_TIMEOUT, maxReceiveCount: GRADING_MAX_RECEIVES },
    ));

    // Messages name jobs kept in the summaries table.
    ({ queue: this.summariesQueue, deadLetterQueue: this.summariesDeadLetterQueue } = deadLetteredQueue(
      this,
      { queue: 'SummariesQueue', deadLetterQueue: 'SummariesDeadLetterQueue' },
      { visibilityTimeout: SUMMARIES_WORKER_TIMEOUT.plus(Duration.minutes(1)), maxReceiveCount: SUMMARIES_JOB_MAX_DELIVERIES },
    ));

    this.submissions = new SubmissionsBucket(this, 'SubmittedFiles', {
      removalPolicy: dataRemovalPolicy,
      corsOrigins: settings.corsOrigins,
      retentionDays: settings.submissionRetentionDays,
      fingerprintDays: settings.similarityFingerprintDays,
    });

    this.webhooks = new WebhookDelivery(this, 'WebhookQueues');
    this.ltiScores = new LtiScoreQueues(this, 'LtiScoreQueues');
    const functions = new Map<FunctionName, ServiceFunction>();
    const handlers = new Map<FunctionName, ApiFunction>();
    // Route functions live in nested stacks, each with its routes; the queue workers, a fixed few
    // tied to the parent's queues and grading sandbox, stay here.
    this.functionGroups = new FunctionGroups(this);
    for (const name of functionNames) {
      const common = {
        handler: name,
        description: functionDescription(name),
        logRemovalPolicy: dataRemovalPolicy,
        checkoutProcess: name === GRADING_WORKER_FUNCTION,
        swaggerUi: SWAGGER_UI_BUNDLING[name],
      };
      const queueTimeout = QUEUE_FUNCTION_TIMEOUTS[name];
      if (queueTimeout) {
        functions.set(name, new ServiceFunction(this, constructId(name), { ...common, timeout: queueTimeout }));
      } else {
        const handler = new ApiFunction(this.functionGroups.scopeFor(name), constructId(name), {
          ...common,
          timeout: ROUTE_TIMEOUTS[name],
        });
        functions.set(name, handler);
        handlers.set(name, handler);
      }
    }
    this.gradingSandbox = new GradingSandbox(this, 'GradingSandbox', {
      images: settings.gradingImages,
      concurrency: settings.gradingConcurrency,
      fleet: settings.gradingFleet,
      buildTimeout: BUILD_TIMEOUT,
      removalPolicy: dataRemovalPolicy,
    });
    const worker = made(functions, GRADING_WORKER_FUNCTION);
    const settingValues = this.functionSettingValues(settings);
    for (const [name, serviceFunction] of functions) {
      this.grantAccess(name, serviceFunction);
      for (const [variable, value] of Object.entries(this.environmentOf(name))) serviceFunction.function.addEnvironment(variable, value);
      // Each setting the function's code reads, as far as the deployment sets it (its definition names them).
      for (const setting of functionAccess(name).settings) {
        const value = settingValues[setting];
        if (value !== undefined) serviceFunction.function.addEnvironment(setting, value);
      }
    }
    // At most `gradingConcurrency` jobs at once: a deadline burst waits in the queue (its jobs keep
    // their exact queue positions) instead of exhausting Lambda's or CodeBuild's concurrency.
    worker.function.addEventSource(
      new SqsEventSource(this.gradingQueue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: Math.max(2, settings.gradingConcurrency),
      }),
    );
    const wakeUpRole = new Role(this, 'GradingWakeUpRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': this.account } } }),
      description: 'Lets the grading wake-up schedule send to the grading queue',
    });
    this.gradingWakeUp = new Schedule(this, 'GradingWakeUp', {
      description: 'Wakes a grading worker: it takes over a job whose worker died (its lease ran out), else it does nothing',
      schedule: ScheduleExpression.rate(GRADING_WAKE_UP_RATE),
      // A wake-up missed is made up by the next one.
      target: new SqsSendMessage(this.gradingQueue, {
        role: wakeUpRole,
        input: ScheduleTargetInput.fromObject({ ticket: 0 }),
        maxEventAge: GRADING_WAKE_UP_RATE,
        retryAttempts: 0,
      }),
    });
    // Two large courses at a time at most; more wait in the queue.
    made(functions, SUMMARIES_WORKER_FUNCTION).function.addEventSource(
      new SqsEventSource(this.summariesQueue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: 2 }),
    );
    this.courseJobSweep = this.sweepCourseJobs(made(functions, COURSE_JOB_SWEEPER_FUNCTION));
    this.webhooks.connect({
      delivery: made(functions, WEBHOOK_DELIVERY_FUNCTION),
      relay: made(functions, WEBHOOK_RELAY_FUNCTION),
    });
    this.ltiScores.connect(made(functions, LTI_SCORE_FUNCTION));
    this.functions = functions;
    const notFound = made(handlers, NOT_FOUND_FUNCTION);

    this.nightlySummaries = this.nightly(made(handlers, NIGHTLY_SUMMARIES_HANDLER).function, {
      id: 'NightlySummaries',
      handler: NIGHTLY_SUMMARIES_HANDLER,
      description: 'Regenerates the grade summaries of every unarchived course',
      source: 'nightly-summaries',
      settings,
    });
    this.nightlyRosterSync = this.nightly(made(handlers, NIGHTLY_ROSTER_HANDLER).function, {
      id: 'NightlyRosterSync',
      handler: NIGHTLY_ROSTER_HANDLER,
      description: "Syncs every LMS-linked course's roster from the LMS",
      source: 'nightly-roster-sync',
      settings,
    });

    const cors = apiCorsRules(settings.corsOrigins);
    this.api = new HttpApi(this, 'Api', {
      description: 'Course submission API',
      createDefaultStage: false,
      ...(cors.origins.length > 0
        ? {
            corsPreflight: {
              allowOrigins: [...cors.origins],
              allowMethods: cors.methods.map((method) => CorsHttpMethod[method as keyof typeof CorsHttpMethod]),
              allowHeaders: [...cors.headers],
              exposeHeaders: [...cors.exposed],
              maxAge: Duration.seconds(cors.maxAgeSeconds),
            },
          }
        : {}),
    });
    this.functionGroups.route(this.api, '$default', notFound);
    for (const key of gatewayRouteKeys) {
      this.functionGroups.route(this.api, key, made(handlers, key.name));
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
    new Alarm(this, 'SummariesDeadLettersAlarm', {
      alarmDescription:
        `A summaries job message failed ${SUMMARIES_JOB_MAX_DELIVERIES} times (the worker could not record its job's outcome); ` +
        'see the summaries-worker logs. The job reads as failed once its last lease runs out, and the course can ask again.',
      metric: this.summariesDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 0,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
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

    // Error envelopes answer HTTP 200 by default, so the 5xx alarm cannot see them: they are counted
    // by the functions themselves (embedded metric format) and alarmed on here.
    new Alarm(this, 'ErrorAnswersAlarm', {
      alarmDescription:
        'The API answered an error envelope (an unexpected failure: a missing permission, a DynamoDB fault, a bug); ' +
        `see the ${ANSWER_METRICS.errors} metric by route and code, and the function's log`,
      metric: new Metric({
        namespace: ANSWER_METRICS.namespace,
        metricName: ANSWER_METRICS.errors,
        dimensionsMap: { service: ANSWER_METRICS.service },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    this.alarmTopic = new Topic(this, 'AlarmTopic', { displayName: 'Course submission API alarms', enforceSSL: true });
    if (settings.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(settings.alarmEmail));
    const notify = new SnsAction(this.alarmTopic);
    for (const construct of this.node.findAll()) if (construct instanceof Alarm) construct.addAlarmAction(notify);

    new CfnOutput(this, 'ApiUrl', { description: 'The API base URL', value: `${stage.url}api` });
    new CfnOutput(this, 'AdminEnvironment', {
      description: 'Table variables and the LTI key secret for `npm run admin -- ... --aws`: export these',
      value: Fn.join(' ', [
        ...[...tables].map(([key, table]) => `${tableDefinitions[key].environmentVariable}=${table.tableName}`),
        `AWS_REGION=${this.region}`,
        `LTI_KEY_ARN=${this.ltiKey.secretArn}`,
      ]),
    });

    this.acknowledgeFindings();
  }

  /**
   * This deployment's value of every setting given only to the functions that read it (undefined:
   * unset, so each function has its default), each checked as a function checks it when it starts,
   * so that a bad value fails the synth instead.
   */
  /**
   * A nightly run on the summaries' schedule: the route `handler`'s function invoked with an event
   * without an HTTP request context, by a role beside the function that may invoke it only.
   */
  private nightly(
    target: ApiFunction['function'],
    options: { id: string; handler: RouteName; description: string; source: string; settings: DeploymentSettings },
  ): Schedule {
    // Beside the function it may invoke, so that its policy names the function within one stack.
    const targetStack = Stack.of(target);
    const role = new Role(targetStack, `${options.id}Role`, {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': targetStack.account } },
      }),
      description: `Lets the nightly schedule invoke functions/${options.handler}/handler.ts`,
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${targetStack.resolve(targetStack.getLogicalId(target.node.defaultChild as CfnElement))}.Arn>:*]`,
      reason: `The schedule may invoke the ${options.handler} function only; CDK grants its versions and aliases (:*) along with it.`,
    });
    return new Schedule(this, options.id, {
      description: options.description,
      schedule: ScheduleExpression.expression(options.settings.summariesSchedule, TimeZone.of(options.settings.summariesTimeZone)),
      target: new LambdaInvoke(target, {
        role,
        // Any event without an HTTP request context starts the run over every course.
        input: ScheduleTargetInput.fromObject({ source: options.source }),
        // Delivery retries only (Lambda retries a failed run itself); a late run is skipped.
        maxEventAge: Duration.hours(2),
        retryAttempts: 3,
      }),
    });
  }

  /**
   * The course job sweeper's schedule: its own role may invoke the sweeper only; the sweeper's own
   * policy (its definition) queries the unfinished jobs' index and sends to the summaries queue.
   */
  private sweepCourseJobs(sweeper: ServiceFunction): Schedule {
    const role = new Role(this, 'CourseJobSweepRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': this.account } } }),
      description: `Lets the course job sweep schedule invoke functions/${COURSE_JOB_SWEEPER_FUNCTION}/handler.ts`,
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.resolve(this.getLogicalId(sweeper.function.node.defaultChild as CfnElement))}.Arn>:*]`,
      reason: 'The schedule may invoke the course job sweeper only; CDK grants its versions and aliases (:*) along with it.',
    });
    return new Schedule(this, 'CourseJobSweep', {
      description:
        'Sends again the message of each summaries job or gradebook export left queued or running by a lost message or a dead worker',
      schedule: ScheduleExpression.rate(COURSE_JOB_SWEEP_RATE),
      // A run missed is made up by the next one.
      target: new LambdaInvoke(sweeper.function, { role, maxEventAge: COURSE_JOB_SWEEP_RATE, retryAttempts: 0 }),
    });
  }

  private functionSettingValues(settings: DeploymentSettings): Readonly<Record<FunctionSetting, string | undefined>> {
    const fromContext = Object.fromEntries(
      Object.entries(SETTING_CONTEXTS).map(([setting, context]) => {
        const value = contextText(this.node.tryGetContext(context));
        if (value !== undefined) parseSetting(setting as FunctionSetting, value);
        return [setting, value];
      }),
    ) as Record<keyof typeof SETTING_CONTEXTS, string | undefined>;
    // The sign-in settings that only make sense together fail the synth, as they would fail the functions' start.
    const signIn = signInProblems({
      OIDC_ISSUER: parseSetting('OIDC_ISSUER', fromContext.OIDC_ISSUER),
      OIDC_CLIENT_ID: parseSetting('OIDC_CLIENT_ID', fromContext.OIDC_CLIENT_ID),
      PASSWORD_LOGIN: parseSetting('PASSWORD_LOGIN', fromContext.PASSWORD_LOGIN),
    });
    if (signIn.length > 0) throw new Error(signIn.join('; '));
    const webhooks = webhookSettings(this.node);
    const list = (hosts: readonly string[]) => (hosts.length > 0 ? hosts.join(',') : undefined);
    return {
      ...fromContext,
      // Submitting reads the repository's head and the worker checks it out: both through one address guard.
      ALLOWED_GIT_HOSTS: list(settings.allowedGitHosts),
      WEBHOOK_ALLOWED_HOSTS: list(webhooks.allowedHosts),
      WEBHOOK_RETRY_SCHEDULE: webhooks.retrySchedule,
      // A worker's time for a wake-up is its time limit; its jobs' leases are short and renewed meanwhile.
      GRADING_LEASE_SECONDS: String(WORKER_TIMEOUT.toSeconds()),
    };
  }

  /** The function's resource variables: computed by the same code as the local server's (infra/function-access.ts). */
  private environmentOf(name: FunctionName): Record<string, string> {
    return functionEnvironment(name, {
      tableName: (key) => made(this.tables, key).tableName,
      signingSecret: { variable: 'SIGNING_SECRET_ARN', value: this.signingSecret.secretArn },
      ltiKey: { variable: 'LTI_KEY_ARN', value: this.ltiKey.secretArn },
      recordKeys: { variable: 'RECORD_KEYS_ARN', value: this.recordKeys.secretArn },
      gradingQueueUrl: this.gradingQueue.queueUrl,
      webhookQueueUrl: this.webhooks.queue.queueUrl,
      summariesQueueUrl: this.summariesQueue.queueUrl,
      ltiScoreQueueUrl: this.ltiScores.queue.queueUrl,
      submissionsBucket: this.submissions.bucket.bucketName,
      gradingSandbox: this.gradingSandbox.workerEnvironment(),
    });
  }

  /**
   * Exactly the actions the function calls, on exactly the tables and indexes it uses: no Scan,
   * write or stream action it does not call, and only GetSecretValue, SendMessage or
   * the sandbox's bucket and builds where it reads the secret, wakes the workers or grades.
   */
  private grantAccess(name: FunctionName, serviceFunction: ServiceFunction): void {
    const access = functionAccess(name);
    const role = serviceFunction.function;
    for (const [key, actions] of access.data) {
      const table = made(this.tables, key);
      const onTable = actions.filter((action) => !action.includes(' '));
      if (onTable.length > 0) {
        role.addToRolePolicy(new PolicyStatement({ actions: onTable.map((action) => `dynamodb:${action}`), resources: [table.tableArn] }));
      }
      for (const action of actions.filter((candidate) => candidate.includes(' '))) {
        const [verb, index] = action.split(' ') as [string, string];
        role.addToRolePolicy(new PolicyStatement({ actions: [`dynamodb:${verb}`], resources: [`${table.tableArn}/index/${index}`] }));
      }
    }
    if (access.signingSecret) {
      role.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.signingSecret.secretArn] }));
    }
    if (access.ltiKey) {
      role.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.ltiKey.secretArn] }));
    }
    if (access.recordKeys) {
      role.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.recordKeys.secretArn] }));
    }
    if (access.sendsToGradingQueue) {
      role.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.gradingQueue.queueArn] }));
    }
    if (access.publishesEvents) this.webhooks.grantPublish(role);
    if (access.sendsToLtiScoreQueue) this.ltiScores.grantSend(role);
    if (access.sendsToSummariesQueue) {
      role.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.summariesQueue.queueArn] }));
    }
    this.submissions.grant(role, serviceFunction, access.objects);
    if (access.runsGradingSandbox) this.gradingSandbox.grantWorker(role, serviceFunction);
  }

  /** The cdk-nag (AwsSolutions) findings this design accepts, each with its reason. */
  private acknowledgeFindings(): void {
    for (const scope of [this.api, ...this.functionGroups.routes]) {
      Validations.of(scope).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'The functions authorize every request themselves: the token check reads the session and the ' +
          "caller's profile in the same BatchGetItem as the handler's own items; public routes take credentials in the body.",
      });
    }
    Validations.of(this.alarmTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names and states only; CloudWatch cannot publish to a topic encrypted with the AWS managed SNS key.',
    });
    Validations.of(this.ltiKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The next LTI key must be published before it signs, so it is rotated by the admin command (see docs/lti.md), not on a schedule.',
    });
    Validations.of(this.signingSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Rotating the signing key ends every session at once, so it is rotated by hand (see docs/deployment.md), not on a schedule.',
    });
    Validations.of(this.recordKeys).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Every record key stays published so that old grading records still verify; a new key is added by hand (see docs/grading.md).',
    });
  }
}

const stringKey = (name: string): Attribute => ({ name, type: AttributeType.STRING });

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

/** What the stack created for `key` earlier on (every table and every function): a missing one is a bug of the stack. */
function made<K, V>(map: ReadonlyMap<K, V>, key: K): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`The stack created nothing for ${String(key)}.`);
  return value;
}
