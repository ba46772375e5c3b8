import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { App } from 'aws-cdk-lib';
import { PROJECT_ROOT } from '#infra/aws/service-function.ts';
import { deploymentSettings } from '#infra/aws/settings.ts';
import { CourseSubmissionStack } from '#infra/aws/stack.ts';
import { ApiGateway } from './api-gateway.ts';
import { AwsEndpoint } from './aws-endpoint.ts';
import { ACCOUNT, loadDeployment, type Deployment, type Schedule } from './cloudformation.ts';
import { CodeBuildService, type EmulatedHost } from './codebuild.ts';
import { mergePolicies, PolicyEvaluator, sessionArn } from './iam.ts';
import { LambdaService, type InvocationResult } from './lambda-service.ts';
import { S3Service } from './s3.ts';
import { QueueService } from './sqs.ts';

const run = promisify(execFile);

/**
 * Synthesizes the CDK app as `cdk synth` does (esbuild bundling included) into `outdir`, at the
 * lowest CPU priority so tests running beside it keep theirs. CDK runs the project's esbuild as
 * `npx --no-install esbuild …` once per function; a stand-in `npx` on the PATH runs that same
 * binary (`node_modules/.bin/esbuild`, what npx would find) with the same arguments, without
 * starting npm each time, and hands anything else to the real npx. CDK's built-in CloudFormation
 * validation (CDK_VALIDATION) is left to the stack tests (test/infra), which synthesize with it:
 * it checks the template and changes nothing in it, and it is a third of the synthesis here.
 */
