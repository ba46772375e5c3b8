import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import os from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { END_OF_JOBS, jobKeys, presignS3 } from '#shared/grading/builds/input.ts';
import type { HarnessJob, HarnessResult } from '#shared/grading/harness/protocol.ts';
import { signResult } from '#shared/grading/harness/result-signature.ts';
import { readableNode } from '#shared/grading/runner/readable-node.ts';
import { ACCOUNT, REGION, type CodeBuildProject, type Deployment } from './cloudformation.ts';
import { sessionArn, type PolicyEvaluator, type Principal } from './iam.ts';
import type { Credentials } from './lambda-service.ts';
import type { Reply } from './s3.ts';

/** A harness result in which every one of `testCases` passed: what an emulated host reports. */
export const allPassed = (testCases: readonly { readonly name: string }[]): HarnessResult => ({
  testCases: testCases.map(({ name }) => ({ name, passed: true, message: 'Passed', timedOut: false, exitCode: 0, autochecks: [] })),
});

const JSON_11 = 'application/x-amz-json-1.1';
const json = (status: number, body: unknown): Reply => ({ status, headers: { 'content-type': JSON_11 }, body: JSON.stringify(body) });
const error = (type: string, message: string, status = 400): Reply => json(status, { __type: type, message });

/** CodeBuild's phases, in order. */
const PHASES = [
  'SUBMITTED',
  'QUEUED',
  'PROVISIONING',
  'DOWNLOAD_SOURCE',
  'INSTALL',
  'PRE_BUILD',
  'BUILD',
  'POST_BUILD',
  'UPLOAD_ARTIFACTS',
  'FINALIZING',
  'COMPLETED',
] as const;
type PhaseType = (typeof PHASES)[number];
const SCRIPT_PHASES = ['install', 'pre_build', 'build', 'post_build'] as const;
type BuildStatus = 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED' | 'FAULT' | 'STOPPED' | 'TIMED_OUT';

/** The image's PATH (CodeBuild's standard images): the build gets nothing of the test's environment. */
const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Docker's default capabilities: what a build gets when the project is not privileged. */
const UNPRIVILEGED_CAPABILITIES = [
  'chown',
  'dac_override',
  'fowner',
  'fsetid',
  'kill',
  'setgid',
  'setuid',
  'setpcap',
  'net_bind_service',
  'net_raw',
  'sys_chroot',
  'mknod',
  'audit_write',
  'setfcap',
];
const LOG_LINES_KEPT = 300;
const VPC_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeDhcpOptions',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DeleteNetworkInterface',
  'ec2:DescribeSubnets',
  'ec2:DescribeSecurityGroups',
  'ec2:DescribeVpcs',
];

interface Phase {
  readonly phaseType: PhaseType;
  phaseStatus?: string;
  readonly startTime: number;
  endTime?: number;
  contexts?: { statusCode: string; message: string }[];
}

interface Build {
  readonly id: string;
  readonly arn: string;
  readonly uuid: string;
  readonly number: number;
  readonly project: CodeBuildProject;
  readonly initiator: string;
  readonly startTime: number;
  endTime?: number;
  status: BuildStatus;
  readonly phases: Phase[];
  readonly image: string;
  readonly environmentType: string;
  readonly computeType: string;
  readonly timeoutInMinutes: number;
  readonly variables: { name: string; value: string; type: string }[];
  readonly log: string[];
  /** The buildspec's command being run, for failure messages. */
  command?: { phase: string; index: number };
  /** The service role's session CodeBuild made for the build: what its container credentials act as. */
  session?: Principal;
  process?: ChildProcess;
  timer?: NodeJS.Timeout;
  /** Set when StopBuild or the time-out ended it. */
  ending?: 'STOPPED' | 'TIMED_OUT';
  /** Ends an emulated host's wait at once (StopBuild, the time-out). */
  wake?: () => void;
  readonly done: Promise<void>;
  finish: () => void;
}

/** A build that did not succeed, or a StartBuild CodeBuild would refuse: a problem of the day. */
export interface BuildProblem {
  readonly project: string;
  readonly build?: string;
  readonly message: string;
  readonly logTail?: string;
}

export interface CodeBuildOptions {
  readonly deployment: Deployment;
  readonly evaluator: PolicyEvaluator;
  /** A folder of the test's own: each build's (empty) mount point and set-up files, removed after it. */
  readonly workDirectory: string;
  /** The port of the local AWS endpoint: the address the build reaches S3 by, in its own namespace. */
  readonly endpointPort: number;
  /** Credentials of a role session: requests signed with them act as that session. */
  readonly issueCredentials: (principal: Principal) => Credentials;
  /** A Unix socket serving S3 as seen from the VPC (through its S3 gateway endpoints); undefined when it has none. */
  readonly vpcRoute: (vpcId: string) => Promise<string | undefined>;
  /**
   * How long each build stays in PROVISIONING before its container starts, in ms (none unless
   * given): the turnaround bench draws it from CodeBuild's start-up times.
   */
  readonly startupDelayMs?: () => number;
  /**
   * Asked as each build starts: an emulated build host (see `emulatedJobs`) instead of a container,
   * or undefined for a real container (the default).
   */
  readonly emulatedHost?: () => EmulatedHost | undefined;
}

/**
 * A build host emulated in wall-clock time: what a build does with its own machine's CPU (the
 * harness, its sandboxes, the test commands) is replaced by a wait of `jobMs(job)` per job, so that
 * more builds can run at once than this machine's cores could host. Everything between the build
 * and the worker stays as it is (S3 through the VPC's endpoint, with the build role's credentials).
 */
export interface EmulatedHost {
  /** How long the job occupies the build: its test cases' own time plus the per-job sandbox work. */
  readonly jobMs: (job: HarnessJob) => number;
}

interface BuildSpec {
  readonly version?: unknown;
  readonly env?: { shell?: string; variables?: Record<string, unknown>; [key: string]: unknown };
  readonly phases?: Record<
    string,
    { commands?: string[]; finally?: string[]; 'on-failure'?: string; 'runtime-versions'?: unknown; 'run-as'?: string }
  >;
  readonly [key: string]: unknown;
}

