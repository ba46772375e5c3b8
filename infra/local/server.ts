import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { maxBodyBytes } from '#shared/config.ts';
import { errorEnvelope, failEnvelope, prefersHttpStatus, renderEnvelope } from '#shared/http/envelope.ts';
import { bodyTooLarge } from '#shared/http/failures.ts';
import { runAsFunction } from '#shared/environment.ts';
import { matchRoute, routes, workers, type RouteName } from '#functions/definitions.ts';
import type { FunctionName } from '#infra/function-access.ts';
import { localFunctionScope } from './functions.ts';
import type { ApiEvent, ApiResult } from '#shared/http/types.ts';
import { requestTarget, toApiGatewayEvent, writeResult, type MatchedRoute } from './api-gateway.ts';
import { hostRefusal, localApiHosts } from './host-names.ts';
import { apiCorsRules, corsAnswer, type CorsRules } from '#infra/cors.ts';
import { startLocalGradingQueue, type LocalGradingQueue } from './grading-queue.ts';
import { startLocalWebhookQueue, type LocalWebhookQueue } from './webhook-queue.ts';
import { startLocalSummariesQueue, type LocalSummariesQueue } from './summaries-queue.ts';
import { startLocalOutboxRelay, type LocalOutboxRelay } from './webhook-outbox.ts';
import { startLocalLtiScoreQueue, type LocalLtiScoreQueue } from './lti-score-queue.ts';
import { startLocalCourseJobSweep } from './course-job-sweep.ts';
import type { LocalSchedule } from './schedule.ts';

type LambdaHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** API Gateway's own payload limit; smaller limits are the functions' to enforce. */
const GATEWAY_PAYLOAD_LIMIT = 10 * 1024 * 1024;
const FUNCTION_TIMEOUT_MS = 29_000;

export interface LocalApi {
  readonly url: string;
  /** The in-process grading queue feeding the worker function. */
  readonly gradingQueue: LocalGradingQueue;
  /** The in-process webhook queue feeding the delivery function. */
  readonly webhookQueue: LocalWebhookQueue;
  /** The in-process summaries queue feeding the summaries worker. */
  readonly summariesQueue: LocalSummariesQueue;
  /** The in-process LTI score queue feeding the lti-score function. */
  readonly ltiScoreQueue: LocalLtiScoreQueue;
  /** The outbox relay (webhook messages, grades for linked LMS courses), run every second (every minute in AWS). */
  readonly webhookOutbox: LocalOutboxRelay;
  /** The course job sweeper, run every 30 seconds (every few minutes in AWS). */
  readonly courseJobSweep: LocalSchedule;
  close(): Promise<void>;
}

/**
 * Serves the route table over HTTP the way API Gateway would: each request becomes a payload 2.0
 * event for the same handler export that runs in Lambda; unmatched requests go to the `$default`
 * function.
 */
