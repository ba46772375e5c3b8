import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, chown, copyFile, cp, mkdir, readdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readableNode } from '#shared/grading/runner/readable-node.ts';
import { ACCOUNT, REGION, type LambdaFunction } from './cloudformation.ts';
import { sessionArn, type PolicyEvaluator, type Principal } from './iam.ts';

/** Lambda's synchronous payload limit, each way. */
export const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
}

export interface InvocationResult {
  readonly requestId: string;
  /** The handler's result as JSON text, or Lambda's error document. */
  readonly payload: string;
  /** `Unhandled` when the function failed (an error, a time-out, a crash), as Lambda's X-Amz-Function-Error. */
  readonly functionError?: 'Unhandled';
  readonly durationMs: number;
}

export interface FunctionFailure {
  readonly function: string;
  readonly purpose: string;
  readonly error: string;
  readonly logTail: string;
}

interface Invocation {
  readonly requestId: string;
  readonly payload: string;
  readonly purpose: string;
  readonly started: number;
  readonly resolve: (result: InvocationResult) => void;
  delivered: boolean;
  timer?: NodeJS.Timeout;
}

interface Environment {
  readonly id: number;
  readonly fn: LambdaFunction;
  readonly server: Server;
  readonly process: ChildProcess;
  readonly logStream: string;
  current?: Invocation;
  waitingNext?: ServerResponse;
  dead: boolean;
}

export interface LambdaServiceOptions {
  /** A folder of the test's own, for the code, runtime and /tmp folders. */
  readonly workDirectory: string;
  /** The local AWS endpoint every SDK call goes to. */
  readonly awsEndpointUrl: string;
  readonly evaluator: PolicyEvaluator;
  /** Issues the credentials a function's role session gets (the endpoint knows the caller by them). */
  readonly credentialsFor: (principal: Principal) => Credentials;
  /** Execution environments per function at most; further invocations wait for one. */
  readonly maxEnvironments?: number;
}

const LOG_LINES_KEPT = 400;
/** The SDK's service-specific endpoint variables (`AWS_ENDPOINT_URL_<SERVICE ID>`) the functions' clients honour. */
const SERVICE_ENDPOINT_VARIABLES = ['DYNAMODB', 'SQS', 'SECRETS_MANAGER', 'LAMBDA', 'STS', 'CLOUDWATCH_LOGS', 'KMS', 'S3', 'CODEBUILD'];

/**
 * Runs the bundled functions the way Lambda does: each function's asset copied to a read-only
 * task folder, started by a runtime interface client of our own (runtime-bootstrap.ts) under
 * Node 24, with only the template's environment plus Lambda's reserved variables, its own role
 * session's credentials, writable /tmp only, as an unprivileged user when the test runs as root.
 * One invocation at a time per execution environment; warm environments are reused; the
 * function's Timeout is enforced by killing the environment.
 */
export class LambdaService {
  readonly failures: FunctionFailure[] = [];
  /** Lines a function logged at level ERROR (its own logger's, or console.error in Lambda's format). */
  readonly errorLines: { function: string; line: string }[] = [];
  private readonly environments = new Map<string, Environment[]>();
  private readonly waiting = new Map<string, Invocation[]>();
  private readonly logs = new Map<string, string[]>();
  private readonly prepared = new Map<string, Promise<{ taskRoot: string }>>();
  private readonly credentials = new Map<string, Credentials>();
  private runtimeDirectory: Promise<string> | undefined;
  private nextEnvironmentId = 1;
  private stopped = false;
  private readonly options: LambdaServiceOptions;
  /** The unprivileged user functions run as when the test runs as root. */
  private readonly user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

  constructor(options: LambdaServiceOptions) {
    this.options = options;
  }

  /** The function's role session, as IAM sees its calls. */
  principalOf(fn: LambdaFunction): Principal {
    return { label: fn.logicalId, arn: sessionArn(fn.role, fn.name), role: fn.role };
  }