/**
 * AWS CodeBuild for the template's projects: StartBuild, BatchGetBuilds and StopBuild, each
 * evaluated against the caller's policies. A build is what the project says: CodeBuild assumes its
 * service role (trust policy), attaches it to the VPC (the role's EC2 grants) and writes its logs
 * (the role's log grants), then runs the project's own buildspec from the template, every phase's
 * commands in one shell process, as root, with the project's, the buildspec's and the overrides'
 * variables and CodeBuild's own (nothing of the test's environment), in a container of its own: new
 * mount, PID, IPC and UTS namespaces over a copy-on-write view of this machine's root (an overlay
 * whose upper layer is a tmpfs that vanishes with the build), a fresh /proc, a minimal /dev, empty
 * /tmp, /root and /home, the project folder hidden, and, in a VPC, a network namespace whose only
 * way out is S3 through the VPC's gateway endpoint (its policy applied). Not privileged: Docker's
 * default capabilities only. Status and phases are reported as CodeBuild does; the build's
 * timeout is enforced and StopBuild kills the whole build.
 */
export class CodeBuildService {
  readonly problems: BuildProblem[] = [];
  /** Each StartBuild as CloudTrail records it: who called, the request's parameters as sent, the build started. */
  readonly trail: {
    readonly principal: string;
    readonly requestParameters: Record<string, unknown>;
    responseElements?: Record<string, unknown>;
  }[] = [];
  private readonly builds = new Map<string, Build>();
  private readonly numbers = new Map<string, number>();
  private readonly options: CodeBuildOptions;
  private readonly offeredImages: Set<string>;
  private stopped = false;

  constructor(options: CodeBuildOptions) {
    this.options = options;
    // The images the template approves: the projects' own and every GRADING_IMAGES value a function is given.
    this.offeredImages = new Set(options.deployment.codeBuildProjects.map((project) => project.image));
    for (const fn of options.deployment.functions) {
      const images = fn.environment.GRADING_IMAGES;
      if (images) for (const image of Object.values(JSON.parse(images) as Record<string, string>)) this.offeredImages.add(image);
    }
  }

  /** Builds started so far (for checks of the day). */
  get started(): number {
    return this.builds.size;
  }

  /** Each build's start and end (epoch ms; no end while it runs), for what CodeBuild would bill. */
  buildTimes(): { readonly id: string; readonly startTime: number; readonly endTime: number | undefined }[] {
    return [...this.builds.values()].map((build) => ({ id: build.id, startTime: build.startTime, endTime: build.endTime }));
  }

  /** The last lines a build wrote (its own output and CodeBuild's `[Container]` lines). */
  logTail(id: string, lines = 12): string {
    return (this.builds.get(id)?.log ?? []).slice(-lines).join('\n');
  }

  async api(principal: Principal, operation: string, input: Record<string, unknown>): Promise<Reply | undefined> {
    switch (operation) {
      case 'StartBuild':
        return this.startBuild(principal, input);
      case 'BatchGetBuilds':
        return this.batchGetBuilds(principal, input);
      case 'StopBuild':
        return this.stopBuild(principal, input);
      default:
        return undefined;
    }
  }

