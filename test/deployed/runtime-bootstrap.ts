/**
 * A Lambda runtime interface client for Node.js, as the managed `nodejs*.x` runtimes run one:
 * loads the handler named by `_HANDLER` from `LAMBDA_TASK_ROOT`, then loops over the Runtime API
 * at `AWS_LAMBDA_RUNTIME_API` (next invocation → handler → response or error). The emulator
 * copies this file into the runtime folder and starts it as the function's process; it imports
 * nothing from the project.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const RUNTIME_API = `http://${process.env.AWS_LAMBDA_RUNTIME_API}/2018-06-01/runtime`;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One HTTP call to the Runtime API, without any client-side time limit (`next` waits as long as it must). */
function call(method: string, url: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

interface ErrorPayload {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace: string[];
}

function errorPayload(error: unknown, fallbackType: string): ErrorPayload {
  if (error instanceof Error) {
    return { errorType: error.name || fallbackType, errorMessage: error.message, trace: (error.stack ?? '').split('\n') };
  }
  return { errorType: fallbackType, errorMessage: String(error), trace: [] };
}

async function postError(path: string, error: unknown, fallbackType: string): Promise<void> {
  const payload = errorPayload(error, fallbackType);
  // As Lambda's Node.js runtime logs a failed invocation.
  console.error(`${new Date().toISOString()}\t${currentRequest ?? 'undefined'}\tERROR\tInvoke Error \t${JSON.stringify(payload)}`);
  await call('POST', `${RUNTIME_API}${path}`, JSON.stringify(payload), {
    'content-type': 'application/json',
    'lambda-runtime-function-error-type': payload.errorType,
  });
}

type Handler = (event: unknown, context: Record<string, unknown>, callback?: (error: unknown, result?: unknown) => void) => unknown;

/** `index.handler` → export `handler` of `index.js`, `index.mjs` or `index.cjs` in the task root. */
async function loadHandler(): Promise<Handler> {
  const spec = process.env._HANDLER ?? '';
  const root = process.env.LAMBDA_TASK_ROOT ?? process.cwd();
  const slash = spec.lastIndexOf('/');
  const [file, ...path] = spec.slice(slash + 1).split('.');
  const modulePath = join(root, spec.slice(0, slash + 1), file ?? '');
  const candidate = ['.js', '.mjs', '.cjs'].map((extension) => `${modulePath}${extension}`).find((name) => existsSync(name));
  if (!candidate || path.length === 0) {
    throw Object.assign(new Error(`Cannot find module '${modulePath}'`), { name: 'Runtime.ImportModuleError' });
  }
  let value: unknown = await import(pathToFileURL(candidate).href);
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  if (typeof value !== 'function') {
    throw Object.assign(new Error(`${spec} is undefined or not exported`), { name: 'Runtime.HandlerNotFound' });
  }
  return value as Handler;
}

let currentRequest: string | undefined;

async function failCurrent(error: unknown, type: string): Promise<never> {
  if (currentRequest) await postError(`/invocation/${currentRequest}/error`, error, type).catch(() => undefined);
  else await postError('/init/error', error, type).catch(() => undefined);
  process.exit(129);
}

process.on('uncaughtException', (error) => void failCurrent(error, 'Runtime.UncaughtException'));
process.on('unhandledRejection', (reason) => void failCurrent(reason, 'Runtime.UnhandledPromiseRejection'));

let handler: Handler;
try {
  handler = await loadHandler();
} catch (error) {
  await postError('/init/error', error, 'Runtime.ImportModuleError');
  process.exit(1);
}

for (;;) {
  const next = await call('GET', `${RUNTIME_API}/invocation/next`);
  const requestId = String(next.headers['lambda-runtime-aws-request-id']);
  const deadline = Number(next.headers['lambda-runtime-deadline-ms']);
  currentRequest = requestId;
  const context: Record<string, unknown> = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: next.headers['lambda-runtime-invoked-function-arn'],
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  try {
    const event = JSON.parse(next.body) as unknown;
    const result = await new Promise<unknown>((resolve, reject) => {
      const callback = (error: unknown, value?: unknown) => (error ? reject(error) : resolve(value));
      const returned = handler(event, context, callback);
      if (returned && typeof (returned as Promise<unknown>).then === 'function') (returned as Promise<unknown>).then(resolve, reject);
      else if (handler.length < 3) resolve(returned);
    });
    await call('POST', `${RUNTIME_API}/invocation/${requestId}/response`, JSON.stringify(result === undefined ? null : result), {
      'content-type': 'application/json',
    });
  } catch (error) {
    await postError(`/invocation/${requestId}/error`, error, 'Error');
  }
  currentRequest = undefined;
}
