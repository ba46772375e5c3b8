import { CfnOutput, Duration, Fn, RemovalPolicy, Stack, Validations, type CfnElement, type StackProps } from 'aws-cdk-lib';
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
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { tables as tableDefinitions, type TableDefinition } from '#shared/data/tables.ts';
import { routeKeys, routes, type RouteDefinition } from '#shared/http/routes.ts';
import { functionAccess, type TableKey } from './access.ts';
import { ApiFunction } from './api-function.ts';
import type { DeploymentSettings } from './settings.ts';

export interface CourseSubmissionStackProps extends StackProps {
  readonly settings: DeploymentSettings;
}

/** The handler of every request no route matches. */
const NOT_FOUND_HANDLER = 'not-found';

/**
 * The deployed service: a DynamoDB table per table definition, the token signing secret, one
 * Lambda function per route-table entry (all its paths routed to it) behind an HTTP API, and the
 * alarms. Everything is derived from `shared/http/routes.ts` and `shared/data/tables.ts`.
 */
export class CourseSubmissionStack extends Stack {
  readonly tables: ReadonlyMap<TableKey, Table>;
  readonly functions: ReadonlyMap<string, ApiFunction>;
  readonly signingSecret: Secret;
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

    const functions = new Map<string, ApiFunction>();
    for (const [name, route] of Object.entries(routes) as [string, RouteDefinition][]) {
      functions.set(name, this.routeFunction(name, route, dataRemovalPolicy));
    }
    const notFound = new ApiFunction(this, 'NotFound', {
      handler: NOT_FOUND_HANDLER,
      description: 'Every request no route matches: "Endpoint not found." or "Method not allowed."',
      logRemovalPolicy: dataRemovalPolicy,
    });
    functions.set(NOT_FOUND_HANDLER, notFound);
    this.functions = functions;

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
  private routeFunction(name: string, route: RouteDefinition, logRemovalPolicy: RemovalPolicy): ApiFunction {
    const access = functionAccess(route);
    const environment: Record<string, string> = {};
    for (const [key] of access.tables) {
      const table = this.tables.get(key)!;
      environment[tableDefinitions[key].environmentVariable] = table.tableName;
    }
    if (access.signingSecret) environment.SIGNING_SECRET_ARN = this.signingSecret.secretArn;

    const apiFunction = new ApiFunction(this, constructId(name), {
      handler: name,
      description: `${route.method} ${route.path}: ${route.summary}`.slice(0, 256),
      environment,
      logRemovalPolicy,
    });
    for (const [key, level] of access.tables) {
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
    if (access.signingSecret) this.signingSecret.grantRead(apiFunction.function);
    return apiFunction;
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