  /** Kills every build that is still running and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    const running = [...this.builds.values()].filter((build) => build.status === 'IN_PROGRESS');
    for (const build of running) this.end(build, 'STOPPED');
    await Promise.all(running.map((build) => build.done));
  }

  // --- The API --------------------------------------------------------------------------------

  private project(reference: unknown): CodeBuildProject | undefined {
    const name = String(reference ?? '');
    return this.options.deployment.codeBuildProjects.find((project) => project.name === name || project.arn === name);
  }

  private async startBuild(principal: Principal, input: Record<string, unknown>): Promise<Reply> {
    const event: (typeof this.trail)[number] = { principal: principal.arn, requestParameters: structuredClone(input) };
    this.trail.push(event);
    const project = this.project(input.projectName);
    const projectArn = project?.arn ?? `arn:aws:codebuild:${REGION}:${ACCOUNT}:project/${String(input.projectName)}`;
    const decision = await this.options.evaluator.authorize(principal, 'codebuild:StartBuild', projectArn, {
      purpose: 'CodeBuild StartBuild',
    });
    if (!decision.allowed) return error('AccessDeniedException', decision.message);
    if (!project) return error('ResourceNotFoundException', `Project cannot be found: ${projectArn}`);
    const refuse = (message: string, type = 'InvalidInputException') => {
      this.problems.push({ project: project.logicalId, message: `StartBuild refused (${type}): ${message}` });
      return error(type, message);
    };

    const emulated = new Set([
      'projectName',
      'imageOverride',
      'environmentTypeOverride',
      'computeTypeOverride',
      'timeoutInMinutesOverride',
      'environmentVariablesOverride',
      'imagePullCredentialsTypeOverride',
      'idempotencyToken',
    ]);
    const unknown = Object.keys(input).filter((key) => !emulated.has(key) && input[key] !== undefined);
    if (unknown.length > 0) return refuse(`the deployed-artifact test does not emulate ${unknown.join(', ')}`, 'NotEmulated');
    const image = String(input.imageOverride ?? project.image);
    if (!this.offeredImages.has(image)) {
      return refuse(`the image ${image} is not one the template approves (${[...this.offeredImages].join(', ')})`);
    }
    // CodeBuild pulls a curated image with its own credentials only, any other with the project's role only.
    const pullCredentials = input.imagePullCredentialsTypeOverride;
    if (pullCredentials !== undefined) {
      const curated = image.startsWith('aws/codebuild/');
      if (pullCredentials !== (curated ? 'CODEBUILD' : 'SERVICE_ROLE'))
        return refuse(`The image ${image} cannot be pulled with ${String(pullCredentials)} credentials`);
    }
    const environmentType = String(input.environmentTypeOverride ?? project.environmentType);
    if (!['LINUX_CONTAINER', 'ARM_CONTAINER', 'LINUX_GPU_CONTAINER'].includes(environmentType))
      return refuse(`Invalid environment type: ${environmentType}`);
    if (/aarch64|arm/.test(image) !== (environmentType === 'ARM_CONTAINER'))
      return refuse(`The image ${image} cannot run in an environment of type ${environmentType}`);
    const computeType = String(input.computeTypeOverride ?? project.computeType);
    const timeoutInMinutes =
      input.timeoutInMinutesOverride === undefined ? project.timeoutInMinutes : Number(input.timeoutInMinutesOverride);
    if (!Number.isInteger(timeoutInMinutes) || timeoutInMinutes < 5 || timeoutInMinutes > 2160)
      return refuse(
        `1 validation error detected: Value '${timeoutInMinutes}' at 'timeoutInMinutesOverride' failed to satisfy constraint: Member must have value between 5 and 2160`,
      );
    const overrides = (input.environmentVariablesOverride ?? []) as { name?: string; value?: string; type?: string }[];
    for (const variable of overrides) {
      if (!variable.name || variable.value === undefined) return refuse('Environment variables need a name and a value');
      if (variable.name.startsWith('CODEBUILD_'))
        return refuse(`Invalid environment variable name: ${variable.name} (names starting with CODEBUILD_ are reserved)`);
      if ((variable.type ?? 'PLAINTEXT') !== 'PLAINTEXT')
        return refuse(`the deployed-artifact test does not emulate ${variable.type} environment variables`, 'NotEmulated');
    }
    const active = [...this.builds.values()].filter((build) => build.project === project && build.status === 'IN_PROGRESS').length;
    if (project.concurrentBuildLimit !== undefined && active >= project.concurrentBuildLimit) {
      return refuse(
        `Cannot have more than ${project.concurrentBuildLimit} active builds for the project ${project.name}`,
        'AccountLimitExceededException',
      );
    }

    const uuid = randomUUID();
    const number = (this.numbers.get(project.name) ?? 0) + 1;
    this.numbers.set(project.name, number);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const now = Date.now();
    const byName = new Map<string, { name: string; value: string; type: string }>();
    for (const variable of project.environmentVariables) byName.set(variable.name, variable);
    for (const variable of overrides)
      byName.set(variable.name!, { name: variable.name!, value: String(variable.value), type: 'PLAINTEXT' });
    const build: Build = {
      id: `${project.name}:${uuid}`,
      arn: `arn:aws:codebuild:${REGION}:${ACCOUNT}:build/${project.name}:${uuid}`,
      uuid,
      number,
      project,
      initiator: principal.arn.split('/').slice(1).join('/') || principal.label,
      startTime: now,
      status: 'IN_PROGRESS',
      phases: [{ phaseType: 'SUBMITTED', startTime: now }],
      image,
      environmentType,
      computeType,
      timeoutInMinutes,
      variables: [...byName.values()],
      log: [],
      done,
      finish,
    };
    this.builds.set(build.id, build);
    build.timer = setTimeout(() => this.end(build, 'TIMED_OUT'), timeoutInMinutes * 60_000);
    build.timer.unref();
    void this.run(build).catch((failure: Error) =>
      this.complete(build, 'FAULT', { statusCode: 'CLIENT_ERROR', message: `The emulator failed: ${failure.stack}` }),
    );
    event.responseElements = { build: this.describe(build) };
    return json(200, event.responseElements);
  }

  private async batchGetBuilds(principal: Principal, input: Record<string, unknown>): Promise<Reply> {
    const ids = (input.ids ?? []) as string[];
    if (ids.length === 0 || ids.length > 100) return error('InvalidInputException', 'ids must hold 1 to 100 build ids');
    const builds: unknown[] = [];
    const buildsNotFound: string[] = [];
    for (const id of ids) {
      const build = this.builds.get(id) ?? [...this.builds.values()].find((candidate) => candidate.arn === id);
      const projectName = id.replace(/^arn:aws:codebuild:[^:]+:\d{12}:build\//, '').split(':')[0]!;
      const projectArn = build?.project.arn ?? `arn:aws:codebuild:${REGION}:${ACCOUNT}:project/${projectName}`;
      const decision = await this.options.evaluator.authorize(principal, 'codebuild:BatchGetBuilds', projectArn, {
        purpose: 'CodeBuild BatchGetBuilds',
      });
      if (!decision.allowed) return error('AccessDeniedException', decision.message);
      if (build) builds.push(this.describe(build));
      else buildsNotFound.push(id);
    }
    return json(200, { builds, buildsNotFound });
  }

  private async stopBuild(principal: Principal, input: Record<string, unknown>): Promise<Reply> {
    const id = String(input.id ?? '');
    const build = this.builds.get(id) ?? [...this.builds.values()].find((candidate) => candidate.arn === id);
    const projectArn = build?.project.arn ?? `arn:aws:codebuild:${REGION}:${ACCOUNT}:project/${id.split(':')[0]}`;
    const decision = await this.options.evaluator.authorize(principal, 'codebuild:StopBuild', projectArn, {
      purpose: 'CodeBuild StopBuild',
    });
    if (!decision.allowed) return error('AccessDeniedException', decision.message);
    if (!build) return error('ResourceNotFoundException', `Build ${id} does not exist`);
    if (build.status === 'IN_PROGRESS') {
      this.end(build, 'STOPPED');
      await build.done;
    }
    return json(200, { build: this.describe(build) });
  }

  /** The build as BatchGetBuilds returns it (times in epoch seconds, as the JSON protocol sends them). */
  private describe(build: Build): Record<string, unknown> {
    const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);
    const project = build.project;
    return {
      id: build.id,
      arn: build.arn,
      buildNumber: build.number,
      startTime: seconds(build.startTime),
      ...(build.endTime !== undefined ? { endTime: seconds(build.endTime) } : {}),
      currentPhase: build.phases.at(-1)!.phaseType,
      buildStatus: build.status,
      buildComplete: build.status !== 'IN_PROGRESS',
      projectName: project.name,
      initiator: build.initiator,
      phases: build.phases.map((phase) => ({
        phaseType: phase.phaseType,
        ...(phase.phaseStatus ? { phaseStatus: phase.phaseStatus } : {}),
        startTime: seconds(phase.startTime),
        ...(phase.endTime !== undefined
          ? { endTime: seconds(phase.endTime), durationInSeconds: Math.round((phase.endTime - phase.startTime) / 1000) }
          : {}),
        ...(phase.contexts ? { contexts: phase.contexts } : {}),
      })),
      source: { type: project.sourceType, ...(project.buildSpec ? { buildspec: project.buildSpec } : {}) },
      artifacts: { location: '' },
      environment: {
        type: build.environmentType,
        image: build.image,
        computeType: build.computeType,
        environmentVariables: build.variables,
        privilegedMode: project.privileged,
        imagePullCredentialsType: 'CODEBUILD',
      },
      serviceRole: project.serviceRole.arn,
      logs: project.logGroupName
        ? {
            groupName: project.logGroupName,
            streamName: build.uuid,
            cloudWatchLogs: { status: 'ENABLED', groupName: project.logGroupName },
          }
        : {},
      timeoutInMinutes: build.timeoutInMinutes,
      queuedTimeoutInMinutes: project.queuedTimeoutInMinutes,
      ...(project.vpc
        ? { vpcConfig: { vpcId: project.vpc.vpcId, subnets: project.vpc.subnets, securityGroupIds: project.vpc.securityGroups } }
        : {}),
    };
  }

  // --- A build ----------------------------------------------------------------------------------

  private enter(build: Build, phaseType: PhaseType): void {
    const now = Date.now();
    const current = build.phases.at(-1)!;
    if (current.phaseType === phaseType) return;
    if (current.endTime === undefined) {
      current.endTime = now;
      current.phaseStatus ??= 'SUCCEEDED';
    }
    build.phases.push({ phaseType, startTime: now });
  }

  private failPhase(build: Build, statusCode: string, message: string, status = 'FAILED'): void {
    const current = build.phases.at(-1)!;
    current.phaseStatus = status;
    current.endTime ??= Date.now();
    current.contexts = [{ statusCode, message }];
  }

  /** Ends a build from outside (StopBuild, its timeout, the emulator stopping): the whole container dies. */
  private end(build: Build, how: 'STOPPED' | 'TIMED_OUT'): void {
    if (build.status !== 'IN_PROGRESS' || build.ending) return;
    build.ending = how;
    build.wake?.();
    const child = build.process;
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }

  /** The end of an ending build, as its last phase shows it. */
  private ended(build: Build): void {
    if (build.ending === 'TIMED_OUT') {
      this.complete(build, 'TIMED_OUT', {
        statusCode: 'BUILD_TIMED_OUT',
        message: `Build has timed out. Build timeout: ${build.timeoutInMinutes} minutes`,
      });
    } else {
      this.complete(build, 'STOPPED', { statusCode: 'BUILD_STOPPED', message: 'Build was stopped' });
    }
  }

  /** Ends the build: its current phase ends (with `context` as its reason), then FINALIZING and COMPLETED. */
  private complete(build: Build, status: BuildStatus, context?: { statusCode: string; message: string }): void {
    if (build.status !== 'IN_PROGRESS') return;
    clearTimeout(build.timer);
    const now = Date.now();
    const current = build.phases.at(-1)!;
    if (current.endTime === undefined) {
      current.endTime = now;
      current.phaseStatus = status === 'SUCCEEDED' ? 'SUCCEEDED' : status === 'FAULT' ? 'FAILED' : status;
      if (context) current.contexts = [context];
    } else if (context && current.phaseStatus === 'SUCCEEDED') {
      current.phaseStatus = status === 'FAULT' ? 'FAILED' : status;
      current.contexts = [context];
    }
    if (status === 'SUCCEEDED' || status === 'FAILED') {
      const reachedCommands = build.phases.some((phase) => phase.phaseType === 'INSTALL');
      for (const next of reachedCommands ? (['UPLOAD_ARTIFACTS', 'FINALIZING'] as const) : (['FINALIZING'] as const)) {
        build.phases.push({ phaseType: next, phaseStatus: 'SUCCEEDED', startTime: now, endTime: now });
      }
    }
    build.phases.push({ phaseType: 'COMPLETED', startTime: now });
    build.endTime = now;
    build.status = status;
    if (status !== 'SUCCEEDED') {
      const failed = build.phases.find((phase) => phase.phaseStatus && phase.phaseStatus !== 'SUCCEEDED');
      this.problems.push({
        project: build.project.logicalId,
        build: build.id,
        message: `Build ${status}${failed ? ` in ${failed.phaseType}` : ''}${failed?.contexts ? `: ${failed.contexts.map((item) => `${item.statusCode}: ${item.message}`).join('; ')}` : ''}`,
        logTail: this.logTail(build.id, 15),
      });
    }
    build.finish();
  }

  private async run(build: Build): Promise<void> {
    const project = build.project;
    const { evaluator } = this.options;
    this.enter(build, 'QUEUED');
    this.enter(build, 'PROVISIONING');
    const startup = this.options.startupDelayMs?.() ?? 0;
    if (startup > 0) await new Promise((resolve) => setTimeout(resolve, startup));
    if (build.ending) return this.ended(build);

    // CodeBuild assumes the service role, attaches the build to the VPC and writes its logs with it.
    const service = { label: 'codebuild.amazonaws.com', arn: 'codebuild.amazonaws.com' };
    const role = project.serviceRole;
    const assumed = await evaluator.authorize(service, 'sts:AssumeRole', role.arn, {
      resourcePolicy: role.trustPolicy,
      context: { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': project.arn },
      purpose: `CodeBuild assuming the service role of ${project.logicalId}`,
    });
    if (!assumed.allowed) {
      return this.complete(build, 'FAILED', {
        statusCode: 'ACCESS_DENIED',
        message: `CodeBuild is not authorized to perform: sts:AssumeRole on ${role.arn}`,
      });
    }
    // CodeBuild resolves its variables in the service role's policies for the build's requests; the
    // evaluator does not know them, so they are put in here, as AWS would read them for this build.
    const resolved = (document: unknown) =>
      JSON.parse(
        JSON.stringify(document).replaceAll('${codebuild:buildArn}', build.arn).replaceAll('${codebuild:projectArn}', project.arn),
      ) as typeof document;
    const session: Principal = {
      label: `${project.logicalId} (service role)`,
      arn: sessionArn(role, `AWSCodeBuild-${build.uuid}`),
      role: {
        ...role,
        policies: role.policies.map((policy) => ({ ...policy, document: resolved(policy.document) as typeof policy.document })),
      },
    };
    build.session = session;
    const denied: string[] = [];
    if (project.vpc) {
      for (const action of VPC_ACTIONS) {
        const decision = await evaluator.authorize(session, action, '*', {
          purpose: `CodeBuild attaching ${build.id} to ${project.vpc.vpcId}`,
        });
        if (!decision.allowed) denied.push(decision.message);
      }
      for (const subnet of project.vpc.subnets) {
        const decision = await evaluator.authorize(
          session,
          'ec2:CreateNetworkInterfacePermission',
          `arn:aws:ec2:${REGION}:${ACCOUNT}:network-interface/eni-${randomBytes(8).toString('hex').slice(0, 17)}`,
          {
            context: {
              'ec2:Subnet': `arn:aws:ec2:${REGION}:${ACCOUNT}:subnet/${subnet}`,
              'ec2:AuthorizedService': 'codebuild.amazonaws.com',
            },
            purpose: `CodeBuild attaching ${build.id} to subnet ${subnet}`,
          },
        );
        if (!decision.allowed) denied.push(decision.message);
      }
    }
    if (project.logGroupName) {
      const stream = `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${project.logGroupName}:log-stream:${build.uuid}`;
      for (const action of ['logs:CreateLogStream', 'logs:PutLogEvents']) {
        const decision = await evaluator.authorize(session, action, stream, { purpose: `CodeBuild writing the logs of ${build.id}` });
        if (!decision.allowed) denied.push(decision.message);
      }
    }
    if (build.ending) return this.ended(build);
    if (denied.length > 0) return this.complete(build, 'FAILED', { statusCode: 'ACCESS_DENIED', message: denied.join('; ') });
    if (!/^aws\/codebuild\//.test(build.image)) {
      // Isolated subnets reach no registry: only CodeBuild's curated images (pulled by CodeBuild itself) start.
      return this.complete(build, 'FAILED', {
        statusCode: 'CLIENT_ERROR',
        message: `Failed to pull the image ${build.image}: the build's VPC has no route to a registry`,
      });
    }

    let spec: BuildSpec;
    try {
      spec = parseBuildSpec(project.buildSpec);
    } catch (failure) {
      return this.complete(build, 'FAILED', { statusCode: 'YAML_FILE_ERROR', message: (failure as Error).message });
    }
    if (build.ending) return this.ended(build);
    const host = this.options.emulatedHost?.();
    if (host) return this.emulatedJobs(build, host);
    if (process.getuid?.() !== 0) {
      return this.complete(build, 'FAULT', {
        statusCode: 'CLIENT_ERROR',
        message: 'The emulated build container needs root (as CI runs the tests)',
      });
    }
    await this.container(build, spec);
  }

  /**
   * The template's job loop (GRADING_BUILD_SPEC) on an emulated host: for slot 1, 2, … the build
   * reads its input with its role's credentials through the VPC's S3 endpoint (waiting for it as
   * the real loop does, up to 180 s), ends at the end marker, and otherwise takes `jobMs` of wall
   * time where the real build runs the harness, then puts a result through the job's presigned URL,
   * signed with the job's key: every test case passing with exit status 0 (what the real harness
   * answers for a command that exits 0 and expects that).
   */
  private async emulatedJobs(build: Build, host: EmulatedHost): Promise<void> {
    const project = build.project;
    const socket = project.vpc ? await this.options.vpcRoute(project.vpc.vpcId) : undefined;
    const bucket = build.variables.find((variable) => variable.name === 'JOBS_BUCKET')?.value;
    if (!socket || !bucket || !build.session)
      return this.complete(build, 'FAULT', { statusCode: 'CLIENT_ERROR', message: 'An emulated host needs a VPC build and its bucket' });
    for (const phase of ['DOWNLOAD_SOURCE', 'INSTALL', 'PRE_BUILD', 'BUILD'] as const) this.enter(build, phase);
    const credentials = this.options.issueCredentials(build.session);
    const endpoint = `http://127.0.0.1:${this.options.endpointPort}`;
    try {
      for (let slot = 1; ; slot++) {
        let input: Buffer | undefined;
        for (const giveUp = Date.now() + 180_000; !input;) {
          if (build.ending) return this.ended(build);
          const url = presignS3({
            method: 'GET',
            bucket,
            key: jobKeys(build.arn, slot).input,
            region: REGION,
            credentials,
            endpoint,
            now: new Date(),
            expiresSeconds: 60,
          });
          const answer = await throughSocket(socket, 'GET', url);
          if (answer.status === 200) input = answer.body;
          else if (answer.status !== 403 && answer.status !== 404) throw new Error(`S3 answered HTTP ${answer.status} for the input`);
          else if (Date.now() > giveUp) throw new Error(`The job's input could not be read: S3 answered HTTP ${answer.status}`);
          else await this.hostWait(build, 250);
        }
        if (input.toString('utf8') === END_OF_JOBS) break;
        const { job, resultUrl } = await readJobInput(input);
        await this.hostWait(build, host.jobMs(job));
        if (build.ending) return this.ended(build);
        const text = `${JSON.stringify(allPassed(job.testCases))}\n`;
        const put = await throughSocket(socket, 'PUT', resultUrl, job.resultKey ? signResult(text, job.resultKey) : text);
        if (put.status !== 200) throw new Error(`S3 answered HTTP ${put.status} for the result`);
      }
      this.complete(build, 'SUCCEEDED');
    } catch (failure) {
      if (build.ending) return this.ended(build);
      this.complete(build, 'FAILED', { statusCode: 'COMMAND_EXECUTION_ERROR', message: (failure as Error).message });
    }
  }

  private async hostWait(build: Build, ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      build.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    build.wake = undefined;
  }

  /** Runs the buildspec in the build's container, reporting its phases as its script enters them. */
  private async container(build: Build, spec: BuildSpec): Promise<void> {
    const project = build.project;
    const folder = await mkdtemp(join(this.options.workDirectory, 'build-'));
    let credentialsServer: Server | undefined;
    try {
      await chmod(folder, 0o755);
      const root = join(folder, 'root');
      const network = join(folder, 'net');
      await mkdir(root);
      await mkdir(network, { mode: 0o777 });
      await chmod(network, 0o777);
      const socket = project.vpc ? await this.options.vpcRoute(project.vpc.vpcId) : undefined;
      const sourceDirectory = `/codebuild/output/src${Math.floor(Math.random() * 1e9)}/src`;
      const script = join(folder, 'buildspec.sh');
      await writeFile(script, buildScript(spec), { mode: 0o644 });
      // The forwarder runs as nobody, who may not enter the project's folder nor the one this Node lives in.
      const forwarder = join(folder, 'vpc-forwarder.mts');
      await copyFile(FORWARDER, forwarder);
      await chmod(forwarder, 0o444);
      const hostNode = ['/usr/local/bin/node', '/usr/bin/node'].find((candidate) => existsSync(candidate));
      // CodeBuild's container credentials endpoint (169.254.170.2), in a VPC build's network: the service role's session.
      const credentialsPath = `/v2/credentials/${randomUUID()}`;
      const credentialsSocket = project.vpc && build.session ? join(network, 'credentials.sock') : undefined;
      if (credentialsSocket) {
        const credentials = this.options.issueCredentials(build.session!);
        credentialsServer = await serveCredentials(credentialsSocket, credentialsPath, credentials, build.session!.role!.arn);
      }
      const environment = this.buildEnvironment(build, spec, sourceDirectory, hostNode === undefined);
      if (project.vpc) {
        // The address S3 has inside the build's network: the forwarder to the VPC's S3 gateway endpoint.
        environment.AWS_ENDPOINT_URL_S3 = `http://127.0.0.1:${this.options.endpointPort}`;
        if (credentialsSocket) environment.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI = credentialsPath;
      }
      const projectTop = projectFolderToHide();
      const args = [
        '--mount',
        '--propagation',
        'private',
        '--pid',
        '--fork',
        '--kill-child',
        '--ipc',
        '--uts',
        ...(project.vpc ? ['--net'] : []),
        '--',
        '/bin/sh',
        '-c',
        CONTAINER_SETUP,
        'codebuild-container',
        root,
        network,
        socket ?? '',
        String(this.options.endpointPort),
        forwarder,
        await readableNode(),
        script,
        sourceDirectory,
        project.privileged ? 'privileged' : UNPRIVILEGED_CAPABILITIES.map((capability) => `+${capability}`).join(','),
        project.vpc ? 'vpc' : 'host',
        hostNode ? '' : dirname(process.execPath),
        spec.env?.shell === 'bash' ? '/bin/bash' : '/bin/sh',
        [projectTop, os.tmpdir()].filter((folderToHide) => folderToHide !== '/tmp').join(':'),
        credentialsSocket ?? '',
      ];
      this.enter(build, 'DOWNLOAD_SOURCE');
      // setpriv --pdeathsig: the container dies with the test's process, whatever ends it.
      const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', 'unshare', ...args], {
        env: environment,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
        detached: true,
      });
      build.process = child;
      if (build.ending) process.kill(-child.pid!, 'SIGKILL');
      const log = (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim() !== '') build.log.push(line.length > 1000 ? `${line.slice(0, 1000)}…` : line);
        if (build.log.length > LOG_LINES_KEPT) build.log.splice(0, build.log.length - LOG_LINES_KEPT);
      };
      child.stdout!.on('data', log);
      child.stderr!.on('data', log);
      let ended: number | undefined;
      let pending = '';
      (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const [kind, phase, index, status] = line.split(' ');
          if (kind === 'PHASE' && PHASES.includes(phase as PhaseType)) this.enter(build, phase as PhaseType);
          else if (kind === 'COMMAND') build.command = { phase: phase!, index: Number(index) };
          else if (kind === 'FAILED')
            this.failPhase(build, 'COMMAND_EXECUTION_ERROR', commandError(spec, phase!, Number(index), Number(status)));
          else if (kind === 'END') ended = Number(phase);
        }
      });
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
        child.on('error', (failure) => {
          log(Buffer.from(`unshare could not be started: ${failure.message}`));
          resolve([null, null]);
        });
        child.on('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
      });
      if (build.ending) {
        this.ended(build);
      } else if (code === 0 && ended === 0) {
        this.complete(build, 'SUCCEEDED');
      } else if (ended !== undefined) {
        this.complete(build, 'FAILED');
      } else {
        // The shell ended before its last phase: a command ended it (set -e, exit) or the set-up failed.
        const command = build.command;
        const current = build.phases.at(-1)!.phaseType;
        const message =
          command && PHASES.includes(current) && ['INSTALL', 'PRE_BUILD', 'BUILD', 'POST_BUILD'].includes(current)
            ? commandError(spec, command.phase, command.index, code ?? -1)
            : `The build container ended (${signal ? `signal ${signal}` : `exit status ${code}`}) in ${current}`;
        this.complete(build, 'FAILED', { statusCode: 'COMMAND_EXECUTION_ERROR', message });
      }
    } finally {
      credentialsServer?.closeAllConnections();
      await new Promise((resolve) => (credentialsServer ? credentialsServer.close(resolve) : resolve(undefined)));
      await rm(folder, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** CodeBuild's variables, the buildspec's, the project's and the overrides' (in that order of precedence, lowest first). */
  private buildEnvironment(build: Build, spec: BuildSpec, sourceDirectory: string, nodeFromTest: boolean): Record<string, string> {
    const environment: Record<string, string> = {
      PATH: nodeFromTest ? `${IMAGE_PATH}:/codebuild/node/bin` : IMAGE_PATH,
      HOME: '/root',
      LC_CTYPE: 'C.UTF-8',
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      CODEBUILD_BUILD_ARN: build.arn,
      CODEBUILD_BUILD_ID: build.id,
      CODEBUILD_BUILD_IMAGE: build.image,
      CODEBUILD_BUILD_NUMBER: String(build.number),
      CODEBUILD_BUILD_SUCCEEDING: '1',
      CODEBUILD_INITIATOR: build.initiator,
      CODEBUILD_LOG_PATH: build.uuid,
      CODEBUILD_SRC_DIR: sourceDirectory,
      CODEBUILD_START_TIME: String(build.startTime),
    };
    for (const [name, value] of Object.entries(spec.env?.variables ?? {})) environment[name] = String(value);
    for (const variable of build.variables) environment[variable.name] = variable.value;
    return environment;
  }
}

/** An HTTP request over the VPC's S3 socket (what a build's forwarder passes on), to `url`'s path and host. */
function throughSocket(socketPath: string, method: 'GET' | 'PUT', url: string, body?: string): Promise<{ status: number; body: Buffer }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        socketPath,
        method,
        path: `${target.pathname}${target.search}`,
        headers: {
          host: target.host,
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
        },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks) }));
        answer.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The job and the result's URL from a job's input (a gzipped tar, see the worker's jobArchive). */
async function readJobInput(input: Buffer): Promise<{ job: HarnessJob; resultUrl: string }> {
  const { Parser } = await import('tar');
  const files = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      onReadEntry: (entry) => {
        const chunks: Buffer[] = [];
        entry.on('data', (chunk: Buffer) => chunks.push(chunk));
        entry.on('end', () => files.set(entry.path, Buffer.concat(chunks)));
      },
    });
    parser.on('end', resolve);
    parser.on('error', reject);
    parser.end(input);
  });
  const job = files.get('job.json');
  const resultUrl = files.get('result-url');
  if (!job || !resultUrl) throw new Error('The job input holds no job.json or result-url');
  return { job: JSON.parse(job.toString('utf8')) as HarnessJob, resultUrl: resultUrl.toString('utf8') };
}

