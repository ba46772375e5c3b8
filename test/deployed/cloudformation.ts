import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What CloudFormation would make of a synthesized template: every resource gets a physical name
 * and ARN the way CloudFormation names them (stack name, logical id, a random suffix), every
 * intrinsic function is resolved, and the parts the deployed-artifact test emulates are read out
 * of the template generically (never from the CDK constructs that produced it).
 */
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
export const PARTITION = 'aws';
export const URL_SUFFIX = 'amazonaws.com';

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly DependsOn?: string | string[];
  readonly Condition?: string;
}

export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { Value: unknown; Description?: string }>;
  readonly Parameters?: Record<string, { Default?: unknown }>;
  readonly Conditions?: Record<string, unknown>;
}

/** The attributes `Ref` and `Fn::GetAtt` return for one deployed resource. */
interface Physical {
  readonly ref: string;
  readonly attributes: Record<string, string>;
}

export type PolicyDocument = { Version?: string; Statement: Record<string, unknown>[] | Record<string, unknown> };

export interface LambdaFunction {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly handler: string;
  readonly runtime: string;
  readonly timeoutSeconds: number;
  readonly memorySize: number;
  readonly environment: Record<string, string>;
  readonly role: IamRole;
  /** The function's code: the asset folder in the cloud assembly. */
  readonly codeDirectory: string;
  readonly logGroupName: string;
  readonly description: string;
}

export interface IamRole {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly trustPolicy: PolicyDocument | undefined;
  /** Every identity policy of the role: inline ones, attached AWS::IAM::Policy and managed policies. */
  readonly policies: { name: string; document: PolicyDocument }[];
  readonly permissionsBoundary?: PolicyDocument;
}

export interface HttpRoute {
  readonly logicalId: string;
  readonly routeKey: string;
  readonly function: LambdaFunction;
  readonly payloadFormatVersion: string;
  readonly timeoutMillis: number;
  /** The stage's throttling of this route (its RouteSettings, else the DefaultRouteSettings), if any. */
  readonly throttle?: Throttle;
}

/** A token bucket: `burstLimit` requests at once, refilled at `rateLimit` a second. */
export interface Throttle {
  readonly burstLimit: number;
  readonly rateLimit: number;
}

export interface Queue {
  readonly logicalId: string;
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly visibilityTimeoutSeconds: number;
  /** The template's MaximumMessageSize, if it sets one. */
  readonly maximumMessageBytes?: number;
  readonly deadLetter?: { readonly targetArn: string; readonly maxReceiveCount: number };
  readonly policies: PolicyDocument[];
}

export interface EventSourceMapping {
  readonly logicalId: string;
  readonly sourceArn: string;
  readonly function: LambdaFunction;
  readonly batchSize: number;
  readonly reportBatchItemFailures: boolean;
  readonly enabled: boolean;
  readonly maximumConcurrency?: number;
}

export interface Schedule {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly expression: string;
  readonly targetArn: string;
  readonly input: string | undefined;
  readonly role: IamRole;
}

export interface Secret {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly generate?: Record<string, unknown>;
  readonly secretString?: string;
}

export interface Table {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** The CreateTable input for DynamoDB Local: keys, attribute definitions, indexes. */
  readonly createTableInput: Record<string, unknown>;
}

export interface Bucket {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** Its AWS::S3::BucketPolicy documents. */
  readonly policies: PolicyDocument[];
}

/** A VPC endpoint: a gateway endpoint's policy applies to every request that goes through it. */
export interface VpcEndpoint {
  readonly logicalId: string;
  readonly id: string;
  readonly type: string;
  /** `com.amazonaws.<region>.s3`, … */
  readonly serviceName: string;
  readonly vpcId: string;
  readonly policy: PolicyDocument | undefined;
}

export interface CodeBuildProject {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** The buildspec as the template holds it (Source.BuildSpec). */
  readonly buildSpec: string | undefined;
  readonly sourceType: string;
  readonly artifactsType: string;
  readonly image: string;
  readonly environmentType: string;
  readonly computeType: string;
  readonly privileged: boolean;
  readonly environmentVariables: { name: string; value: string; type: string }[];
  readonly timeoutInMinutes: number;
  readonly queuedTimeoutInMinutes: number;
  readonly concurrentBuildLimit: number | undefined;
  readonly serviceRole: IamRole;
  readonly logGroupName: string | undefined;
  readonly vpc: { readonly vpcId: string; readonly subnets: string[]; readonly securityGroups: string[] } | undefined;
}

/** A file asset as `cdk deploy` publishes it: an object in the bootstrap's assets bucket. */
export interface FileAsset {
  readonly bucketName: string;
  readonly objectKey: string;
  /** The file (packaging `file`) or folder (packaging `zip`) in the cloud assembly. */
  readonly path: string;
  readonly packaging: string;
}

export interface Deployment {
  readonly stackName: string;
  readonly template: CfnTemplate;
  readonly functions: LambdaFunction[];
  readonly roles: IamRole[];
  readonly api: { readonly id: string; readonly arn: string; readonly routes: HttpRoute[] } | undefined;
  /** Resource-based policies of functions (AWS::Lambda::Permission), by function ARN. */
  readonly functionPolicies: Map<string, PolicyDocument>;
  readonly queues: Queue[];
  readonly eventSourceMappings: EventSourceMapping[];
  readonly schedules: Schedule[];
  readonly secrets: Secret[];
  readonly tables: Table[];
  readonly buckets: Bucket[];
  readonly vpcEndpoints: VpcEndpoint[];
  readonly codeBuildProjects: CodeBuildProject[];
  /** Every file asset of the assembly, as published to the bootstrap's assets bucket. */
  readonly fileAssets: FileAsset[];
  readonly outputs: Record<string, string>;
  /** Problems CloudFormation or Lambda would refuse the deployment for. */
  readonly deploymentProblems: string[];
}