export function synthesize(outdir: string, stackName: string, context: Record<string, unknown>): void {
  const priority = os.getPriority();
  const path = process.env.PATH;
  const validation = process.env.CDK_VALIDATION;
  const shim = mkdtempSync(join(os.tmpdir(), 'deployed-npx-'));
  try {
    const realNpx = spawnSync('sh', ['-c', 'command -v npx'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(
      join(shim, 'npx'),
      [
        '#!/bin/sh',
        `if [ "$1" = --no-install ] && [ "$2" = esbuild ] && [ -x ${quote(join(PROJECT_ROOT, 'node_modules/.bin/esbuild'))} ]; then`,
        '  shift 2',
        `  exec ${quote(join(PROJECT_ROOT, 'node_modules/.bin/esbuild'))} "$@"`,
        'fi',
        `exec ${quote(realNpx || 'npx')} "$@"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    process.env.PATH = `${shim}:${path ?? ''}`;
    process.env.CDK_VALIDATION = 'false';
    os.setPriority(19);
    const app = new App({ outdir, context });
    new CourseSubmissionStack(app, stackName, { settings: deploymentSettings(app.node) });
    app.synth();
  } finally {
    process.env.PATH = path;
    if (validation === undefined) delete process.env.CDK_VALIDATION;
    else process.env.CDK_VALIDATION = validation;
    rmSync(shim, { recursive: true, force: true });
    try {
      os.setPriority(priority);
    } catch {
      // Only a privileged user may raise the priority again.
    }
  }
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export interface DeployedStack {
  readonly deployment: Deployment;
  readonly evaluator: PolicyEvaluator;
  readonly endpoint: AwsEndpoint;
  readonly lambda: LambdaService;
  readonly queues: QueueService;
  readonly s3: S3Service;
  readonly codebuild: CodeBuildService;
  readonly gateway: ApiGateway;
  /** Runs the admin command line (`npm run admin -- … --aws`) against the deployment, as the operator. */
  admin(...args: string[]): Promise<string>;
  /** Fires a schedule as EventBridge Scheduler does: assumes its role and invokes its target with its input. */
  fireSchedule(schedule: Schedule): Promise<InvocationResult>;
  /** Everything that went wrong since the last call (denials, crashes, …), one problem a line. */
  newProblems(): string[];
  stop(): Promise<void>;
}

/**
 * "Deploys" a synthesized stack locally: its tables in DynamoDB Local (named as CloudFormation
 * would), the AWS endpoint with the template's IAM policies, the functions, the queues with their
 * event source mappings, and the HTTP API.
 */
export async function deploy(
  outdir: string,
  stackName: string,
  options: { dynamodbEndpoint: string; buildStartupDelayMs?: () => number; emulatedBuildHost?: () => EmulatedHost | undefined },
): Promise<DeployedStack> {
  const evaluator = new PolicyEvaluator();
  const endpoint = new AwsEndpoint(evaluator, options.dynamodbEndpoint);
  await endpoint.start();
  const workDirectory = await mkdtemp(join(os.tmpdir(), 'deployed-'));
  // Should the test's process end without stopping the deployment, nothing of it stays behind:
  // the functions' process groups are killed and the work folder removed (builds die with the
  // process by themselves, their mounts with their namespaces).
  let lambdaProcesses: () => { pid: number }[] = () => [];
  const onExit = () => {
    for (const { pid } of lambdaProcesses()) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    spawnSync('chmod', ['-R', 'u+w', workDirectory]);
    rmSync(workDirectory, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const stoppers: (() => Promise<unknown>)[] = [
    async () => process.off('exit', onExit),
    () => endpoint.stop(),
    () => removeFolder(workDirectory),
  ];
  const stopAll = async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    return await start();
  } catch (error) {
    await stopAll();
    throw error;
  }

  async function start(): Promise<DeployedStack> {
    await chmod(workDirectory, 0o755);
    const deployment = loadDeployment(outdir, stackName, { queueUrlBase: endpoint.url });

    const dynamodb = new DynamoDBClient({
      endpoint: options.dynamodbEndpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      await Promise.all(deployment.tables.map((table) => dynamodb.send(new CreateTableCommand(table.createTableInput as never))));
    } finally {
      dynamodb.destroy();
    }

    const lambda = new LambdaService({
      workDirectory,
      awsEndpointUrl: endpoint.url,
      evaluator,
      credentialsFor: (principal) => endpoint.issueCredentials(principal),
    });
    lambdaProcesses = () => lambda.processes();
    const queues = new QueueService(deployment, lambda, evaluator);
    const s3 = new S3Service(deployment, evaluator);
    const codebuild = new CodeBuildService({
      deployment,
      evaluator,
      workDirectory,
      endpointPort: Number(new URL(endpoint.url).port),
      issueCredentials: (principal) => endpoint.issueCredentials(principal),
      vpcRoute: (vpcId) => endpoint.serveVpc(vpcId, join(workDirectory, `${vpcId}.sock`)),
      ...(options.buildStartupDelayMs ? { startupDelayMs: options.buildStartupDelayMs } : {}),
      ...(options.emulatedBuildHost ? { emulatedHost: options.emulatedBuildHost } : {}),
    });
    stoppers.push(async () => {
      // No new deliveries; the functions stop (ending invocations in flight); then the pollers end; then the builds.
      queues.halt();
      await lambda.stop();
      await queues.stop();
      await codebuild.stop();
    });
    endpoint.connect(deployment, { lambda, queues, s3, codebuild });
    const gateway = new ApiGateway(deployment, lambda, evaluator);
    await gateway.start();
    stoppers.push(() => gateway.stop());

    // Lambda assumes each function's role: its trust policy must let lambda.amazonaws.com do so.
    for (const fn of deployment.functions) {
      await evaluator.authorize({ label: 'lambda.amazonaws.com', arn: 'lambda.amazonaws.com' }, 'sts:AssumeRole', fn.role.arn, {
        resourcePolicy: fn.role.trustPolicy,
        context: { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': fn.arn },
        purpose: `Lambda assuming the role of ${fn.logicalId}`,
      });
    }
    await queues.start();

    const operator = endpoint.issueCredentials({ label: 'operator', arn: `arn:aws:iam::${ACCOUNT}:user/operator`, administrator: true });
    const adminEnvironment = Object.fromEntries(
      (deployment.outputs.AdminEnvironment ?? '')
        .split(' ')
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
    let reported = 0;
    let reportedDenials = 0;
    let reportedUnemulated = 0;
    let reportedBatchFailures = 0;
    let reportedDeadLetters = 0;
    let reportedErrorLines = 0;
    let reportedRefusals = 0;
    let reportedBuildProblems = 0;
    let reportedDeployment = false;

    return {
      deployment,
      evaluator,
      endpoint,
      lambda,
      queues,
      s3,
      codebuild,
      gateway,
      async admin(...args) {
        const { stdout } = await run(process.execPath, [join(PROJECT_ROOT, 'infra/admin.ts'), ...args, '--aws'], {
          cwd: PROJECT_ROOT,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: workDirectory,
            ...adminEnvironment,
            AWS_ENDPOINT_URL_DYNAMODB: endpoint.url,
            AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.url,
            AWS_ACCESS_KEY_ID: operator.accessKeyId,
            AWS_SECRET_ACCESS_KEY: operator.secretAccessKey,
            AWS_SESSION_TOKEN: operator.sessionToken,
            AWS_EC2_METADATA_DISABLED: 'true',
          },
        }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
          throw new Error(`npm run admin -- ${args.join(' ')} --aws failed: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
        });
        return stdout;
      },
      async fireSchedule(schedule) {
        const scheduler = { label: 'scheduler.amazonaws.com', arn: 'scheduler.amazonaws.com' };
        const assumed = await evaluator.authorize(scheduler, 'sts:AssumeRole', schedule.role.arn, {
          resourcePolicy: schedule.role.trustPolicy,
          context: { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': schedule.arn },
          purpose: `the schedule ${schedule.logicalId} assuming its role`,
        });
        const invoker = {
          label: schedule.logicalId,
          arn: sessionArn(schedule.role, `scheduler-${schedule.name}`.slice(0, 64)),
          role: schedule.role,
        };
        const queue = queues.find(schedule.targetArn);
        if (queue) {
          // A schedule that sends to a queue: its role must be allowed to, and the message then reaches the queue's consumers.
          const sent = await evaluator.authorize(invoker, 'sqs:SendMessage', queue.arn, {
            resourcePolicy: mergePolicies(queue.policies),
            purpose: `the schedule ${schedule.logicalId} sending to its queue`,
          });
          if (!assumed.allowed || !sent.allowed)
            throw new Error(
              `Schedule ${schedule.logicalId} could not send to ${queue.logicalId}:\n${[assumed.message, sent.message].filter(Boolean).join('\n')}`,
            );
          const { messageId } = queues.send(queue, schedule.input ?? '{}', {}, invoker.arn);
          return { requestId: messageId, payload: JSON.stringify({ messageId }), durationMs: 0 };
        }
        const target = deployment.functions.find((fn) => schedule.targetArn === fn.arn || schedule.targetArn.startsWith(`${fn.arn}:`));
        if (!target)
          throw new Error(
            `Schedule ${schedule.logicalId}: its target ${schedule.targetArn} is neither a function nor a queue of the template`,
          );
        const allowed = await evaluator.authorize(invoker, 'lambda:InvokeFunction', schedule.targetArn, {
          resourcePolicy: deployment.functionPolicies.get(target.arn),
          purpose: `the schedule ${schedule.logicalId} invoking its target`,
        });
        if (!assumed.allowed || !allowed.allowed)
          throw new Error(
            `Schedule ${schedule.logicalId} could not invoke ${target.logicalId}:\n${[assumed.message, allowed.message].filter(Boolean).join('\n')}`,
          );
        return lambda.invoke(target, schedule.input ?? '{}', `schedule ${schedule.logicalId}`);
      },
      newProblems() {
        const problems: string[] = [];
        if (!reportedDeployment) problems.push(...deployment.deploymentProblems.map((problem) => `Deployment: ${problem}`));
        reportedDeployment = true;
        for (const denial of evaluator.denials.slice(reportedDenials)) {
          problems.push(
            `AccessDenied: ${denial.principal} may not ${denial.action} on ${denial.resource} (${denial.context})\n    ${denial.message}`,
          );
        }
        reportedDenials = evaluator.denials.length;
        for (const call of endpoint.unemulated.slice(reportedUnemulated))
          problems.push(`Not emulated: ${call.principal} called ${call.service} ${call.operation}`);
        reportedUnemulated = endpoint.unemulated.length;
        for (const failure of lambda.failures.slice(reported)) {
          problems.push(`Function failed: ${failure.function} (${failure.purpose}): ${failure.error}\n${indent(failure.logTail)}`);
        }
        reported = lambda.failures.length;
        for (const failure of queues.batchFailures.slice(reportedBatchFailures)) {
          const fn = deployment.functions.find((candidate) => candidate.logicalId === failure.function);
          problems.push(
            `Batch item failed: ${failure.function} message ${failure.messageId} (receive ${failure.receiveCount}): ${failure.reason}\n${indent(fn ? lambda.logTail(fn, 4) : '')}`,
          );
        }
        reportedBatchFailures = queues.batchFailures.length;
        for (const letter of queues.deadLettered.slice(reportedDeadLetters))
          problems.push(`Dead-lettered into ${letter.queue}: ${letter.body}`);
        reportedDeadLetters = queues.deadLettered.length;
        for (const logged of lambda.errorLines.slice(reportedErrorLines))
          problems.push(`Logged an error: ${logged.function}: ${logged.line}`);
        reportedErrorLines = lambda.errorLines.length;
        for (const refusal of s3.refusals.slice(reportedRefusals))
          problems.push(`S3 refused ${refusal.request} by ${refusal.principal}: ${refusal.code}: ${refusal.message}`);
        reportedRefusals = s3.refusals.length;
        for (const problem of codebuild.problems.slice(reportedBuildProblems)) {
          problems.push(
            `CodeBuild ${problem.project}${problem.build ? ` build ${problem.build}` : ''}: ${problem.message}${problem.logTail ? `\n${indent(problem.logTail)}` : ''}`,
          );
        }
        reportedBuildProblems = codebuild.problems.length;
        return problems;
      },
      stop: stopAll,
    };
  }
}

/** Removes a folder with read-only parts (the task folders). */
async function removeFolder(folder: string): Promise<void> {
  await run('chmod', ['-R', 'u+w', folder]).catch(() => undefined);
  await rm(folder, { recursive: true, force: true });
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n');