/** The buildspec of the template (JSON, as CDK's BuildSpec.fromObject renders it). */
function parseBuildSpec(text: string | undefined): BuildSpec {
  if (!text) throw new Error('The project has no inline buildspec: the test runs the template’s own only');
  let spec: BuildSpec;
  try {
    spec = JSON.parse(text) as BuildSpec;
  } catch {
    throw new Error('The deployed-artifact test reads JSON buildspecs only');
  }
  if (String(spec.version) !== '0.2') throw new Error(`buildspec version ${String(spec.version)}: the test emulates 0.2`);
  const notEmulated = Object.keys(spec).filter((key) => !['version', 'env', 'phases'].includes(key));
  for (const key of Object.keys(spec.env ?? {})) if (!['shell', 'variables'].includes(key)) notEmulated.push(`env.${key}`);
  for (const [name, phase] of Object.entries(spec.phases ?? {})) {
    if (!(SCRIPT_PHASES as readonly string[]).includes(name)) notEmulated.push(`phases.${name}`);
    for (const key of Object.keys(phase))
      if (!['commands', 'finally', 'on-failure'].includes(key)) notEmulated.push(`phases.${name}.${key}`);
  }
  if (spec.env?.shell && !['bash', '/bin/sh', 'sh'].includes(spec.env.shell)) notEmulated.push(`env.shell ${spec.env.shell}`);
  if (notEmulated.length > 0) throw new Error(`The deployed-artifact test does not emulate buildspec ${notEmulated.join(', ')}`);
  return spec;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * One shell script for the whole buildspec, run by one shell process as CodeBuild does: each
 * phase's commands in order (a failed command skips the rest of its phase; INSTALL or PRE_BUILD
 * failing skips the later phases, BUILD failing still runs POST_BUILD; `finally` blocks always
 * run). Progress goes to fd 3 (closed for the commands themselves), the `[Container]` lines to the log.
 */