const HEX = '0123456789abcdef';
const alphanumeric = (length: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') =>
  Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');

/** CloudFormation's generated names: `<stack>-<logical id>-<random>`, cut to the service's limit. */
function generatedName(stackName: string, logicalId: string, maxLength: number): string {
  const suffix = alphanumeric(12);
  const room = maxLength - suffix.length - 2;
  const stackPart = stackName.slice(0, Math.max(0, Math.min(stackName.length, Math.floor(room / 2))));
  const logicalPart = logicalId.slice(0, room - stackPart.length);
  return `${stackPart}-${logicalPart}-${suffix}`;
}

const arn = (service: string, resource: string, region = REGION, account = ACCOUNT) =>
  `arn:${PARTITION}:${service}:${region}:${account}:${resource}`;

export interface ResolveOptions {
  /**
   * Where queue URLs point instead of `https://sqs.<region>.amazonaws.com`: the SDK's SQS client
   * sends each request to the host of its QueueUrl, whatever endpoint it was configured with, so
   * an emulated queue must have a URL on the emulated endpoint (as LocalStack's have).
   */
  readonly queueUrlBase?: string;
  /** Read a template synthesized without bundling: functions get no code folder (for policy checks only). */
  readonly withoutCode?: boolean;
}

/** What a stack of the deployment is given and can reach beyond its own template. */
interface StackContext {
  /** The values its parent passes for its parameters (a nested stack's). */
  readonly parameters?: Readonly<Record<string, string>>;
  /** The nested stack an `AWS::CloudFormation::Stack` resource of this stack creates. */
  readonly nestedStack?: (parent: Resolver, logicalId: string, resource: CfnResource) => Resolver;
}

/** The physical identity CloudFormation would give a resource of this type. */
function physicalFor(stackName: string, logicalId: string, resource: CfnResource, options: ResolveOptions): Physical {
  const props = resource.Properties ?? {};
  const named = (key: string, max: number) =>
    typeof props[key] === 'string' ? (props[key] as string) : generatedName(stackName, logicalId, max);
  switch (resource.Type) {
    case 'AWS::DynamoDB::Table': {
      const name = named('TableName', 255);
      return {
        ref: name,
        attributes: { Arn: arn('dynamodb', `table/${name}`), StreamArn: arn('dynamodb', `table/${name}/stream/1970-01-01T00:00:00.000`) },
      };
    }
    case 'AWS::Lambda::Function': {
      const name = named('FunctionName', 64);
      return { ref: name, attributes: { Arn: arn('lambda', `function:${name}`) } };
    }
    case 'AWS::IAM::Role': {
      const name = named('RoleName', 64);
      const path = typeof props.Path === 'string' ? props.Path : '/';
      return { ref: name, attributes: { Arn: `arn:${PARTITION}:iam::${ACCOUNT}:role${path}${name}`, RoleId: `AROA${alphanumeric(17)}` } };
    }
    case 'AWS::IAM::Policy':
      return { ref: generatedName(stackName, logicalId, 128), attributes: {} };
    case 'AWS::IAM::ManagedPolicy': {
      const name = named('ManagedPolicyName', 128);
      const policyArn = `arn:${PARTITION}:iam::${ACCOUNT}:policy/${name}`;
      return { ref: policyArn, attributes: { PolicyArn: policyArn } };
    }
    case 'AWS::SQS::Queue': {
      const fifo = props.FifoQueue === true || props.FifoQueue === 'true';
      const name = named('QueueName', fifo ? 75 : 80) + (fifo && typeof props.QueueName !== 'string' ? '.fifo' : '');
      const url = `${options.queueUrlBase ?? `https://sqs.${REGION}.${URL_SUFFIX}`}/${ACCOUNT}/${name}`;
      return { ref: url, attributes: { Arn: arn('sqs', name), QueueName: name, QueueUrl: url } };
    }
    case 'AWS::SecretsManager::Secret': {
      const name = named('Name', 256);
      const secretArn = arn('secretsmanager', `secret:${name}-${alphanumeric(6, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')}`);
      return { ref: secretArn, attributes: { Id: secretArn } };
    }
    case 'AWS::Logs::LogGroup': {
      const name = named('LogGroupName', 512);
      return { ref: name, attributes: { Arn: arn('logs', `log-group:${name}:*`) } };
    }
    case 'AWS::ApiGatewayV2::Api': {
      const id = alphanumeric(10, 'abcdefghijklmnopqrstuvwxyz0123456789');
      return { ref: id, attributes: { ApiId: id, ApiEndpoint: `https://${id}.execute-api.${REGION}.${URL_SUFFIX}` } };
    }
    case 'AWS::Scheduler::Schedule': {
      const name = named('Name', 64);
      const group = typeof props.GroupName === 'string' ? props.GroupName : 'default';
      return { ref: name, attributes: { Arn: arn('scheduler', `schedule/${group}/${name}`) } };
    }
    case 'AWS::ApiGatewayV2::Stage':
      return { ref: typeof props.StageName === 'string' ? props.StageName : logicalId, attributes: {} };
    case 'AWS::CloudWatch::Alarm': {
      const name = named('AlarmName', 255);
      return { ref: name, attributes: { Arn: arn('cloudwatch', `alarm:${name}`) } };
    }
    case 'AWS::Lambda::EventSourceMapping':
      return { ref: randomUUID(), attributes: {} };
    case 'AWS::S3::Bucket': {
      // Generated bucket names are lower case (S3 refuses capitals), at most 63 characters.
      const name = typeof props.BucketName === 'string' ? props.BucketName : generatedName(stackName, logicalId, 63).toLowerCase();
      return {
        ref: name,
        attributes: {
          Arn: `arn:${PARTITION}:s3:::${name}`,
          DomainName: `${name}.s3.${URL_SUFFIX}`,
          RegionalDomainName: `${name}.s3.${REGION}.${URL_SUFFIX}`,
          DualStackDomainName: `${name}.s3.dualstack.${REGION}.${URL_SUFFIX}`,
          WebsiteURL: `http://${name}.s3-website-${REGION}.${URL_SUFFIX}`,
        },
      };
    }
    case 'AWS::CodeBuild::Project': {
      const name = named('Name', 150);
      return { ref: name, attributes: { Arn: arn('codebuild', `project/${name}`) } };
    }
    case 'AWS::SNS::Topic': {
      const name = named('TopicName', 256);
      const topicArn = arn('sns', name);
      return { ref: topicArn, attributes: { TopicArn: topicArn, TopicName: name } };
    }
    case 'AWS::EC2::VPC': {
      const id = `vpc-${alphanumeric(17, HEX)}`;
      return {
        ref: id,
        attributes: {
          VpcId: id,
          CidrBlock: String(props.CidrBlock ?? '10.0.0.0/16'),
          DefaultSecurityGroup: `sg-${alphanumeric(17, HEX)}`,
          DefaultNetworkAcl: `acl-${alphanumeric(17, HEX)}`,
        },
      };
    }
    case 'AWS::EC2::Subnet': {
      const id = `subnet-${alphanumeric(17, HEX)}`;
      return { ref: id, attributes: { SubnetId: id } };
    }
    case 'AWS::EC2::SecurityGroup': {
      const id = `sg-${alphanumeric(17, HEX)}`;
      return { ref: id, attributes: { GroupId: id } };
    }
    case 'AWS::EC2::RouteTable': {
      const id = `rtb-${alphanumeric(17, HEX)}`;
      return { ref: id, attributes: { RouteTableId: id } };
    }
    case 'AWS::EC2::VPCEndpoint': {
      const id = `vpce-${alphanumeric(17, HEX)}`;
      return { ref: id, attributes: { Id: id } };
    }
    case 'AWS::CloudFormation::Stack': {
      // Its outputs (`Outputs.<name>`) are the nested stack's: the resolver asks that stack for them.
      return { ref: arn('cloudformation', `stack/${generatedName(stackName, logicalId, 128)}/${randomUUID()}`), attributes: {} };
    }
    default:
      return { ref: alphanumeric(7, 'abcdefghijklmnopqrstuvwxyz0123456789'), attributes: {} };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Resolves intrinsic functions against the physical resources, the way CloudFormation does. */
export class Resolver {
  private readonly physical = new Map<string, Physical>();
  readonly template: CfnTemplate;
  readonly stackName: string;
  private readonly context: StackContext;
  private readonly nested = new Map<string, Resolver>();

  constructor(template: CfnTemplate, stackName: string, options: ResolveOptions = {}, context: StackContext = {}) {
    this.template = template;
    this.stackName = stackName;
    this.context = context;
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      this.physical.set(logicalId, physicalFor(stackName, logicalId, resource, options));
    }
  }

  ref(logicalId: string): string {
    const pseudo: Record<string, string> = {
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
      'AWS::Partition': PARTITION,
      'AWS::URLSuffix': URL_SUFFIX,
      'AWS::StackName': this.stackName,
      'AWS::StackId': arn('cloudformation', `stack/${this.stackName}/00000000-0000-0000-0000-000000000000`),
      'AWS::NotificationARNs': '',
    };
    if (logicalId in pseudo) return pseudo[logicalId]!;
    const resource = this.physical.get(logicalId);
    if (resource) return resource.ref;
    const parameter = this.template.Parameters?.[logicalId];
    const passed = this.context.parameters?.[logicalId];
    if (parameter && passed !== undefined) return passed;
    if (parameter && typeof parameter.Default === 'string') return parameter.Default;
    throw new Error(`Ref to unknown resource or parameter ${logicalId}`);
  }

  getAtt(logicalId: string, attribute: string): string {
    const resource = this.physical.get(logicalId);
    if (!resource) throw new Error(`Fn::GetAtt of unknown resource ${logicalId}`);
    const output = /^Outputs\.(.+)$/.exec(attribute)?.[1];
    if (this.template.Resources[logicalId]!.Type === 'AWS::CloudFormation::Stack' && output !== undefined) {
      const nested = this.nestedStack(logicalId);
      const declared = nested.template.Outputs?.[output];
      if (!declared) throw new Error(`Fn::GetAtt ${logicalId}.${attribute}: the nested stack has no output ${output}`);
      return String(nested.resolve(declared.Value));
    }
    const value = resource.attributes[attribute];
    if (value === undefined) {
      throw new Error(`Fn::GetAtt ${logicalId}.${attribute} (${this.template.Resources[logicalId]!.Type}) is not modelled by the test`);
    }
    return value;
  }

  /** The resolver of the nested stack that the `AWS::CloudFormation::Stack` resource `logicalId` creates. */
  nestedStack(logicalId: string): Resolver {
    let nested = this.nested.get(logicalId);
    if (!nested) {
      if (!this.context.nestedStack) throw new Error(`Nested stack ${logicalId} is not modelled here`);
      nested = this.context.nestedStack(this, logicalId, this.template.Resources[logicalId]!);
      this.nested.set(logicalId, nested);
    }
    return nested;
  }

  /** Whether a template condition holds. */
  condition(name: string): boolean {
    const definition = this.template.Conditions?.[name];
    if (definition === undefined) throw new Error(`Unknown condition ${name}`);
    return Boolean(this.resolve(definition));
  }

  /** Resolves every intrinsic in `value`; `AWS::NoValue` removes the key or element. */
  resolve(value: unknown): unknown {
    const NO_VALUE = Symbol.for('AWS::NoValue');
    const walk = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(walk).filter((item) => item !== NO_VALUE);
      if (!isObject(node)) return node;
      const keys = Object.keys(node);
      if (keys.length === 1) {
        const [key] = keys as [string];
        const argument = node[key];
        switch (key) {
          case 'Ref':
            return argument === 'AWS::NoValue' ? NO_VALUE : this.ref(String(argument));
          case 'Fn::GetAtt': {
            const [id, ...attribute] = Array.isArray(argument) ? (argument as string[]) : String(argument).split('.');
            return this.getAtt(String(walk(id)), attribute.map((part) => String(walk(part))).join('.'));
          }
          case 'Fn::Join': {
            const [separator, parts] = argument as [string, unknown];
            return (walk(parts) as unknown[]).map(String).join(separator);
          }
          case 'Fn::Select': {
            const [index, list] = argument as [unknown, unknown];
            const items = walk(list) as unknown[];
            const chosen = items[Number(walk(index))];
            if (chosen === undefined) throw new Error(`Fn::Select index ${String(index)} out of range`);
            return chosen;
          }
          case 'Fn::Split': {
            const [separator, text] = argument as [string, unknown];
            return String(walk(text)).split(separator);
          }
          case 'Fn::Sub': {
            const [text, variables] = Array.isArray(argument) ? (argument as [string, Record<string, unknown>]) : [String(argument), {}];
            const resolvedVariables = walk(variables) as Record<string, unknown>;
            return text
              .replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) => {
                if (name in resolvedVariables) return String(resolvedVariables[name]);
                const [id, ...attribute] = name.split('.');
                return attribute.length > 0 ? this.getAtt(id!, attribute.join('.')) : this.ref(id!);
              })
              .replace(/\$\{!/g, '${');
          }
          case 'Fn::If': {
            const [conditionName, whenTrue, whenFalse] = argument as [string, unknown, unknown];
            return walk(this.condition(conditionName) ? whenTrue : whenFalse);
          }
          case 'Fn::Equals': {
            const [a, b] = argument as [unknown, unknown];
            return JSON.stringify(walk(a)) === JSON.stringify(walk(b));
          }
          case 'Fn::Not':
            return !walk((argument as unknown[])[0]);
          case 'Fn::And':
            return (argument as unknown[]).every((item) => Boolean(walk(item)));
          case 'Fn::Or':
            return (argument as unknown[]).some((item) => Boolean(walk(item)));
          case 'Condition':
            return this.condition(String(argument));
          case 'Fn::GetAZs':
            return ['a', 'b', 'c'].map((zone) => `${REGION}${zone}`);
          case 'Fn::Base64':
            return Buffer.from(String(walk(argument))).toString('base64');
          case 'Fn::ImportValue':
          case 'Fn::FindInMap':
          case 'Fn::Cidr':
          case 'Fn::Transform':
            throw new Error(`${key} is not modelled by the test`);
          default:
            break;
        }
      }
      const result: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(node)) {
        const resolved = walk(item);
        if (resolved !== NO_VALUE) result[key] = resolved;
      }
      return result;
    };
    return walk(value);
  }
}

