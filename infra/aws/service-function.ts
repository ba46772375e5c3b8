import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Duration, Stack, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays, type CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ConfigName } from '#shared/config.ts';
import { SECRETS_MANAGER_SDK_COMPANION_GLOBAL } from '#shared/auth/signing-secret.ts';
import { CHECKOUT_CHILD_GLOBAL, CHECKOUT_CHILD_SOURCE } from '#shared/grading/checkout/process.ts';
import { CODEBUILD_ENGINE_GLOBAL } from '#shared/grading/worker/engines.ts';
import { MULTIPART_COMPANION_GLOBAL } from '#shared/http/middleware/body.ts';
import { S3_SDK_COMPANION_GLOBAL } from '#shared/storage/objects.ts';
import { SQS_SDK_COMPANION_GLOBAL } from '#shared/sqs-send.ts';
import { GIT_HEAD_COMPANION_GLOBAL } from '#shared/submissions/commit.ts';
import { swaggerUiBundleSettings, type SwaggerUiBundling } from '#infra/docs-assets.ts';
import { COMMIT_FILES_COMPANION_GLOBAL } from '#shared/similarity/repository.ts';
import { GRAMMARS_FOLDER_GLOBAL, wasmSources } from '#shared/similarity/tokens.ts';

/** The repository root: esbuild's working directory, where `package.json` maps `#shared/*`. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** ESM bundles still meet CommonJS code that calls `require` for Node built-ins. */
const REQUIRE_SHIM = 'import{createRequire as __createRequire}from"node:module";const require=__createRequire(import.meta.url);';

export interface ServiceFunctionProps {
  /** The function's folder `functions/<handler>/`, whose `handler.ts` exports `handler`. */
  readonly handler: string;
  readonly description: string;
  /** Variables beyond the defaults (table names, the secret's ARN). */
  readonly environment?: Readonly<Record<string, string>>;
  /** What happens to the function's log group when it leaves the stack. */
  readonly logRemovalPolicy: RemovalPolicy;
  readonly memorySize?: number;
  /** How long one invocation may run: each kind of function has its own reason. */
  readonly timeout: Duration;
  /**
   * The function grades in CodeBuild: its asset carries the CodeBuild engine (with the checkout
   * and the S3 and CodeBuild clients) and the checkout process beside the handler.
   */
  readonly checkoutProcess?: boolean;
  /** The function links or serves Swagger UI (the reference page's functions). */
  readonly swaggerUi?: SwaggerUiBundling;
}

/**
 * One function of the service as a Lambda function, with the defaults every function shares:
 * Node 24 on arm64, bundled locally by esbuild as minified ESM with source maps and the AWS SDK
 * inside, 1 GB, its own log group with limited retention, a role that may only write those logs,
 * and alarms on errors and throttles. Grants (tables, secret, queues) and triggers (routes, queues,
 * the schedule) are the stack's to add; `ApiFunction` is a route handler.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly errorsAlarm: Alarm;
  readonly throttlesAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    assertLocalEsbuild();

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy,
    });
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs functions/${props.handler}/handler.ts`,
    });
    this.logGroup.grantWrite(role);
    const stack = Stack.of(this);
    const logGroupId = stack.resolve(stack.getLogicalId(this.logGroup.node.defaultChild as CfnLogGroup)) as string;
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logGroupId}.Arn>:*]`,
      reason: "The function writes log streams in its own log group only; Lambda chooses the streams' names.",
    });

    this.function = new NodejsFunction(this, 'Function', {
      ...bundledCode(`${PROJECT_ROOT}functions/${props.handler}/handler.ts`, {
        checkoutProcess: props.checkoutProcess === true,
        swaggerUi: props.swaggerUi,
      }),
      description: props.description,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout,
      role,
      logGroup: this.logGroup,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        ['POWERTOOLS_SERVICE_NAME' satisfies ConfigName]: 'course-submission-api',
        ...props.environment,
      },
    });

    this.errorsAlarm = new Alarm(this, 'ErrorsAlarm', {
      alarmDescription: `functions/${props.handler}/handler.ts failed (an uncaught error or a time-out)`,
      metric: this.function.metricErrors({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.throttlesAlarm = new Alarm(this, 'ThrottlesAlarm', {
      alarmDescription: `functions/${props.handler}/handler.ts was throttled (concurrency limit reached)`,
      metric: this.function.metricThrottles({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}

/** The file name of the checkout process (shared/grading/checkout/child.ts) in a function's asset. */
const CHECKOUT_CHILD_FILE = 'checkout-child.mjs';
/** The multipart body parser (shared/http/middleware/multipart.ts), loaded by the first multipart body only. */
const MULTIPART_SOURCE = `${PROJECT_ROOT}shared/http/middleware/multipart.ts`;
const MULTIPART_FILE = 'multipart.mjs';
/** The CodeBuild grading engine (shared/grading/builds/codebuild.ts), loaded by the grading worker's first job. */
const CODEBUILD_ENGINE_SOURCE = `${PROJECT_ROOT}shared/grading/builds/codebuild.ts`;
const CODEBUILD_ENGINE_FILE = 'codebuild-engine.mjs';
/** The S3 client and commands (shared/storage/s3-sdk.ts), loaded by the first object operation. */
const S3_SDK_SOURCE = `${PROJECT_ROOT}shared/storage/s3-sdk.ts`;
const S3_SDK_FILE = 's3-sdk.mjs';
/** The Secrets Manager client (shared/auth/secrets-manager-sdk.ts), loaded by the first read of the signing secret. */
const SECRETS_MANAGER_SDK_SOURCE = `${PROJECT_ROOT}shared/auth/secrets-manager-sdk.ts`;
const SECRETS_MANAGER_SDK_FILE = 'secrets-manager-sdk.mjs';
/** The SQS client (shared/sqs-sdk.ts), loaded by the first message sent to a queue. */
const SQS_SDK_SOURCE = `${PROJECT_ROOT}shared/sqs-sdk.ts`;
const SQS_SDK_FILE = 'sqs-sdk.mjs';
/** The git client reading a repository's head (shared/grading/checkout/head.ts), loaded by the first submission from git. */
const GIT_HEAD_SOURCE = `${PROJECT_ROOT}shared/grading/checkout/head.ts`;
const GIT_HEAD_FILE = 'git-head.mjs';
/**
 * The git client reading a recorded commit's files (shared/grading/checkout/commit-files.ts), loaded
 * by a similarity run's first repository version; it starts the checkout process, bundled beside it.
 */