function buildScript(spec: BuildSpec): string {
  const lines = [
    '__cb_mark() { printf \'%s\\n\' "$*" >&3; }',
    '__cb_say() { printf \'[Container] %s %s\\n\' "$(date -u \'+%Y/%m/%d %H:%M:%S\')" "$*"; }',
    '__cb_skip=0; __cb_result=0',
    'cd "$CODEBUILD_SRC_DIR"',
  ];
  for (const name of SCRIPT_PHASES) {
    const type = name.toUpperCase();
    const phase = spec.phases?.[name] ?? {};
    const continueOnFailure = phase['on-failure'] === 'CONTINUE';
    // POST_BUILD runs after a failed BUILD, not after a failed INSTALL or PRE_BUILD.
    lines.push(`if [ "$__cb_skip" = 0 ] || { [ ${quote(type)} = POST_BUILD ] && [ "$__cb_skip" = build ]; }; then`);
    lines.push(`__cb_mark PHASE ${type}; __cb_say Entering phase ${type}; __cb_failed=0`);
    (phase.commands ?? []).forEach((command, index) => {
      lines.push(
        'if [ "$__cb_failed" = 0 ]; then',
        `__cb_mark COMMAND ${type} ${index}; __cb_say Running command ${quote(command)}`,
        '{',
        command,
        '} 3>&-',
        `__cb_status=$?; if [ "$__cb_status" != 0 ]; then __cb_mark FAILED ${type} ${index} $__cb_status; __cb_say Command did not exit successfully ${quote(command)} exit status $__cb_status; __cb_failed=$__cb_status; fi`,
        'fi',
      );
    });
    (phase.finally ?? []).forEach((command, index) => {
      lines.push(`__cb_mark COMMAND ${type} finally-${index}; __cb_say Running command ${quote(command)}`, '{', command, '} 3>&-');
    });
    lines.push(
      continueOnFailure
        ? 'true'
        : `if [ "$__cb_failed" != 0 ]; then __cb_result=$__cb_failed; if [ ${quote(type)} = BUILD ]; then __cb_skip=build; else __cb_skip=1; fi; fi`,
      `__cb_say Phase complete: ${type} State: $( [ "$__cb_failed" = 0 ] && echo SUCCEEDED || echo FAILED )`,
      'fi',
    );
  }
  lines.push('__cb_mark END $__cb_result', 'exit $__cb_result', '');
  return lines.join('\n');
}