/** The file assets of the cloud assembly, where `cdk deploy` publishes them (the bootstrap's assets bucket). */
function fileAssets(outdir: string): FileAsset[] {
  const assets: FileAsset[] = [];
  const substitute = (text: string) =>
    text
      .replace(/\$\{AWS::AccountId\}/g, ACCOUNT)
      .replace(/\$\{AWS::Region\}/g, REGION)
      .replace(/\$\{AWS::Partition\}/g, PARTITION);
  for (const file of readdirSync(outdir).filter((name) => name.endsWith('.assets.json'))) {
    const manifest = JSON.parse(readFileSync(join(outdir, file), 'utf8')) as {
      files?: Record<
        string,
        { source: { path: string; packaging?: string }; destinations: Record<string, { bucketName: string; objectKey: string }> }
      >;
    };
    for (const asset of Object.values(manifest.files ?? {})) {
      for (const destination of Object.values(asset.destinations)) {
        assets.push({
          bucketName: substitute(destination.bucketName),
          objectKey: destination.objectKey,
          path: join(outdir, asset.source.path),
          packaging: asset.source.packaging ?? 'file',
        });
      }
    }
  }
  return assets;
}

/** Lambda's reserved environment variables: a template may not set them. */
export const RESERVED_VARIABLES = [
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
];