  /** The last lines the function's environments wrote (stdout and stderr), for failure messages. */
  logTail(fn: LambdaFunction, lines = 10, width = 700): string {
    return (this.logs.get(fn.logicalId) ?? [])
      .slice(-lines)
      .map((line) => (line.length > width ? `${line.slice(0, width)}…` : line))
      .join('\n');
  }

  /** The functions invoked so far, by logical id. */
  readonly invoked = new Set<string>();

  /** The processes of the live execution environments (for checks of whom they run as). */
  processes(): { fn: string; pid: number }[] {
    return [...this.environments.values()]
      .flat()
      .filter((environment) => !environment.dead && environment.process.pid !== undefined)
      .map((environment) => ({ fn: environment.fn.logicalId, pid: environment.process.pid! }));
  }

  /** Invokes the function synchronously (RequestResponse) with a JSON payload. */
  invoke(fn: LambdaFunction, payload: string, purpose: string): Promise<InvocationResult> {
    if (this.stopped) return Promise.reject(new Error('The Lambda emulator is stopped'));
    this.invoked.add(fn.logicalId);
    const requestId = randomUUID();
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
      return Promise.resolve(
        this.failed(
          fn,
          purpose,
          requestId,
          Date.now(),
          'RequestTooLargeException',
          `Request must be smaller than ${MAX_PAYLOAD_BYTES} bytes for the InvokeFunction operation`,
        ),
      );
    }
    return new Promise<InvocationResult>((resolve) => {
      const invocation: Invocation = { requestId, payload, purpose, started: Date.now(), resolve, delivered: false };
      const pool = this.environments.get(fn.logicalId) ?? [];
      const free = pool.find((environment) => !environment.dead && !environment.current);
      if (free) return this.assign(free, invocation);
      if (pool.filter((environment) => !environment.dead).length < (this.options.maxEnvironments ?? 3)) {
        this.startEnvironment(fn).then(
          (environment) => this.assign(environment, invocation),
          (error: Error) => resolve(this.failed(fn, purpose, requestId, invocation.started, 'Runtime.Unavailable', error.message)),
        );
        return;
      }
      this.waiting.set(fn.logicalId, [...(this.waiting.get(fn.logicalId) ?? []), invocation]);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.environments.values()].flat();
    await Promise.all(all.map((environment) => this.kill(environment)));
    for (const waiting of this.waiting.values()) {
      for (const invocation of waiting) invocation.resolve(errorResult(invocation, 'Runtime.Unavailable', 'The emulator stopped'));
    }
  }

  // --- Preparation -----------------------------------------------------------------------------

  private runtime(): Promise<string> {
    this.runtimeDirectory ??= (async () => {
      const directory = join(this.options.workDirectory, 'runtime');
      await mkdir(directory, { recursive: true });
      const source = join(dirname(fileURLToPath(import.meta.url)), 'runtime-bootstrap.ts');
      await copyFile(source, join(directory, 'bootstrap.mts'));
      await readOnly(directory);
      return directory;
    })();
    return this.runtimeDirectory;
  }

  /** The function's code as Lambda unpacks it: a copy of the asset no process may change. */
  private prepare(fn: LambdaFunction): Promise<{ taskRoot: string }> {
    let prepared = this.prepared.get(fn.logicalId);
    if (!prepared) {
      prepared = (async () => {
        const taskRoot = join(this.options.workDirectory, 'task', fn.logicalId);
        await cp(fn.codeDirectory, taskRoot, { recursive: true });
        await readOnly(taskRoot);
        return { taskRoot };
      })();
      this.prepared.set(fn.logicalId, prepared);
    }
    return prepared;
  }

  private credentialsOf(fn: LambdaFunction): Credentials {
    let credentials = this.credentials.get(fn.logicalId);
    if (!credentials) {
      credentials = this.options.credentialsFor(this.principalOf(fn));
      this.credentials.set(fn.logicalId, credentials);
    }
    return credentials;
  }

