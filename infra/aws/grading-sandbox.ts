import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { BundlingOutput, DockerImage, Duration, Stack, Token, Validations, type CfnElement, type RemovalPolicy } from 'aws-cdk-lib';
import {
  BuildSpec,
  ComputeType,
  EnvironmentType,
  Fleet,
  FleetComputeType,
  FleetOverflowBehavior,
  LinuxBuildImage,
  Project,
  type IBuildImage,
} from 'aws-cdk-lib/aws-codebuild';
import { Repository } from 'aws-cdk-lib/aws-ecr';
import {
  FlowLogTrafficType,
  GatewayVpcEndpoint,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpointAwsService,
  Peer,
  Port,
  SecurityGroup,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { AnyPrincipal, Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';
import { ecrImage, type EcrImage } from '#shared/grading/builds/images.ts';

/** The harness (shared/grading/harness/main.ts), bundled into one file at synth by the local esbuild. */
const HARNESS_ENTRY = fileURLToPath(new URL('../../shared/grading/harness/main.ts', import.meta.url));
const HARNESS_FOLDER = fileURLToPath(new URL('../../shared/grading/harness/', import.meta.url));
export const HARNESS_FILE = 'harness.mjs';

/** Objects of a job (its files, its result) are deleted by the worker, and expire after a day regardless. */
const JOB_OBJECT_DAYS = 1;

export interface GradingSandboxProps {
  /** Approved build images by the name a gradeable's `autograding.image` uses; `default` is used when it names none. */
  readonly images: Readonly<Record<string, string>>;
  /** Grading builds that may run at once; more wait in the grading queue. */
  readonly concurrency: number;
  /** The longest a build may run (the worker's own limit is the ceiling). */
  readonly buildTimeout: Duration;
  readonly removalPolicy: RemovalPolicy;
  /** Machines of a reserved-capacity fleet for the builds (more builds overflow to on-demand); none: on-demand only. */
  readonly fleet?: number;
}

/**
 * Where students' code runs in AWS: an AWS CodeBuild project, so every grading job gets a fresh
 * container that is never reused, with the curated images' toolchains (gcc/g++/make, Java,
 * Python, Node). Its builds run in a VPC of isolated subnets (no internet or NAT gateway) whose
 * only ways out are an S3 gateway endpoint limited to the job objects, and a
 * CloudWatch Logs endpoint; the build's role may write its own logs, manage its network
 * interfaces (which CodeBuild needs in a VPC) and read its own job's input, nothing else. The
 * build's definition carries no URL or credential: the build reads its input, named by its own
 * build ARN, with its role's credentials, and puts its result through a presigned URL that came
 * inside that input and that the bucket honours only through the VPC's S3 endpoint. Nobody but the
 * worker's role and, for reading inputs, the builds' role reaches a job object. Job objects expire
 * within a day.
 */
export class GradingSandbox extends Construct {
  readonly project: Project;
  readonly jobsBucket: Bucket;
  readonly harness: Asset;
  readonly logGroup: LogGroup;
  readonly vpc: Vpc;
  /** The builds' only way to S3: the jobs bucket honours presigned requests through it alone. */
  readonly s3Endpoint: GatewayVpcEndpoint;
  readonly buildRole: Role;
  private readonly images: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: GradingSandboxProps) {
    super(scope, id);
    this.images = props.images;

    this.harness = new Asset(this, 'Harness', {
      path: HARNESS_FOLDER,
      bundling: {
        // Never used: the local esbuild always bundles (tryBundle answers true), so nothing needs Docker.
        image: DockerImage.fromRegistry('local-esbuild-only'),
        // One .mjs object, not a zip: the build fetches and runs it as it is.
        outputType: BundlingOutput.SINGLE_FILE,
        local: {
          tryBundle(outputDir: string): boolean {
            bundleHarness(`${outputDir}/${HARNESS_FILE}`);
            return true;
          },
        },
      },
    });

    this.jobsBucket = new Bucket(this, 'Jobs', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [{ expiration: Duration.days(JOB_OBJECT_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: props.removalPolicy,
    });

    this.vpc = new Vpc(this, 'Vpc', {
      natGateways: 0,
      maxAzs: 2,
      subnetConfiguration: [{ name: 'grading', subnetType: SubnetType.PRIVATE_ISOLATED }],
      restrictDefaultSecurityGroup: false,
      // Refused connections are logged: a build trying to reach anything else shows up here.
      flowLogs: { rejected: { trafficType: FlowLogTrafficType.REJECT } },
    });
    const builds = new SecurityGroup(this, 'Builds', {
      vpc: this.vpc,
      allowAllOutbound: false,
      description: 'Grading builds: HTTPS to S3 (job objects) and CloudWatch Logs only',
    });
    this.s3Endpoint = this.vpc.addGatewayEndpoint('S3', { service: GatewayVpcEndpointAwsService.S3 });
    // Through the endpoint only the job objects, whatever credentials a request carries (the harness comes in the job's input).
    this.s3Endpoint.addToPolicy(
      new PolicyStatement({
        principals: [new AnyPrincipal()],
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [this.jobsBucket.arnForObjects('jobs/*')],
      }),
    );
    // A presigned URL of a job object works from inside the grading VPC only: one read from a build's
    // definition (its console page, CloudTrail's StartBuild record) is refused anywhere else.
    this.jobsBucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'PresignedOnlyThroughTheGradingVpc',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:*'],
        resources: [this.jobsBucket.arnForObjects('*')],
        conditions: {
          StringNotEquals: { 's3:authType': 'REST-HEADER', 'aws:SourceVpce': this.s3Endpoint.vpcEndpointId },
        },
      }),
    );
    // The subnets route nowhere but to the VPC and the S3 endpoint, so HTTPS "anywhere" reaches only S3 (as
    // the endpoint policy allows) and the interface endpoints. Students' commands have no network at all.
    builds.addEgressRule(Peer.anyIpv4(), Port.tcp(443), 'HTTPS to the S3 gateway endpoint and the logs endpoint (no other route exists)');
    const logsEndpoint = this.vpc.addInterfaceEndpoint('Logs', {
      service: InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS,
      subnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
      open: false,
    });
    logsEndpoint.connections.allowFrom(builds, Port.tcp(443), 'Grading builds write their logs');

    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: props.removalPolicy });
    // The build's role, stated in full: its own logs and the network interfaces CodeBuild attaches
    // to the VPC. The project gets it without policy updates, so CodeBuild's defaults (report
    // groups) are not added.
    this.buildRole = new Role(this, 'BuildRole', {
      assumedBy: new ServicePrincipal('codebuild.amazonaws.com'),
      description: 'Grading builds: write their own logs, attach to the grading VPC; nothing else',
    });
    this.logGroup.grantWrite(this.buildRole);
    // Its own jobs' inputs only: CodeBuild resolves the variable to the ARN of the build using the
    // role. The build fetches each input outside the sandboxes of the jobs before it (no student
    // command has a network, so none reaches S3 or the credentials endpoint).
    this.buildRole.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.jobsBucket.arnForObjects('jobs/${codebuild:buildArn}/*/input.tgz')],
      }),
    );
    // The bucket agrees to no more, whatever the role's policy is widened to: the builds read job inputs, nothing else.
    this.jobsBucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'BuildsOnlyReadJobInputs',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        notActions: ['s3:GetObject'],
        resources: [this.jobsBucket.arnForObjects('*')],
        conditions: { ArnEquals: { 'aws:PrincipalArn': this.buildRole.roleArn } },
      }),
    );
    // Only from inside the grading VPC: the role's credentials are no use to whoever copies them out of a build.
    this.jobsBucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'BuildsOnlyThroughTheGradingVpc',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:*'],
        resources: [this.jobsBucket.arnForObjects('*')],
        conditions: {
          ArnEquals: { 'aws:PrincipalArn': this.buildRole.roleArn },
          StringNotEquals: { 'aws:SourceVpce': this.s3Endpoint.vpcEndpointId },
        },
      }),
    );
    this.jobsBucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'BuildsReadNothingButJobInputs',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:GetObject'],
        notResources: [this.jobsBucket.arnForObjects('jobs/*/input.tgz')],
        conditions: { ArnEquals: { 'aws:PrincipalArn': this.buildRole.roleArn } },
      }),
    );
    const stack = Stack.of(this);
    this.buildRole.addToPolicy(
      new PolicyStatement({
        actions: [
          'ec2:CreateNetworkInterface',
          'ec2:DeleteNetworkInterface',
          'ec2:DescribeDhcpOptions',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DescribeSecurityGroups',
          'ec2:DescribeSubnets',
          'ec2:DescribeVpcs',
        ],
        resources: ['*'],
      }),
    );
    this.buildRole.addToPolicy(
      new PolicyStatement({
        actions: ['ec2:CreateNetworkInterfacePermission'],
        resources: [stack.formatArn({ service: 'ec2', resource: 'network-interface', resourceName: '*' })],
        conditions: {
          StringEquals: { 'ec2:AuthorizedService': 'codebuild.amazonaws.com' },
          ArnEquals: {
            'ec2:Subnet': this.vpc.isolatedSubnets.map((subnet) =>
              stack.formatArn({ service: 'ec2', resource: 'subnet', resourceName: subnet.subnetId }),
            ),
          },
        },
      }),
    );
    const defaultImage = props.images.default;
    if (!defaultImage) throw new Error('GradingSandbox needs a `default` entry in props.images (the build image of the project).');
    const ecrImages = Object.values(props.images).flatMap((image) => ecrImage(image) ?? []);
    if (ecrImages.length > 0) this.allowImagePulls(ecrImages, builds);
    // Warm machines, so a build starts in seconds; each job still gets fresh sandboxes inside it.
    const fleet =
      props.fleet && props.fleet > 0
        ? new Fleet(this, 'Fleet', {
            baseCapacity: props.fleet,
            computeType: FleetComputeType.SMALL,
            environmentType: EnvironmentType.LINUX_CONTAINER,
            overflowBehavior: FleetOverflowBehavior.ON_DEMAND,
            vpc: this.vpc,
            subnetSelection: { subnetType: SubnetType.PRIVATE_ISOLATED },
            securityGroups: [builds],
          })
        : undefined;
    this.project = new Project(this, 'Project', {
      role: this.buildRole.withoutPolicyUpdates(),
      description: "Runs one grading job: students' code, in a fresh container with no way out but its job's objects",
      environment: {
        buildImage: buildImage(this, defaultImage),
        computeType: ComputeType.SMALL,
        privileged: true,
        ...(fleet ? { fleet } : {}),
      },
      buildSpec: BuildSpec.fromObject(GRADING_BUILD_SPEC),
      // Not a secret: the build reads its own input from this bucket (see shared/grading/builds/input.ts).
      environmentVariables: { JOBS_BUCKET: { value: this.jobsBucket.bucketName } },
      vpc: this.vpc,
      subnetSelection: { subnetType: SubnetType.PRIVATE_ISOLATED },
      securityGroups: [builds],
      timeout: props.buildTimeout,
      queuedTimeout: Duration.minutes(30),
      concurrentBuildLimit: props.concurrency,
      logging: { cloudWatch: { logGroup: this.logGroup } },
    });
    // CodeBuild checks the role's VPC permissions when the project is created.
    this.project.node.addDependency(this.buildRole);
    this.acknowledgeFindings();
  }

  /**
   * What the worker needs: put the job's files, read its result, presign the result's upload, read
   * the harness, start and watch builds. Its role and the builds' (reading inputs) become the only
   * ones the jobs bucket lets at the job objects (a read-only console user, say, reads none of the
   * hidden test cases' expected outputs).
   */
  grantWorker(worker: IFunction, owner: Construct): void {
    if (!worker.role) throw new Error('The grading worker needs a role of its own: the jobs bucket admits that role alone');
    const bucketId = Stack.of(this).resolve(Stack.of(this).getLogicalId(this.jobsBucket.node.defaultChild as CfnElement)) as string;
    Validations.of(owner).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/jobs/*]`,
      reason: 'Each job’s objects get a fresh name under jobs/ at run time; the prefix holds job objects only.',
    });
    this.jobsBucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'JobObjectsOnlyForTheWorkerAndItsBuilds',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:*'],
        resources: [this.jobsBucket.arnForObjects('*')],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': [worker.role.roleArn, this.buildRole.roleArn] } },
      }),
    );
    worker.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
        resources: [this.jobsBucket.arnForObjects('jobs/*')],
      }),
    );
    worker.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.harness.bucket.arnForObjects(this.harness.s3ObjectKey)] }),
    );
    worker.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['codebuild:StartBuild', 'codebuild:BatchGetBuilds', 'codebuild:StopBuild'],
        resources: [this.project.projectArn],
      }),
    );
  }

  /** The worker's variables naming the sandbox. */
  workerEnvironment(): Record<string, string> {
    return {
      GRADING_PROJECT: this.project.projectName,
      GRADING_BUCKET: this.jobsBucket.bucketName,
      GRADING_HARNESS: `s3://${this.harness.s3BucketName}/${this.harness.s3ObjectKey}`,
      GRADING_IMAGES: JSON.stringify(this.images),
    };
  }

  /**
   * The way to pull images of private ECR repositories pinned by digest, opened only when the
   * deployment offers such an image: CodeBuild pulls them with the build's role, from inside the
   * grading VPC. The role and the two ECR endpoints admit pulls of the offered repositories only;
   * the layers come from ECR's own bucket of the region, which the S3 endpoint lets builds read.
   * Students' commands still have no network: the way is the build's, before any job runs.
   */
  private allowImagePulls(images: readonly EcrImage[], builds: SecurityGroup): void {
    const stack = Stack.of(this);
    for (const image of images) {
      if (!Token.isUnresolved(stack.region) && image.region !== stack.region) {
        throw new Error(
          `The grading image ${image.repository}@${image.digest} is in ${image.region}: the grading VPC reaches ECR in its own region (${stack.region}) only`,
        );
      }
    }
    const repositories = [
      ...new Set(
        images.map(({ region, account, repository }) => `arn:${stack.partition}:ecr:${region}:${account}:repository/${repository}`),
      ),
    ];
    const pull = ['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'];
    this.buildRole.addToPolicy(new PolicyStatement({ actions: ['ecr:GetAuthorizationToken'], resources: ['*'] }));
    this.buildRole.addToPolicy(new PolicyStatement({ actions: pull, resources: repositories }));
    const byBuilds = { ArnEquals: { 'aws:PrincipalArn': this.buildRole.roleArn } };
    for (const [id, service] of [
      ['EcrApi', InterfaceVpcEndpointAwsService.ECR],
      ['EcrDocker', InterfaceVpcEndpointAwsService.ECR_DOCKER],
    ] as const) {
      const endpoint = this.vpc.addInterfaceEndpoint(id, { service, subnets: { subnetType: SubnetType.PRIVATE_ISOLATED }, open: false });
      endpoint.connections.allowFrom(builds, Port.tcp(443), 'Grading builds pull their image');
      endpoint.addToPolicy(
        new PolicyStatement({
          principals: [new AnyPrincipal()],
          actions: ['ecr:GetAuthorizationToken'],
          resources: ['*'],
          conditions: byBuilds,
        }),
      );
      endpoint.addToPolicy(
        new PolicyStatement({ principals: [new AnyPrincipal()], actions: pull, resources: repositories, conditions: byBuilds }),
      );
    }
    // ECR hands out layers as presigned URLs of its own bucket: read-only, and nobody's data but the images'.
    this.s3Endpoint.addToPolicy(
      new PolicyStatement({
        principals: [new AnyPrincipal()],
        actions: ['s3:GetObject'],
        resources: [`arn:${stack.partition}:s3:::prod-${stack.region}-starport-layer-bucket/*`],
      }),
    );
  }

  private acknowledgeFindings(): void {
    const stack = Stack.of(this);
    Validations.of(this.jobsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Job objects live for minutes and only the worker’s and the builds’ roles reach them (a build its own input only, through the grading VPC); CloudTrail records the worker’s API calls.',
    });
    Validations.of(this.project).acknowledge({
      id: 'AwsSolutions-CB4',
      reason: 'Build artifacts are not used; the job’s objects are encrypted by the bucket (SSE-S3).',
    });
    const logGroupId = stack.resolve(stack.getLogicalId(this.logGroup.node.defaultChild as CfnElement)) as string;
    Validations.of(this.buildRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logGroupId}.Arn>:*]`,
      reason: "The build writes log streams in its own log group only; CodeBuild chooses the streams' names.",
    });
    Validations.of(this.buildRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${stack.resolve(stack.getLogicalId(this.jobsBucket.node.defaultChild as CfnElement)) as string}.Arn>/jobs/<codebuild:buildArn>/*/input.tgz]`,
      reason: "A build reads the inputs of its own jobs only: the wildcard is the job's slot (1, 2, …) under the build's own ARN.",
    });
    Validations.of(this.project).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "The VPC policy CodeBuild's construct drafts is never attached (the project gets BuildRole without policy updates); BuildRole states the same permissions.",
    });
    Validations.of(this.buildRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'CodeBuild needs ec2:Describe*, CreateNetworkInterface and DeleteNetworkInterface on * to attach a build to the VPC; ecr:GetAuthorizationToken (where ECR images are offered) has no resource but *.',
    });
    Validations.of(this.buildRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:network-interface/*]',
      reason:
        'CodeBuild names the interfaces it creates; the permission is limited to CodeBuild and the grading subnets by its conditions.',
    });
  }
}

/** The project's image: a curated one by its id, an ECR one (pinned by digest) pulled with the build's role. */
function buildImage(scope: Construct, image: string): IBuildImage {
  const ecr = ecrImage(image);
  if (!ecr) return LinuxBuildImage.fromCodeBuildImageId(image);
  return LinuxBuildImage.fromEcrRepository(
    Repository.fromRepositoryAttributes(scope, 'DefaultImageRepository', {
      repositoryArn: `arn:${Stack.of(scope).partition}:ecr:${ecr.region}:${ecr.account}:repository/${ecr.repository}`,
      repositoryName: ecr.repository,
    }),
    ecr.digest,
  );
}

/** The build's fetching step (shared/grading/builds/input.ts), its types stripped, run by the image's Node. */
const BUILD_INPUT = fileURLToPath(new URL('../../shared/grading/builds/input.ts', import.meta.url));
/** Exit status of the fetching step when the worker has no further job for the build. */
const NO_FURTHER_JOB = 3;
function fetchInputCommand(target: string, slot: string): string {
  const { transformSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const { code } = transformSync(readFileSync(BUILD_INPUT, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node18',
    minifyWhitespace: true,
    minifySyntax: true,
    // One line: no template literal that would carry a line break.
    supported: { 'template-literal': false },
  });
  // A failure says its message only, not the whole one-line script as an uncaught error would.
  const script = `${code.trim()};const got=await fetchJobInput(process.argv[1],Number(process.argv[2])).catch((error)=>{console.error(error.message);process.exit(1)});process.exit(got==='end'?${NO_FURTHER_JOB}:0);`;
  return `node --input-type=module -e '${script.replace(/'/g, `'\\''`)}' ${target} ${slot}`;
}

/**
 * One grading build, as root in a fresh privileged container, running the jobs the worker gives
 * it one after another until it says there is none: for each job, fetch its archive (slot 1, 2, …
 * under the build's own ARN, read with the build role's credentials: the build's definition
 * carries no URL), unpack the harness and the result's presigned URL from it for root alone and
 * the rest as the grader (uid 1001) into a folder of this job only it may read, run the harness,
 * put the result, which the harness signs with the job's own key, and remove the job's folder. A
 * job's test cases run in `container` isolation: a sandbox with the protections of the local
 * bubblewrap one (a read-only root holding only the toolchain, so nothing of /grading, neither
 * this job's folder nor the next job's input, which is fetched only once this job's sandboxes
 * are gone; uid 1002 without capabilities and unable to make a user namespace; its own loopback
 * only, so no way to the credentials endpoint or S3; an environment of PATH, HOME and LANG only;
 * its limits), made with the image's util-linux, which is why the build is privileged; a build
 * that cannot make it fails. Any failing step ends the build (the worker retries its job once).
 */
export const GRADING_BUILD_SPEC = {
  version: '0.2',
  env: { shell: 'bash' },
  phases: {
    build: {
      commands: [
        'set -euo pipefail',
        'install -d -m 0711 /grading',
        [
          'slot=1',
          'while true; do',
          '  job=/grading/$slot',
          '  install -d -m 0711 $job && install -d -o 1001 -g 1001 -m 0700 $job/job',
          `  fetched=0; ${fetchInputCommand('$job/input.tgz', '$slot')} || fetched=$?`,
          `  if [ $fetched = ${NO_FURTHER_JOB} ]; then rm -rf $job; break; elif [ $fetched != 0 ]; then exit $fetched; fi`,
          '  chmod 0644 $job/input.tgz',
          '  (umask 077 && tar -xzf $job/input.tgz -C $job --no-same-owner --no-same-permissions harness.mjs result-url)',
          '  setpriv --reuid 1001 --regid 1001 --clear-groups tar -xzf $job/input.tgz -C $job/job --no-same-owner --no-same-permissions files job.json',
          '  node $job/harness.mjs --files $job/job/files --work $job/work --job $job/job/job.json --result $job/result.json',
          '  curl -fsS --retry 3 --max-time 120 -X PUT -H "Content-Type: application/json" --upload-file $job/result.json "$(cat $job/result-url)"',
          '  rm -rf $job',
          '  slot=$((slot + 1))',
          'done',
        ].join('\n'),
      ],
    },
  },
};

/** esbuild, the same way the harness is bundled for the local sandbox. */
function bundleHarness(outfile: string): void {
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  buildSync({
    entryPoints: [HARNESS_ENTRY],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node18',
    outfile,
    logLevel: 'warning',
    banner: { js: '// The grading harness (shared/grading/harness/main.ts), bundled.' },
  });
}