/*
 * The properties the test reads of each resource type, after intrinsics are resolved. Scalars it
 * only prints or converts stay `unknown`; `Roles` and the like may be one value or a list.
 */
type OneOrMore<T> = T | T[];
interface ManagedPolicyProperties {
  readonly PolicyDocument: PolicyDocument;
  readonly Roles?: OneOrMore<string>;
}
interface PolicyProperties extends ManagedPolicyProperties {
  readonly PolicyName?: string;
}
interface RoleProperties {
  readonly AssumeRolePolicyDocument?: PolicyDocument;
  readonly Policies?: OneOrMore<{ PolicyName: string; PolicyDocument: PolicyDocument }>;
  readonly ManagedPolicyArns?: OneOrMore<string>;
  readonly PermissionsBoundary?: string;
}
interface FunctionProperties {
  readonly Code?: { readonly S3Key?: unknown };
  readonly Environment?: { readonly Variables?: Record<string, unknown> };
  readonly Timeout?: unknown;
  readonly MemorySize?: unknown;
  readonly Handler?: unknown;
  readonly Runtime?: unknown;
  readonly Role?: unknown;
  readonly LoggingConfig?: { readonly LogGroup?: unknown };
  readonly Description?: unknown;
}
interface PermissionProperties {
  readonly FunctionName?: unknown;
  readonly Principal?: unknown;
  readonly SourceArn?: unknown;
  readonly SourceAccount?: unknown;
  readonly Action?: unknown;
}
interface IntegrationProperties {
  readonly IntegrationType?: unknown;
  readonly IntegrationUri?: unknown;
  readonly PayloadFormatVersion?: unknown;
  readonly TimeoutInMillis?: unknown;
}
interface RouteSettings {
  readonly ThrottlingBurstLimit?: unknown;
  readonly ThrottlingRateLimit?: unknown;
}
interface StageProperties {
  readonly ApiId?: unknown;
  readonly StageName?: unknown;
  readonly DefaultRouteSettings?: RouteSettings;
  readonly RouteSettings?: Record<string, RouteSettings>;
}
interface RouteProperties {
  readonly Target?: unknown;
  readonly RouteKey?: unknown;
  readonly AuthorizationType?: unknown;
}
interface QueuePolicyProperties {
  readonly Queues?: OneOrMore<string>;
  readonly PolicyDocument: PolicyDocument;
}
interface RedrivePolicy {
  readonly deadLetterTargetArn?: unknown;
  readonly maxReceiveCount?: unknown;
}
interface QueueProperties {
  readonly VisibilityTimeout?: unknown;
  readonly MaximumMessageSize?: unknown;
  /** An object, or its JSON. */
  readonly RedrivePolicy?: string | RedrivePolicy;
}
interface EventSourceMappingProperties {
  readonly EventSourceArn?: unknown;
  readonly FunctionName?: unknown;
  readonly BatchSize?: unknown;
  readonly FunctionResponseTypes?: OneOrMore<string>;
  readonly Enabled?: unknown;
  readonly ScalingConfig?: { readonly MaximumConcurrency?: unknown };
}
interface ScheduleProperties {
  readonly ScheduleExpression?: unknown;
  readonly Target?: { readonly Arn?: unknown; readonly Input?: unknown; readonly RoleArn?: unknown };
}
interface SecretProperties {
  readonly GenerateSecretString?: Record<string, unknown>;
  readonly SecretString?: unknown;
}
interface TableProperties {
  readonly KeySchema?: unknown;
  readonly AttributeDefinitions?: unknown;
  readonly GlobalSecondaryIndexes?: Record<string, unknown>[];
  readonly LocalSecondaryIndexes?: Record<string, unknown>[];
}
interface BucketPolicyProperties {
  readonly Bucket?: unknown;
  readonly PolicyDocument: PolicyDocument;
}
interface VpcEndpointProperties {
  /** A document, or its JSON. */
  readonly PolicyDocument?: string | PolicyDocument;
  readonly VpcEndpointType?: unknown;
  readonly ServiceName?: unknown;
  readonly VpcId?: unknown;
}
interface CodeBuildProjectProperties {
  readonly Environment?: {
    readonly Image?: unknown;
    readonly Type?: unknown;
    readonly ComputeType?: unknown;
    readonly PrivilegedMode?: unknown;
    readonly EnvironmentVariables?: OneOrMore<{ Name: string; Value: unknown; Type?: string }>;
  };
  readonly LogsConfig?: { readonly CloudWatchLogs?: { readonly Status?: unknown; readonly GroupName?: unknown } };
  readonly Source?: { readonly BuildSpec?: unknown; readonly Type?: unknown };
  readonly Artifacts?: { readonly Type?: unknown };
  readonly TimeoutInMinutes?: unknown;
  readonly QueuedTimeoutInMinutes?: unknown;
  readonly ConcurrentBuildLimit?: unknown;
  readonly ServiceRole?: unknown;
  readonly VpcConfig?: { readonly VpcId?: unknown; readonly Subnets?: OneOrMore<string>; readonly SecurityGroupIds?: OneOrMore<string> };
}