const COMMIT_FILES_SOURCE = `${PROJECT_ROOT}shared/grading/checkout/commit-files.ts`;
const COMMIT_FILES_FILE = 'commit-files.mjs';
const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The command bundling `source` into `outfile`, as the function itself is bundled (with `define`). */
const companionBundle = (source: string, outfile: string, define: Readonly<Record<string, string>> = {}) =>
  [
    'npx --no-install esbuild',
    shellQuote(source),
    '--bundle --platform=node --format=esm --target=node24 --main-fields=module,main --minify --log-level=warning',
    shellQuote(`--banner:js=${REQUIRE_SHIM}`),
    ...Object.entries(define).map(([name, value]) => shellQuote(`--define:${name}=${value}`)),
    shellQuote(`--outfile=${outfile}`),
  ].join(' ');

/**
 * The same, only when the function's bundle names the companion file: the code that loads it
 * survived esbuild's tree shaking, so the function may need it (no function can miss it, and
 * functions that never load it do not carry it).
 */
/** The folder of the similarity tokenizer's WebAssembly files beside a bundle that tokenizes (shared/similarity/tokens.ts). */
export const SIMILARITY_GRAMMARS_FOLDER = 'similarity-grammars';

/** The WebAssembly files copied into it, only when the function's bundle names the folder (its code tokenizes). */
const grammarsIfNamed = (outputDir: string) => {
  const target = `${outputDir}/${SIMILARITY_GRAMMARS_FOLDER}`;
  const copies = wasmSources().map(({ source, file }) => `cp ${shellQuote(source)} ${shellQuote(`${target}/${file}`)}`);
  return `if grep -qF ${shellQuote(SIMILARITY_GRAMMARS_FOLDER)} ${shellQuote(`${outputDir}/index.mjs`)}; then mkdir -p ${shellQuote(target)} && ${copies.join(' && ')}; fi`;
};

const companionBundleIfNamed = (
  outputDir: string,
  source: string,
  file: string,
  define: Readonly<Record<string, string>> = {},
  beside: readonly [source: string, file: string][] = [],
) =>
  `if grep -qF ${shellQuote(file)} ${shellQuote(`${outputDir}/index.mjs`)}; then ${[
    companionBundle(source, `${outputDir}/${file}`, define),
    ...beside.map(([besideSource, besideFile]) => companionBundle(besideSource, `${outputDir}/${besideFile}`)),
  ].join(' && ')}; fi`;

export interface BundleOptions {
  /** The grading worker: the CodeBuild engine and the checkout process go beside its bundle. */
  readonly checkoutProcess?: boolean;
  /** The function links (the reference page) or serves (its assets) Swagger UI's files. */
  readonly swaggerUi?: SwaggerUiBundling;
}