export async function startLocalApi(options: {
  port: number;
  host?: string;
  log?: boolean;
  workers?: number;
  /** Each function's time limit (29 s: API Gateway's); tests of what happens when it runs out set less. */
  functionTimeoutMs?: number;
  /** Host names answered to besides localhost and the loopback addresses (`host` or `host:port`); default: `LOCAL_API_HOSTS`. */
  hosts?: readonly string[];
  /** Check every answer against its route's contract (CHECK_ANSWERS), logging and marking a mismatch. */
  checkAnswers?: boolean;
  /** Browser origins that may call the API (CORS_ORIGINS), answered as API Gateway's CORS configuration would; none: no CORS. */
  corsOrigins?: readonly string[];
  /**
   * How often the webhook outbox relay runs (default every second); 0: only when `webhookOutbox.run()`
   * is called (a test that counts every DynamoDB command of the process).
   */
  outboxRelayMs?: number;
  /** How often the course job sweeper runs (default every 30 seconds); 0: only when `courseJobSweep.run()` is called. */
  courseJobSweepMs?: number;
  /** A folder where the queues whose messages no stored record brings back (webhooks, LTI scores) keep them across a restart. */
  queueJournal?: string;
}): Promise<LocalApi> {
  const functionTimeoutMs = options.functionTimeoutMs ?? FUNCTION_TIMEOUT_MS;
  const handlers = await loadHandlers();
  const check = options.checkAnswers ? await answerCheck() : undefined;
  const gradingQueue = startLocalGradingQueue({ workers: options.workers });
  const webhookQueue = startLocalWebhookQueue(options.queueJournal && join(options.queueJournal, 'webhooks'));
  const summariesQueue = startLocalSummariesQueue();
  const ltiScoreQueue = startLocalLtiScoreQueue(options.queueJournal && join(options.queueJournal, 'lti-scores'));
  const webhookOutbox = startLocalOutboxRelay(options.outboxRelayMs);
  const courseJobSweep = startLocalCourseJobSweep(options.courseJobSweepMs);
  const extra = options.hosts ?? localApiHosts(process.env.LOCAL_API_HOSTS);
  const listenHost = options.host ?? '127.0.0.1';
  const cors = apiCorsRules(options.corsOrigins ?? []);
  const server = createServer((request, response) => {
    const started = performance.now();
    const refusal = hostRefusal(request.headers.host, { port: request.socket.localPort ?? 0, listenHost, extra });
    const answer = refusal
      ? refuseHost(request, refusal)
      : withCors(cors, request, () =>
          handle(request, handlers, functionTimeoutMs).then((result) => (check ? check(request, result) : result)),
        );
    void answer.then((result) => {
      writeResult(response, result);
      if (options.log) {
        const ms = (performance.now() - started).toFixed(0);
        console.log(`${request.method} ${request.url?.split('?')[0]} ${result.statusCode} ${ms}ms`);
      }
    });
  });
  await new Promise<void>((done) => server.listen(options.port, listenHost, done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://localhost:${port}/api`,
    gradingQueue,
    webhookQueue,
    summariesQueue,
    ltiScoreQueue,
    webhookOutbox,
    courseJobSweep,
    close: async () => {
      await closeServer(server);
      await courseJobSweep.stop();
      await webhookOutbox.stop();
      await gradingQueue.stop();
      await summariesQueue.stop();
      await webhookQueue.stop();
      await ltiScoreQueue.stop();
    },
  };
}

/**
 * The answer check of CHECK_ANSWERS, loaded only when asked for: an answer its route's contract
 * does not allow is logged, and named in its `Answer-Mismatch` header (the body stays as the
 * function sent it, so a frontend sees exactly what it would get deployed).
 */
async function answerCheck(): Promise<(request: IncomingMessage, result: ApiResult) => ApiResult> {
  const { checkAnswer, describeMismatch } = await import('#infra/answer-check.ts');
  return (request, result) => {
    const headers = (result.headers ?? {}) as Record<string, string>;
    const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    if (result.isBase64Encoded) return result;
    const mismatch = checkAnswer(
      { method: request.method ?? 'GET', path: requestTarget(request.url).pathname },
      { httpStatus: result.statusCode ?? 200, contentType, body: result.body ?? '' },
    );
    if (!mismatch) return result;
    console.warn(describeMismatch(mismatch));
    // A header is one line of Latin-1: the problems as JSON, other characters escaped.
    const header = JSON.stringify({ route: mismatch.route, problems: mismatch.problems }).replace(
      /[^\x20-\x7e]/g,
      (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    return { ...result, headers: { ...headers, 'Answer-Mismatch': header.slice(0, 4096) } };
  };
}

async function loadHandlers(): Promise<Map<string, LambdaHandler>> {
  const names = [...(Object.keys(routes) as RouteName[]), workers['not-found'].name];
  const modules = await Promise.all(
    names.map(async (name) => [name, (await import(`#functions/${name}/handler.ts`)).handler as LambdaHandler] as const),
  );
  return new Map(modules);
}

async function handle(request: IncomingMessage, handlers: Map<string, LambdaHandler>, timeoutMs: number): Promise<ApiResult> {
  const requestId = randomUUID();
  const preferHttpStatus = prefersHttpStatus([request.headers.prefer ?? []].flat().join(','));
  try {
    const body = await readBody(request, GATEWAY_PAYLOAD_LIMIT);
    if (body === undefined) {
      const failure = bodyTooLarge(maxBodyBytes());
      const refused = renderEnvelope(failEnvelope(failure.message), { httpStatus: 413, preferHttpStatus });
      // The rest of the body is not read: a client must not send its next request on this connection.
      return { ...refused, headers: { ...refused.headers, Connection: 'close' } };
    }
    const path = requestTarget(request.url).pathname;
    const match = matchRoute(request.method ?? 'GET', path);
    const [name, route]: [string, MatchedRoute] =
      match.kind === 'route'
        ? [match.name, { routeKey: match.routeKey, pathParameters: match.pathParameters }]
        : ['not-found', { routeKey: '$default' }];
    const event = toApiGatewayEvent(request, body, route, requestId);
    const handler = handlers.get(name);
    if (!handler) throw new Error(`No handler loaded for ${name}.`);
    return await runAsFunction(localFunctionScope(name as FunctionName), () => handler(event, lambdaContext(name, requestId, timeoutMs)));
  } catch {
    // API Gateway would answer 500 here; the envelope keeps clients working.
    return renderEnvelope(errorEnvelope(`The request could not be completed (request ${requestId}).`, 'INTERNAL'), {
      httpStatus: 500,
      preferHttpStatus,
    });
  }
}

/**
 * CORS as API Gateway answers it: a preflight is answered before any function runs (204, with the
 * CORS headers only for an allowed origin and method); any other request from an allowed origin
 * gets its answer with the allowed origin and the exposed headers added.
 */
async function withCors(rules: CorsRules, request: IncomingMessage, answer: () => Promise<ApiResult>): Promise<ApiResult> {
  const cors = corsAnswer(rules, {
    method: request.method ?? 'GET',
    origin: request.headers.origin,
    requestMethod: request.headers['access-control-request-method'],
    requestHeaders: request.headers['access-control-request-headers'],
  });
  if (cors.kind === 'preflight') {
    request.resume();
    return { statusCode: 204, headers: cors.headers, body: '' };
  }
  const result = await answer();
  if (cors.kind === 'none' || Object.keys(cors.headers).length === 0) return result;
  return { ...result, headers: { ...result.headers, ...cors.headers } };
}

/**
 * A request for a name that is not this server's (a web page that rebound its own name to this
 * machine, say): refused before any function runs, its body left unread.
 */
async function refuseHost(request: IncomingMessage, message: string): Promise<ApiResult> {
  request.resume();
  const preferHttpStatus = prefersHttpStatus([request.headers.prefer ?? []].flat().join(','));
  return renderEnvelope(failEnvelope(message), { httpStatus: 421, preferHttpStatus });
}

/** The whole body, or undefined once it passes the limit. */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      request.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function lambdaContext(functionName: string, awsRequestId: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
}