/** Reads a synthesized stack (`<outdir>/<stack>.template.json` and its assets) as CloudFormation would deploy it. */
export function loadDeployment(outdir: string, stackName: string, options: ResolveOptions = {}): Deployment {
  const templateFile = join(outdir, `${stackName}.template.json`);
  const template = JSON.parse(readFileSync(templateFile, 'utf8')) as CfnTemplate;
  const problems: string[] = [];
  const assets = fileAssets(outdir);
  const folders = new Map(assets.map((asset) => [asset.objectKey, asset.path]));

  // The stack and its nested stacks (AWS::CloudFormation::Stack), each with its own resolver: a
  // nested template is the file asset its TemplateURL names, its parameters are what the parent
  // passes, and the parent reads its outputs through Fn::GetAtt `Outputs.<name>`.
  const stacks: Resolver[] = [];
  const checkLimits = (resolver: Resolver, file: string) => {
    const counts = {
      resources: Object.keys(resolver.template.Resources).length,
      parameters: Object.keys(resolver.template.Parameters ?? {}).length,
      outputs: Object.keys(resolver.template.Outputs ?? {}).length,
    };
    for (const [what, limit] of [
      ['resources', 500],
      ['parameters', 200],
      ['outputs', 200],
    ] as const) {
      if (counts[what] > limit) problems.push(`Stack ${resolver.stackName}: ${counts[what]} ${what}; CloudFormation allows ${limit}`);
    }
    const bytes = statSync(file).size;
    if (bytes > 1_000_000) problems.push(`Stack ${resolver.stackName}: its template is ${bytes} bytes; CloudFormation reads 1 MB from S3`);
  };
  const nestedStack = (parent: Resolver, logicalId: string, resource: CfnResource): Resolver => {
    const p = parent.resolve(resource.Properties ?? {}) as { TemplateURL?: unknown; Parameters?: Record<string, unknown> };
    const url = new URL(String(p.TemplateURL));
    if (url.host !== `s3.${REGION}.${URL_SUFFIX}`) throw new Error(`Nested stack ${logicalId}: TemplateURL ${url.href} is not in S3`);
    const [bucketName, ...key] = url.pathname.slice(1).split('/');
    const asset = assets.find((candidate) => candidate.bucketName === bucketName && candidate.objectKey === key.join('/'));
    if (!asset) throw new Error(`Nested stack ${logicalId}: its template ${url.href} is not a file asset of ${outdir}`);
    const nestedTemplate = JSON.parse(readFileSync(asset.path, 'utf8')) as CfnTemplate;
    const parameters = Object.fromEntries(Object.entries(p.Parameters ?? {}).map(([name, value]) => [name, String(value)]));
    const declared = nestedTemplate.Parameters ?? {};
    for (const name of Object.keys(parameters)) {
      if (!(name in declared)) problems.push(`Nested stack ${logicalId}: passes ${name}, which its template does not declare`);
    }
    for (const [name, parameter] of Object.entries(declared)) {
      if (!(name in parameters) && parameter.Default === undefined)
        problems.push(`Nested stack ${logicalId}: its parameter ${name} gets no value`);
    }
    const resolver = new Resolver(nestedTemplate, generatedName(parent.stackName, logicalId, 128), options, { parameters, nestedStack });
    checkLimits(resolver, asset.path);
    stacks.push(resolver);
    return resolver;
  };
  const root = new Resolver(template, stackName, options, { nestedStack });
  checkLimits(root, templateFile);
  stacks.push(root);
  for (let index = 0; index < stacks.length; index++) {
    const stack = stacks[index]!;
    for (const [logicalId, resource] of Object.entries(stack.template.Resources)) {
      if (resource.Type === 'AWS::CloudFormation::Stack' && (!resource.Condition || stack.condition(resource.Condition)))
        stack.nestedStack(logicalId);
    }
  }

  // Every resource of every stack, read by its own stack's resolver. Logical ids are unique only
  // within a stack; the test names resources by them, so a collision across stacks is refused.
  const owners = new Map<string, Resolver>();
  const entries: [string, CfnResource][] = [];
  const ownerOf = new Map<CfnResource, Resolver>();
  for (const stack of stacks) {
    for (const [logicalId, resource] of Object.entries(stack.template.Resources)) {
      if (resource.Condition && !stack.condition(resource.Condition)) continue;
      if (owners.has(logicalId)) throw new Error(`The logical id ${logicalId} is in two stacks; the test names resources by logical id`);
      owners.set(logicalId, stack);
      ownerOf.set(resource, stack);
      entries.push([logicalId, resource]);
    }
  }
  const owner = (logicalId: string) => owners.get(logicalId) ?? root;
  const resolver = {
    ref: (logicalId: string) => owner(logicalId).ref(logicalId),
    getAtt: (logicalId: string, attribute: string) => owner(logicalId).getAtt(logicalId, attribute),
  };
  const ofType = (type: string) => entries.filter(([, resource]) => resource.Type === type);
  /** A resource's resolved properties, read as the properties the test looks at (below, by resource type). */
  const props = <P>(resource: CfnResource) => ownerOf.get(resource)!.resolve(resource.Properties ?? {}) as P;

  // Identity policies: inline, AWS::IAM::Policy and AWS::IAM::ManagedPolicy attached by role name.
  const attached = new Map<string, { name: string; document: PolicyDocument }[]>();
  const managed = new Map<string, PolicyDocument>();
  for (const [logicalId, resource] of ofType('AWS::IAM::ManagedPolicy')) {
    const p = props<ManagedPolicyProperties>(resource);
    managed.set(resolver.ref(logicalId), p.PolicyDocument);
    for (const role of asArray<string>(p.Roles))
      attached.set(role, [...(attached.get(role) ?? []), { name: logicalId, document: p.PolicyDocument }]);
  }
  for (const [logicalId, resource] of ofType('AWS::IAM::Policy')) {
    const p = props<PolicyProperties>(resource);
    for (const role of asArray<string>(p.Roles))
      attached.set(role, [...(attached.get(role) ?? []), { name: p.PolicyName ?? logicalId, document: p.PolicyDocument }]);
  }
  const roles: IamRole[] = ofType('AWS::IAM::Role').map(([logicalId, resource]) => {
    const p = props<RoleProperties>(resource);
    const name = resolver.ref(logicalId);
    const policies = [
      ...asArray<{ PolicyName: string; PolicyDocument: PolicyDocument }>(p.Policies).map((policy) => ({
        name: policy.PolicyName,
        document: policy.PolicyDocument,
      })),
      ...(attached.get(name) ?? []),
    ];
    for (const policyArn of asArray<string>(p.ManagedPolicyArns)) {
      const document = managed.get(policyArn);
      if (document) policies.push({ name: policyArn, document });
      else problems.push(`Role ${logicalId}: the managed policy ${policyArn} is not in the template, so the test cannot evaluate it`);
    }
    let permissionsBoundary: PolicyDocument | undefined;
    if (p.PermissionsBoundary) {
      permissionsBoundary = managed.get(p.PermissionsBoundary);
      if (!permissionsBoundary)
        problems.push(`Role ${logicalId}: the permissions boundary ${p.PermissionsBoundary} is not in the template`);
    }
    return {
      logicalId,
      name,
      arn: resolver.getAtt(logicalId, 'Arn'),
      trustPolicy: p.AssumeRolePolicyDocument,
      policies,
      ...(permissionsBoundary ? { permissionsBoundary } : {}),
    };
  });
  const roleByArn = (roleArn: string, owner: string): IamRole => {
    const role = roles.find((candidate) => candidate.arn === roleArn);
    if (!role) throw new Error(`${owner}: its role ${roleArn} is not a role of the template`);
    return role;
  };

  const functions: LambdaFunction[] = ofType('AWS::Lambda::Function').map(([logicalId, resource]) => {
    const p = props<FunctionProperties>(resource);
    const raw = resource.Properties ?? {};
    const code: NonNullable<FunctionProperties['Code']> = p.Code ?? {};
    const assetPath =
      typeof resource.Metadata?.['aws:asset:path'] === 'string' ? join(outdir, resource.Metadata['aws:asset:path'] as string) : undefined;
    const codeDirectory = assetPath ?? (typeof code.S3Key === 'string' ? folders.get(code.S3Key) : undefined);
    if (!options.withoutCode && (!codeDirectory || !existsSync(codeDirectory)))
      throw new Error(`Function ${logicalId}: its code asset (${JSON.stringify(raw.Code)}) is not in ${outdir}`);
    const environment: Record<string, string> = {};
    for (const [key, value] of Object.entries(p.Environment?.Variables ?? {})) environment[key] = String(value);
    const name = resolver.ref(logicalId);
    for (const key of Object.keys(environment)) {
      if (RESERVED_VARIABLES.includes(key))
        problems.push(`Function ${logicalId}: sets the reserved environment variable ${key}, which Lambda refuses`);
    }
    const environmentSize = Object.entries(environment).reduce(
      (total, [key, value]) => total + Buffer.byteLength(key) + Buffer.byteLength(value),
      0,
    );
    if (environmentSize > 4096) problems.push(`Function ${logicalId}: its environment is ${environmentSize} bytes; Lambda allows 4 KB`);
    const timeoutSeconds = Number(p.Timeout ?? 3);
    const memorySize = Number(p.MemorySize ?? 128);
    if (timeoutSeconds < 1 || timeoutSeconds > 900) problems.push(`Function ${logicalId}: Timeout ${timeoutSeconds} is outside 1–900 s`);
    if (memorySize < 128 || memorySize > 10240) problems.push(`Function ${logicalId}: MemorySize ${memorySize} is outside 128–10240 MB`);
    return {
      logicalId,
      name,
      arn: resolver.getAtt(logicalId, 'Arn'),
      handler: String(p.Handler),
      runtime: String(p.Runtime),
      timeoutSeconds,
      memorySize,
      environment,
      role: roleByArn(String(p.Role), `Function ${logicalId}`),
      codeDirectory: codeDirectory ?? '',
      logGroupName: String(p.LoggingConfig?.LogGroup ?? `/aws/lambda/${name}`),
      description: String(p.Description ?? ''),
    };
  });
  const functionByReference = (reference: string, owner: string): LambdaFunction => {
    // A function name, its ARN, or its ARN with a qualifier.
    const fn = functions.find(
      (candidate) => candidate.name === reference || candidate.arn === reference || reference.startsWith(`${candidate.arn}:`),
    );
    if (!fn) throw new Error(`${owner}: ${reference} is not a function of the template`);
    return fn;
  };

  const functionPolicies = new Map<string, PolicyDocument>();
  for (const [logicalId, resource] of ofType('AWS::Lambda::Permission')) {
    const p = props<PermissionProperties>(resource);
    const fn = functionByReference(String(p.FunctionName), `Permission ${logicalId}`);
    const principal = String(p.Principal);
    const condition: Record<string, Record<string, string>> = {};
    if (p.SourceArn) condition.ArnLike = { 'AWS:SourceArn': String(p.SourceArn) };
    if (p.SourceAccount) condition.StringEquals = { 'AWS:SourceAccount': String(p.SourceAccount) };
    const statement = {
      Sid: logicalId,
      Effect: 'Allow',
      Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
      Action: String(p.Action),
      Resource: fn.arn,
      ...(Object.keys(condition).length > 0 ? { Condition: condition } : {}),
    };
    const document = functionPolicies.get(fn.arn) ?? { Version: '2012-10-17', Statement: [] };
    (document.Statement as Record<string, unknown>[]).push(statement);
    functionPolicies.set(fn.arn, document);
  }

  const apis = ofType('AWS::ApiGatewayV2::Api');
  if (apis.length > 1) problems.push(`The template has ${apis.length} HTTP APIs; the test emulates one`);
  let api: Deployment['api'];
  if (apis.length > 0) {
    const [apiId] = apis[0]!;
    const integrations = new Map(
      ofType('AWS::ApiGatewayV2::Integration').map(([logicalId, resource]) => [
        resolver.ref(logicalId),
        { logicalId, p: props<IntegrationProperties>(resource) },
      ]),
    );
    const stages = ofType('AWS::ApiGatewayV2::Stage').map(([logicalId, resource]) => ({ logicalId, p: props<StageProperties>(resource) }));
    if (stages.length !== 1 || String(stages[0]!.p.StageName) !== '$default')
      problems.push(
        `The HTTP API has ${stages.length} stages (${stages.map((stage) => String(stage.p.StageName)).join(', ')}); the test emulates one, $default`,
      );
    const stage = stages[0]?.p;
    const throttleOf = (settings: RouteSettings | undefined): Throttle | undefined =>
      settings?.ThrottlingBurstLimit === undefined && settings?.ThrottlingRateLimit === undefined
        ? undefined
        : {
            burstLimit: Number(settings.ThrottlingBurstLimit ?? Number.POSITIVE_INFINITY),
            rateLimit: Number(settings.ThrottlingRateLimit ?? Number.POSITIVE_INFINITY),
          };
    const routes: HttpRoute[] = ofType('AWS::ApiGatewayV2::Route').map(([logicalId, resource]) => {
      const p = props<RouteProperties>(resource);
      const target = /^integrations\/(.+)$/.exec(String(p.Target ?? ''))?.[1];
      const integration = target ? integrations.get(target) : undefined;
      if (!integration) throw new Error(`Route ${logicalId} (${String(p.RouteKey)}) has no integration target`);
      if (integration.p.IntegrationType !== 'AWS_PROXY')
        throw new Error(`Route ${logicalId}: integration type ${integration.p.IntegrationType} is not emulated`);
      if (p.AuthorizationType && p.AuthorizationType !== 'NONE')
        problems.push(`Route ${logicalId}: authorization ${p.AuthorizationType} is not emulated`);
      return {
        logicalId,
        routeKey: String(p.RouteKey),
        function: functionByReference(String(integration.p.IntegrationUri), `Integration ${integration.logicalId}`),
        payloadFormatVersion: String(integration.p.PayloadFormatVersion ?? '1.0'),
        timeoutMillis: Number(integration.p.TimeoutInMillis ?? 30_000),
        throttle: throttleOf(stage?.RouteSettings?.[String(p.RouteKey)]) ?? throttleOf(stage?.DefaultRouteSettings),
      };
    });
    const id = resolver.ref(apiId);
    api = { id, arn: arn('execute-api', id), routes };
  }

  const queuePolicies = new Map<string, PolicyDocument[]>();
  for (const [, resource] of ofType('AWS::SQS::QueuePolicy')) {
    const p = props<QueuePolicyProperties>(resource);
    for (const url of asArray<string>(p.Queues)) queuePolicies.set(url, [...(queuePolicies.get(url) ?? []), p.PolicyDocument]);
  }
  const queues: Queue[] = ofType('AWS::SQS::Queue').map(([logicalId, resource]) => {
    const p = props<QueueProperties>(resource);
    const url = resolver.ref(logicalId);
    const redrive = typeof p.RedrivePolicy === 'string' ? (JSON.parse(p.RedrivePolicy) as RedrivePolicy) : p.RedrivePolicy;
    return {
      logicalId,
      name: resolver.getAtt(logicalId, 'QueueName'),
      url,
      arn: resolver.getAtt(logicalId, 'Arn'),
      visibilityTimeoutSeconds: Number(p.VisibilityTimeout ?? 30),
      ...(p.MaximumMessageSize === undefined ? {} : { maximumMessageBytes: Number(p.MaximumMessageSize) }),
      ...(redrive
        ? { deadLetter: { targetArn: String(redrive.deadLetterTargetArn), maxReceiveCount: Number(redrive.maxReceiveCount) } }
        : {}),
      policies: queuePolicies.get(url) ?? [],
    };
  });

  const eventSourceMappings: EventSourceMapping[] = ofType('AWS::Lambda::EventSourceMapping').map(([logicalId, resource]) => {
    const p = props<EventSourceMappingProperties>(resource);
    const sourceArn = String(p.EventSourceArn);
    if (!queues.some((queue) => queue.arn === sourceArn))
      problems.push(`Event source mapping ${logicalId}: source ${sourceArn} is not an SQS queue of the template`);
    return {
      logicalId,
      sourceArn,
      function: functionByReference(String(p.FunctionName), `Event source mapping ${logicalId}`),
      batchSize: Number(p.BatchSize ?? 10),
      reportBatchItemFailures: asArray<string>(p.FunctionResponseTypes).includes('ReportBatchItemFailures'),
      enabled: p.Enabled !== false && p.Enabled !== 'false',
      ...(p.ScalingConfig?.MaximumConcurrency ? { maximumConcurrency: Number(p.ScalingConfig.MaximumConcurrency) } : {}),
    };
  });

  const schedules: Schedule[] = ofType('AWS::Scheduler::Schedule').map(([logicalId, resource]) => {
    const p = props<ScheduleProperties>(resource);
    return {
      logicalId,
      name: resolver.ref(logicalId),
      arn: resolver.getAtt(logicalId, 'Arn'),
      expression: String(p.ScheduleExpression),
      targetArn: String(p.Target?.Arn),
      input: p.Target?.Input === undefined ? undefined : String(p.Target.Input),
      role: roleByArn(String(p.Target?.RoleArn), `Schedule ${logicalId}`),
    };
  });

  const secrets: Secret[] = ofType('AWS::SecretsManager::Secret').map(([logicalId, resource]) => {
    const p = props<SecretProperties>(resource);
    const secretArn = resolver.ref(logicalId);
    return {
      logicalId,
      name: /:secret:(.+)-[A-Za-z]{6}$/.exec(secretArn)![1]!,
      arn: secretArn,
      ...(p.GenerateSecretString ? { generate: p.GenerateSecretString } : {}),
      ...(typeof p.SecretString === 'string' ? { secretString: p.SecretString } : {}),
    };
  });

  const tables: Table[] = ofType('AWS::DynamoDB::Table').map(([logicalId, resource]) => {
    const p = props<TableProperties>(resource);
    const name = resolver.ref(logicalId);
    const projection = (index: Record<string, unknown>) => ({
      IndexName: index.IndexName,
      KeySchema: index.KeySchema,
      Projection: index.Projection,
    });
    return {
      logicalId,
      name,
      arn: resolver.getAtt(logicalId, 'Arn'),
      createTableInput: {
        TableName: name,
        KeySchema: p.KeySchema,
        AttributeDefinitions: p.AttributeDefinitions,
        BillingMode: 'PAY_PER_REQUEST',
        ...(p.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: p.GlobalSecondaryIndexes.map(projection) } : {}),
        ...(p.LocalSecondaryIndexes ? { LocalSecondaryIndexes: p.LocalSecondaryIndexes.map(projection) } : {}),
      },
    };
  });

  const bucketPolicies = new Map<string, PolicyDocument[]>();
  for (const [, resource] of ofType('AWS::S3::BucketPolicy')) {
    const p = props<BucketPolicyProperties>(resource);
    bucketPolicies.set(String(p.Bucket), [...(bucketPolicies.get(String(p.Bucket)) ?? []), p.PolicyDocument]);
  }
  const buckets: Bucket[] = ofType('AWS::S3::Bucket').map(([logicalId]) => {
    const name = resolver.ref(logicalId);
    return { logicalId, name, arn: resolver.getAtt(logicalId, 'Arn'), policies: bucketPolicies.get(name) ?? [] };
  });

  const vpcEndpoints: VpcEndpoint[] = ofType('AWS::EC2::VPCEndpoint').map(([logicalId, resource]) => {
    const p = props<VpcEndpointProperties>(resource);
    const policy = typeof p.PolicyDocument === 'string' ? (JSON.parse(p.PolicyDocument) as PolicyDocument) : p.PolicyDocument;
    return {
      logicalId,
      id: resolver.ref(logicalId),
      type: String(p.VpcEndpointType ?? 'Gateway'),
      serviceName: String(p.ServiceName),
      vpcId: String(p.VpcId),
      policy,
    };
  });

  const codeBuildProjects: CodeBuildProject[] = ofType('AWS::CodeBuild::Project').map(([logicalId, resource]) => {
    const p = props<CodeBuildProjectProperties>(resource);
    const environment: NonNullable<CodeBuildProjectProperties['Environment']> = p.Environment ?? {};
    const logs = p.LogsConfig?.CloudWatchLogs;
    return {
      logicalId,
      name: resolver.ref(logicalId),
      arn: resolver.getAtt(logicalId, 'Arn'),
      buildSpec: typeof p.Source?.BuildSpec === 'string' ? p.Source.BuildSpec : undefined,
      sourceType: String(p.Source?.Type ?? 'NO_SOURCE'),
      artifactsType: String(p.Artifacts?.Type ?? 'NO_ARTIFACTS'),
      image: String(environment.Image),
      environmentType: String(environment.Type ?? 'LINUX_CONTAINER'),
      computeType: String(environment.ComputeType ?? 'BUILD_GENERAL1_SMALL'),
      privileged: environment.PrivilegedMode === true || environment.PrivilegedMode === 'true',
      environmentVariables: asArray<{ Name: string; Value: unknown; Type?: string }>(environment.EnvironmentVariables).map((variable) => ({
        name: variable.Name,
        value: String(variable.Value),
        type: variable.Type ?? 'PLAINTEXT',
      })),
      timeoutInMinutes: Number(p.TimeoutInMinutes ?? 60),
      queuedTimeoutInMinutes: Number(p.QueuedTimeoutInMinutes ?? 480),
      concurrentBuildLimit: p.ConcurrentBuildLimit === undefined ? undefined : Number(p.ConcurrentBuildLimit),
      serviceRole: roleByArn(String(p.ServiceRole), `CodeBuild project ${logicalId}`),
      logGroupName: logs && logs.Status !== 'DISABLED' ? String(logs.GroupName ?? `/aws/codebuild/${resolver.ref(logicalId)}`) : undefined,
      vpc: p.VpcConfig
        ? {
            vpcId: String(p.VpcConfig.VpcId),
            subnets: asArray<string>(p.VpcConfig.Subnets).map(String),
            securityGroups: asArray<string>(p.VpcConfig.SecurityGroupIds).map(String),
          }
        : undefined,
    };
  });

  const outputs: Record<string, string> = {};
  for (const [key, output] of Object.entries(template.Outputs ?? {})) outputs[key] = String(root.resolve(output.Value));

  return {
    stackName,
    template,
    functions,
    roles,
    api,
    functionPolicies,
    queues,
    eventSourceMappings,
    schedules,
    secrets,
    tables,
    buckets,
    vpcEndpoints,
    codeBuildProjects,
    fileAssets: assets,
    outputs,
    deploymentProblems: problems,
  };
}

/** The function a route key is integrated with. */
export function routeFunction(deployment: Deployment, routeKey: string): LambdaFunction {
  const route = deployment.api?.routes.find((candidate) => candidate.routeKey === routeKey);
  if (!route) throw new Error(`The template has no route ${routeKey}`);
  return route.function;
}