/**
 * How a handler module becomes Lambda code: its entry, Node 24 on arm64, and the esbuild settings
 * (minified ESM with source maps and the AWS SDK inside). `npm run bench` bundles with exactly these.
 * Code a request may never need is bundled into companion files of the asset, which the handler's
 * bundle knows by name and imports when first needed: the multipart body parser, the S3, Secrets
 * Manager and SQS clients, the git client that reads a repository's head and the one that reads a
 * recorded commit's files with the checkout process it starts (beside the bundles that name them), and with
 * `checkoutProcess` the CodeBuild engine (worker/engines.ts loads it for the first job) and the checkout
 * process (checkout/process.ts starts it). With `swaggerUi`, the
 * reference page's functions get Swagger UI from node_modules (infra/docs-assets.ts).
 */
export function bundledCode(entry: string, options: BundleOptions = {}) {
  const checkoutChild = { [CHECKOUT_CHILD_GLOBAL]: JSON.stringify(CHECKOUT_CHILD_FILE) };
  const companions: [source: string, file: string, define?: Readonly<Record<string, string>>][] = [
    [MULTIPART_SOURCE, MULTIPART_FILE],
    ...(options.checkoutProcess
      ? [
          [CHECKOUT_CHILD_SOURCE, CHECKOUT_CHILD_FILE] as [string, string],
          [CODEBUILD_ENGINE_SOURCE, CODEBUILD_ENGINE_FILE, checkoutChild] as [string, string, Record<string, string>],
        ]
      : []),
  ];
  // Beside the bundles that name them only (the commit reader with the checkout process it starts).
  const namedCompanions: [
    source: string,
    file: string,
    global: string,
    define?: Readonly<Record<string, string>>,
    beside?: readonly [string, string][],
  ][] = [
    [S3_SDK_SOURCE, S3_SDK_FILE, S3_SDK_COMPANION_GLOBAL],
    [SECRETS_MANAGER_SDK_SOURCE, SECRETS_MANAGER_SDK_FILE, SECRETS_MANAGER_SDK_COMPANION_GLOBAL],
    [SQS_SDK_SOURCE, SQS_SDK_FILE, SQS_SDK_COMPANION_GLOBAL],
    [GIT_HEAD_SOURCE, GIT_HEAD_FILE, GIT_HEAD_COMPANION_GLOBAL],
    ...(options.checkoutProcess
      ? []
      : [
          [
            COMMIT_FILES_SOURCE,
            COMMIT_FILES_FILE,
            COMMIT_FILES_COMPANION_GLOBAL,
            checkoutChild,
            [[CHECKOUT_CHILD_SOURCE, CHECKOUT_CHILD_FILE]],
          ] as [string, string, string, Record<string, string>, [string, string][]],
        ]),
  ];
  const swaggerUi = options.swaggerUi ? swaggerUiBundleSettings(options.swaggerUi) : undefined;
  return {
    entry,
    handler: 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    bundling: {
      format: OutputFormat.ESM,
      mainFields: ['module', 'main'],
      banner: REQUIRE_SHIM,
      minify: true,
      sourceMap: true,
      sourcesContent: false,
      bundleAwsSDK: true,
      forceDockerBundling: false,
      logLevel: LogLevel.WARNING,
      define: {
        [MULTIPART_COMPANION_GLOBAL]: JSON.stringify(MULTIPART_FILE),
        ...Object.fromEntries(namedCompanions.map(([, file, global]) => [global, JSON.stringify(file)])),
        ...(options.checkoutProcess ? { ...checkoutChild, [CODEBUILD_ENGINE_GLOBAL]: JSON.stringify(CODEBUILD_ENGINE_FILE) } : {}),
        ...swaggerUi?.define,
        [GRAMMARS_FOLDER_GLOBAL]: JSON.stringify(SIMILARITY_GRAMMARS_FOLDER),
      },
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (_inputDir: string, outputDir: string) => [
          ...companions.map(([source, file, define]) => companionBundle(source, `${outputDir}/${file}`, define)),
          ...namedCompanions.map(([source, file, , define, beside]) => companionBundleIfNamed(outputDir, source, file, define, beside)),
          ...(swaggerUi ? swaggerUi.afterBundling(outputDir) : []),
          grammarsIfNamed(outputDir),
        ],
      },
    },
  } satisfies NodejsFunctionProps;
}

/** Bundling must never fall back to Docker (there may be none): fail clearly instead. */
function assertLocalEsbuild(): void {
  try {
    createRequire(import.meta.url).resolve('esbuild');
  } catch {
    throw new Error('esbuild is not installed: run `npm ci` (functions are bundled locally, never in Docker)');
  }
}