function commandError(spec: BuildSpec, phase: string, index: number, status: number): string {
  const command = spec.phases?.[phase.toLowerCase()]?.commands?.[index] ?? `${phase} command ${index}`;
  return `Error while executing command: ${command}. Reason: exit status ${status}`;
}

/** The folder of the project a build must not see: its top folder unless that is a system one. */
function projectFolderToHide(): string {
  const projectRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
  const top = `/${projectRoot.split(sep).filter(Boolean)[0] ?? ''}`;
  return ['/usr', '/etc', '/opt', '/var', '/srv', '/bin', '/lib', '/sbin', '/'].includes(top) ? projectRoot : top;
}

const FORWARDER = fileURLToPath(new URL('./vpc-forwarder.ts', import.meta.url));

/**
 * The container credentials endpoint of one build, on a Unix socket its forwarder reaches: the
 * build's own path answers the service role session's credentials, as ECS and CodeBuild answer
 * them; any other path is refused.
 */
async function serveCredentials(socketPath: string, path: string, credentials: Credentials, roleArn: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== path) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no credentials here"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        RoleArn: roleArn,
        AccessKeyId: credentials.accessKeyId,
        SecretAccessKey: credentials.secretAccessKey,
        Token: credentials.sessionToken,
        Expiration: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  await chmod(socketPath, 0o666);
  return server;
}