  private async startEnvironment(fn: LambdaFunction): Promise<Environment> {
    if (!fn.runtime.startsWith('nodejs')) throw new Error(`${fn.logicalId}: the runtime ${fn.runtime} is not emulated`);
    const wanted = Number(/^nodejs(\d+)\.x$/.exec(fn.runtime)?.[1]);
    const running = Number(process.versions.node.split('.')[0]);
    if (wanted !== running) throw new Error(`${fn.logicalId}: runtime ${fn.runtime}, but the test runs Node ${process.versions.node}`);
    // As root, functions run as nobody, who may not enter the folder this test's Node lives in.
    const [{ taskRoot }, runtimeDirectory, node] = await Promise.all([this.prepare(fn), this.runtime(), readableNode()]);
    const id = this.nextEnvironmentId++;
    const tmp = join(this.options.workDirectory, 'tmp', `${fn.logicalId}-${id}`);
    await mkdir(dirname(tmp), { recursive: true });
    await chmod(dirname(tmp), 0o755);
    await mkdir(tmp, { mode: 0o700 });
    if (this.user) await chown(tmp, this.user.uid, this.user.gid);

    const date = new Date().toISOString().slice(0, 10).replace(/-/g, '/');
    const logStream = `${date}/[$LATEST]${randomBytes(16).toString('hex')}`;
    // Lambda writes the function's logs with its execution role: without the grant they are lost.
    const logStreamArn = `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${fn.logGroupName}:log-stream:${logStream}`;
    for (const action of ['logs:CreateLogStream', 'logs:PutLogEvents']) {
      await this.options.evaluator.authorize(this.principalOf(fn), action, logStreamArn, {
        purpose: `Lambda writing the logs of ${fn.logicalId}`,
      });
    }

    const server = createServer((request, response) => this.runtimeApi(environment, request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const credentials = this.credentialsOf(fn);
    const endpoints = Object.fromEntries(
      SERVICE_ENDPOINT_VARIABLES.map((service) => [`AWS_ENDPOINT_URL_${service}`, this.options.awsEndpointUrl]),
    );
    const env: Record<string, string> = {
      ...fn.environment,
      ...endpoints,
      AWS_ENDPOINT_URL: this.options.awsEndpointUrl,
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_LAMBDA_FUNCTION_NAME: fn.name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_LAMBDA_LOG_GROUP_NAME: fn.logGroupName,
      AWS_LAMBDA_LOG_STREAM_NAME: logStream,
      AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
      AWS_LAMBDA_RUNTIME_API: `127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SESSION_TOKEN: credentials.sessionToken,
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      LAMBDA_TASK_ROOT: taskRoot,
      LAMBDA_RUNTIME_DIR: runtimeDirectory,
      _HANDLER: fn.handler,
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      PATH: `${dirname(node)}:/usr/local/bin:/usr/bin/:/bin:/opt/bin`,
      NODE_PATH: `/opt/nodejs/node_modules:${runtimeDirectory}/node_modules:${runtimeDirectory}:${taskRoot}`,
      // Lambda's /tmp: the only place a function may write (a private one per environment here).
      TMPDIR: tmp,
      HOME: tmp,
    };
    const child = spawn(node, ['--expose-gc', '--max-http-header-size=81920', join(runtimeDirectory, 'bootstrap.mts')], {
      cwd: taskRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      ...(this.user ? { uid: this.user.uid, gid: this.user.gid } : {}),
    });
    const environment: Environment = { id, fn, server, process: child, logStream, dead: false };
    const log = (stream: string) => (chunk: Buffer) => {
      const lines = this.logs.get(fn.logicalId) ?? [];
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        lines.push(`[${fn.logicalId}#${id} ${stream}] ${line.length > 2000 ? `${line.slice(0, 2000)}…` : line}`);
        // A failed invocation is reported as such; anything else logged as an error is reported too.
        if (isErrorLine(line) && !line.includes('\tInvoke Error \t'))
          this.errorLines.push({ function: fn.logicalId, line: line.slice(0, 1500) });
      }
      this.logs.set(fn.logicalId, lines.slice(-LOG_LINES_KEPT));
    };
    child.stdout?.on('data', log('out'));
    child.stderr?.on('data', log('err'));
    child.on('error', (error) => {
      log('err')(Buffer.from(`The runtime could not be started: ${error.message}`));
      environment.dead = true;
      const invocation = environment.current;
      if (invocation)
        this.finish(
          environment,
          invocation,
          this.failed(fn, invocation.purpose, invocation.requestId, invocation.started, 'Runtime.Unavailable', error.message),
        );
    });
    child.on('exit', (code, signal) => {
      environment.dead = true;
      server.close();
      server.closeAllConnections();
      const invocation = environment.current;
      if (invocation && !this.stopped) {
        this.finish(
          environment,
          invocation,
          this.failed(
            fn,
            invocation.purpose,
            invocation.requestId,
            invocation.started,
            'Runtime.ExitError',
            `RequestId: ${invocation.requestId} Error: Runtime exited with ${signal ? `signal: ${signal}` : `error: exit status ${code}`}`,
          ),
        );
      }
      this.environments.set(
        fn.logicalId,
        (this.environments.get(fn.logicalId) ?? []).filter((candidate) => candidate !== environment),
      );
      this.dispatchWaiting(fn);
    });
    this.environments.set(fn.logicalId, [...(this.environments.get(fn.logicalId) ?? []), environment]);
    return environment;
  }

  // --- Invocations -----------------------------------------------------------------------------

  private assign(environment: Environment, invocation: Invocation): void {
    environment.current = invocation;
    invocation.timer = setTimeout(() => {
      const seconds = environment.fn.timeoutSeconds;
      const message = `${new Date().toISOString()} ${invocation.requestId} Task timed out after ${seconds.toFixed(2)} seconds`;
      this.finish(
        environment,
        invocation,
        this.failed(environment.fn, invocation.purpose, invocation.requestId, invocation.started, 'Sandbox.Timedout', message),
      );
      void this.kill(environment);
    }, environment.fn.timeoutSeconds * 1000);
    if (environment.waitingNext) this.deliver(environment);
  }

  private deliver(environment: Environment): void {
    const response = environment.waitingNext;
    const invocation = environment.current;
    if (!response || !invocation || invocation.delivered) return;
    environment.waitingNext = undefined;
    invocation.delivered = true;
    response.writeHead(200, {
      'content-type': 'application/json',
      'lambda-runtime-aws-request-id': invocation.requestId,
      'lambda-runtime-deadline-ms': String(invocation.started + environment.fn.timeoutSeconds * 1000),
      'lambda-runtime-invoked-function-arn': environment.fn.arn,
      'lambda-runtime-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')};Sampled=0`,
    });
    response.end(invocation.payload);
  }

  private finish(environment: Environment, invocation: Invocation, result: InvocationResult): void {
    if (environment.current !== invocation) return;
    clearTimeout(invocation.timer);
    environment.current = undefined;
    invocation.resolve(result);
    if (!environment.dead) this.dispatchWaiting(environment.fn, environment);
  }

  private dispatchWaiting(fn: LambdaFunction, environment?: Environment): void {
    const queue = this.waiting.get(fn.logicalId) ?? [];
    if (queue.length === 0 || this.stopped) return;
    if (environment && !environment.dead && !environment.current) {
      this.assign(environment, queue.shift()!);
      return;
    }
    const live = (this.environments.get(fn.logicalId) ?? []).filter((candidate) => !candidate.dead);
    const free = live.find((candidate) => !candidate.current);
    if (free) this.assign(free, queue.shift()!);
    else if (live.length < (this.options.maxEnvironments ?? 3)) {
      const invocation = queue.shift()!;
      this.startEnvironment(fn).then(
        (started) => this.assign(started, invocation),
        (error: Error) =>
          invocation.resolve(
            this.failed(fn, invocation.purpose, invocation.requestId, invocation.started, 'Runtime.Unavailable', error.message),
          ),
      );
    }
  }

  /** Lambda's error document for a failed invocation, recorded as a failure of the function. */
  private failed(
    fn: LambdaFunction,
    purpose: string,
    requestId: string,
    started: number,
    errorType: string,
    errorMessage: string,
  ): InvocationResult {
    this.failures.push({ function: fn.logicalId, purpose, error: `${errorType}: ${errorMessage}`, logTail: this.logTail(fn, 4) });
    return {
      requestId,
      payload: JSON.stringify({ errorType, errorMessage, trace: [] }),
      functionError: 'Unhandled',
      durationMs: Date.now() - started,
    };
  }

  private runtimeApi(environment: Environment, request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (request.url ?? '').replace(/^\/2018-06-01\/runtime/, '');
      const invocation = environment.current;
      const fn = environment.fn;
      if (request.method === 'GET' && path === '/invocation/next') {
        environment.waitingNext = response;
        this.deliver(environment);
        return;
      }
      const answered = /^\/invocation\/([^/]+)\/(response|error)$/.exec(path);
      if (request.method === 'POST' && answered) {
        response.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"OK"}');
        if (!invocation || invocation.requestId !== answered[1]) return;
        if (answered[2] === 'response') {
          if (Buffer.byteLength(body) > MAX_PAYLOAD_BYTES) {
            this.finish(
              environment,
              invocation,
              this.failed(
                fn,
                invocation.purpose,
                invocation.requestId,
                invocation.started,
                'Function.ResponseSizeTooLarge',
                `Response payload size exceeded maximum allowed payload size (${MAX_PAYLOAD_BYTES} bytes).`,
              ),
            );
          } else {
            this.finish(environment, invocation, {
              requestId: invocation.requestId,
              payload: body,
              durationMs: Date.now() - invocation.started,
            });
          }
        } else {
          const error = safeJson(body) as { errorType?: string; errorMessage?: string } | undefined;
          const failure = this.failed(
            fn,
            invocation.purpose,
            invocation.requestId,
            invocation.started,
            error?.errorType ?? 'Unknown',
            error?.errorMessage ?? body,
          );
          this.finish(environment, invocation, { ...failure, payload: body });
        }
        return;
      }
      if (request.method === 'POST' && path === '/init/error') {
        response.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"OK"}');
        const error = safeJson(body) as { errorType?: string; errorMessage?: string } | undefined;
        if (invocation) {
          const failure = this.failed(
            fn,
            invocation.purpose,
            invocation.requestId,
            invocation.started,
            error?.errorType ?? 'Runtime.InitError',
            error?.errorMessage ?? body,
          );
          this.finish(environment, invocation, { ...failure, payload: body });
        }
        void this.kill(environment);
        return;
      }
      response.writeHead(404).end();
    });
  }

  private async kill(environment: Environment): Promise<void> {
    environment.dead = true;
    const child = environment.process;
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
      await exited;
    }
    environment.server.closeAllConnections();
    await new Promise<void>((resolve) => environment.server.close(() => resolve()));
  }
}

function errorResult(invocation: Invocation, errorType: string, errorMessage: string): InvocationResult {
  return {
    requestId: invocation.requestId,
    payload: JSON.stringify({ errorType, errorMessage, trace: [] }),
    functionError: 'Unhandled',
    durationMs: Date.now() - invocation.started,
  };
}

function isErrorLine(line: string): boolean {
  if (/^\S+\t\S+\t(ERROR|FATAL)\t/.test(line)) return true;
  const parsed = line.startsWith('{') ? safeJson(line) : undefined;
  const level = (parsed as { level?: unknown } | undefined)?.level;
  return typeof level === 'string' && ['ERROR', 'CRITICAL', 'FATAL'].includes(level.toUpperCase());
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Read-only for everyone: folders r-x, files r-- (r-x where executable). */
async function readOnly(path: string): Promise<void> {
  const entries = await readdir(path, { withFileTypes: true });
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await readOnly(child);
    else if (entry.isFile()) await chmod(child, 0o444);
  }
  await chmod(path, 0o555);
}
