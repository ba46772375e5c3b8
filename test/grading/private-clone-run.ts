/**
 * Run by private-clone.test.ts from a clone in a folder only root may enter, with that clone's
 * own Node: one grading job as the worker runs it (a runner process of its own, the bubblewrap
 * sandbox as the job's uid) on a `file://` repository in `<repositories>/hw`, and one call of a
 * function whose asset is `<asset>` in the deployed-artifact test's Lambda emulator (as nobody).
 * Prints both results as one line of JSON.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runIsolated } from '#shared/grading/runner/in-process.ts';
import { ACCOUNT, REGION, type IamRole, type LambdaFunction } from '../deployed/cloudformation.ts';
import { PolicyEvaluator } from '../deployed/iam.ts';
import { LambdaService } from '../deployed/lambda-service.ts';
import { request, testCase } from './fixtures.ts';

const [repositories, asset] = process.argv.slice(2) as [string, string];
process.env.FILE_REPOSITORIES_DIR = repositories;

const job = await runIsolated(
  request(`file://${join(repositories, 'hw')}`, [
    testCase({ name: 'Greets', command: 'sh hello.sh', expect: { stdout: 'Hello, World!\n' } }),
    testCase({ name: 'Not root', command: 'test "$(id -u)" != 0' }),
  ]),
);

// The emulator's work folder, as deployment.ts makes it.
const work = await mkdtemp(join(tmpdir(), 'deployed-'));
await chmod(work, 0o755);
const role: IamRole = {
  logicalId: 'HelloRole',
  name: 'hello-role',
  arn: `arn:aws:iam::${ACCOUNT}:role/hello-role`,
  trustPolicy: undefined,
  policies: [
    {
      name: 'logs',
      document: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: '*' }],
      },
    },
  ],
};
const fn: LambdaFunction = {
  logicalId: 'Hello',
  name: 'hello',
  arn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:hello`,
  handler: 'index.handler',
  runtime: `nodejs${process.versions.node.split('.')[0]}.x`,
  timeoutSeconds: 30,
  memorySize: 128,
  environment: {},
  role,
  codeDirectory: asset,
  logGroupName: '/aws/lambda/hello',
  description: '',
};
const lambda = new LambdaService({
  workDirectory: work,
  awsEndpointUrl: 'http://127.0.0.1:9',
  evaluator: new PolicyEvaluator(),
  credentialsFor: () => ({ accessKeyId: 'local', secretAccessKey: 'local', sessionToken: 'local' }),
});
try {
  const invocation = await lambda.invoke(fn, JSON.stringify({ name: 'World' }), 'a call from a private clone');
  const call = { ...invocation, log: invocation.functionError ? lambda.logTail(fn) : '' };
  process.stdout.write(`${JSON.stringify({ job, call })}\n`);
} finally {
  await lambda.stop();
  await rm(work, { recursive: true, force: true });
}