/**
 * The build container, set up by root as the init of new mount, PID, IPC, UTS (and, in a VPC,
 * network) namespaces: a tmpfs on the build's own (empty) folder holds an overlay of this
 * machine's root, so the build may write anywhere and nothing reaches the host; a fresh /proc, a
 * read-only /sys, a minimal /dev, empty /tmp, /root and /home, the test's folders hidden; in a VPC
 * only loopback, where the S3 forwarder (as nobody) is the only way out; then the overlay made the
 * root (pivoted to, as Docker does) and the buildspec's script run as root, with Docker's default
 * capabilities unless the project is privileged.
 */
const CONTAINER_SETUP = String.raw`set -eu
root=$1 net=$2 socket=$3 port=$4 forwarder=$5 testnode=$6 script=$7 src=$8 caps=$9
shift 9
network=$1 nodedir=$2 shell=$3 hide=$4 credentials=$5
build_path=$PATH
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t tmpfs -o size=4g,mode=0755 codebuild "$root"
mkdir "$root/upper" "$root/work" "$root/fs"
mount -t overlay overlay -o "lowerdir=/,upperdir=$root/upper,workdir=$root/work" "$root/fs"
fs=$root/fs
mount -t proc -o nosuid,nodev,noexec proc "$fs/proc"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$fs/sys" 2>/dev/null || true
mount -t tmpfs -o mode=0755,size=1m,nosuid dev "$fs/dev"
for device in null zero full random urandom tty; do touch "$fs/dev/$device"; mount --bind "/dev/$device" "$fs/dev/$device"; done
mkdir "$fs/dev/shm" "$fs/dev/pts"
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$fs/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$fs/dev/pts" 2>/dev/null || true
ln -s /proc/self/fd "$fs/dev/fd"; ln -s /proc/self/fd/0 "$fs/dev/stdin"; ln -s /proc/self/fd/1 "$fs/dev/stdout"; ln -s /proc/self/fd/2 "$fs/dev/stderr"
for folder in /tmp /var/tmp; do if [ -d "$fs$folder" ]; then mount -t tmpfs -o mode=1777,nosuid,nodev tmp "$fs$folder"; fi; done
mount -t tmpfs -o mode=0700 home "$fs/root"
mount -t tmpfs -o mode=0755 home "$fs/home"
old_ifs=$IFS; IFS=:
for folder in $hide; do if [ -n "$folder" ] && [ -d "$fs$folder" ]; then mount -t tmpfs -o mode=0755,size=4k hidden "$fs$folder"; fi; done
IFS=$old_ifs
if [ -n "$nodedir" ]; then mkdir -p "$fs/codebuild/node/bin"; mount --bind "$nodedir" "$fs/codebuild/node/bin"; mount -o remount,bind,ro "$fs/codebuild/node/bin"; fi
mkdir -p "$fs/codebuild" "$fs$src"
cp "$script" "$fs/codebuild/buildspec.sh"
if [ "$network" = vpc ]; then
  if command -v ip >/dev/null 2>&1; then ip link set lo up; elif command -v ifconfig >/dev/null 2>&1; then ifconfig lo up; else echo 'the emulated VPC needs ip or ifconfig' >&2; exit 1; fi
  if [ -n "$socket" ]; then
    # In a mount namespace of its own: it keeps this machine's view when the build's root is pivoted.
    unshare --mount --propagation private -- setpriv --reuid 65534 --regid 65534 --clear-groups -- "$testnode" "$forwarder" 127.0.0.1 "$port" "$socket" "$net/ready" </dev/null 3>&- &
    waited=0
    while [ ! -e "$net/ready" ]; do sleep 0.05; waited=$((waited + 1)); if [ "$waited" -gt 200 ]; then echo 'the S3 forwarder did not start' >&2; exit 1; fi; done
  fi
  if [ -n "$credentials" ]; then
    # CodeBuild's credentials endpoint, at its link-local address, port 80 (which nobody may bind in this network).
    if command -v ip >/dev/null 2>&1; then ip addr add 169.254.170.2/32 dev lo; else ifconfig lo:1 169.254.170.2 netmask 255.255.255.255 up; fi
    echo 80 > /proc/sys/net/ipv4/ip_unprivileged_port_start
    unshare --mount --propagation private -- setpriv --reuid 65534 --regid 65534 --clear-groups -- "$testnode" "$forwarder" 169.254.170.2 80 "$credentials" "$net/credentials-ready" </dev/null 3>&- &
    waited=0
    while [ ! -e "$net/credentials-ready" ]; do sleep 0.05; waited=$((waited + 1)); if [ "$waited" -gt 200 ]; then echo 'the credentials forwarder did not start' >&2; exit 1; fi; done
  fi
fi
PATH=$build_path
export PATH
# The overlay becomes the root, as Docker makes a container's (pivot_root, not chroot): a chrooted
# process may not make a user namespace, which a container's may.
cd "$fs"
pivot_root . .
umount -l .
cd /
if [ "$caps" = privileged ]; then
  exec "$shell" /codebuild/buildspec.sh
fi
exec /usr/bin/setpriv --inh-caps=-all --bounding-set=-all,$caps -- "$shell" /codebuild/buildspec.sh
`;
