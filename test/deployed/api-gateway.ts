import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ACCOUNT, REGION, type Deployment, type HttpRoute, type Throttle } from './cloudformation.ts';
import type { PolicyEvaluator } from './iam.ts';
import type { LambdaService } from './lambda-service.ts';

/** Bodies an HTTP API hands to Lambda as text (checked against AWS); everything else is base64. */
const TEXT_TYPES = /^\s*(text\/[^;]+|application\/(json|xml|javascript))\s*(;|$)/i;
/** An HTTP API's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface RouteCall {
  readonly routeKey: string;
  readonly function: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The envelope's status, when the body was one. */
  readonly envelope?: string;
}

/** Where a request goes: the route and its path parameters, by HTTP API's selection rules. */
export function selectRoute(
  routes: readonly HttpRoute[],
  method: string,
  path: string,
): { route: HttpRoute; pathParameters: Record<string, string> } | undefined {
  const segments = path.split('/').slice(1);
  let best: { route: HttpRoute; pathParameters: Record<string, string>; score: number[] } | undefined;
  for (const route of routes) {
    if (route.routeKey === '$default') continue;
    const [routeMethod, routePath] = route.routeKey.split(' ') as [string, string];
    if (routeMethod !== 'ANY' && routeMethod !== method) continue;
    const routeSegments = routePath.split('/').slice(1);
    const pathParameters: Record<string, string> = {};
    const score: number[] = [];
    let matches = true;
    for (const [index, segment] of routeSegments.entries()) {
      const greedy = /^\{(\w+)\+\}$/.exec(segment);
      if (greedy && index === routeSegments.length - 1) {
        if (segments.length <= index) matches = false;
        else pathParameters[greedy[1]!] = segments.slice(index).map(decode).join('/');
        score.push(0);
        break;
      }
      const value = segments[index];
      if (value === undefined || value === '') {
        matches = false;
        break;
      }
      const parameter = /^\{(\w+)\}$/.exec(segment);
      if (parameter) {
        pathParameters[parameter[1]!] = decode(value);
        score.push(1);
      } else if (segment === value) score.push(2);
      else {
        matches = false;
        break;
      }
    }
    if (!matches) continue;
    if (!routeSegments.at(-1)?.endsWith('+}') && routeSegments.length !== segments.length) continue;
    // Literal segments beat parameters, left to right; an exact method beats ANY.
    score.push(routeMethod === 'ANY' ? 0 : 1);
    if (!best || compare(score, best.score) > 0) best = { route, pathParameters, score };
  }
  if (best) return { route: best.route, pathParameters: best.pathParameters };
  const fallback = routes.find((route) => route.routeKey === '$default');
  return fallback ? { route: fallback, pathParameters: {} } : undefined;
}

function compare(a: number[], b: number[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const difference = (a[index] ?? -1) - (b[index] ?? -1);
    if (difference !== 0) return difference;
  }
  return 0;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A stage's throttling of one route, as API Gateway applies it: a token bucket holding up to
 * `burstLimit` requests, refilled at `rateLimit` a second; a request finding it empty is answered
 * 429 without reaching the function.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;
  private readonly throttle: Throttle;

  constructor(throttle: Throttle, now = performance.now()) {
    this.throttle = throttle;
    this.tokens = throttle.burstLimit;
    this.at = now;
  }

  take(now = performance.now()): boolean {
    this.tokens = Math.min(this.throttle.burstLimit, this.tokens + ((now - this.at) / 1000) * this.throttle.rateLimit);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * The HTTP API: routes requests by the template's route keys, checks that API Gateway may invoke
 * the integration's function (its AWS::Lambda::Permission), sends it the payload format 2.0 event
 * and turns its result into the HTTP response as API Gateway does.
 */
export class ApiGateway {
  readonly calls: RouteCall[] = [];
  url = '';
  /** Each throttled route's bucket, by route key (the stage's route settings apply to each route alone). */
  private readonly buckets = new Map<string, TokenBucket>();
  private server: Server | undefined;
  private readonly deployment: Deployment;
  private readonly lambda: LambdaService;
  private readonly evaluator: PolicyEvaluator;

  constructor(deployment: Deployment, lambda: LambdaService, evaluator: PolicyEvaluator) {
    this.deployment = deployment;
    this.lambda = lambda;
    this.evaluator = evaluator;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const api = this.deployment.api!;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
    }
    const requestId = `${randomBytes(6).toString('base64url')}=`;
    const send = (status: number, headers: Record<string, string | string[]>, body: Buffer | string) => {
      response.writeHead(status, { 'apigw-requestid': requestId, ...headers });
      response.end(body);
    };
    if (size > MAX_BODY_BYTES) return send(413, { 'content-type': 'application/json' }, '{"message":"Request Entity Too Large"}');
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    const selected = selectRoute(api.routes, method, url.pathname);
    if (!selected) return send(404, { 'content-type': 'application/json' }, '{"message":"Not Found"}');
    const { route, pathParameters } = selected;
    const fn = route.function;
    const record = (status: number, envelope?: string) =>
      this.calls.push({
        routeKey: route.routeKey,
        function: fn.logicalId,
        method,
        path: url.pathname,
        status,
        ...(envelope ? { envelope } : {}),
      });
    if (route.throttle) {
      const bucket = this.buckets.get(route.routeKey) ?? new TokenBucket(route.throttle);
      this.buckets.set(route.routeKey, bucket);
      if (!bucket.take()) {
        record(429);
        return send(429, { 'content-type': 'application/json' }, '{"message":"Too Many Requests"}');
      }
    }

    // API Gateway invokes the function as apigateway.amazonaws.com, for this API, stage and route.
    const routePath = route.routeKey === '$default' ? '$default' : `${route.routeKey.split(' ')[0]}${route.routeKey.split(' ')[1]}`;
    const sourceArn = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${api.id}/$default/${routePath}`;
    const permission = await this.evaluator.authorize(
      { label: 'apigateway.amazonaws.com', arn: 'apigateway.amazonaws.com' },
      'lambda:InvokeFunction',
      fn.arn,
      {
        resourcePolicy: this.deployment.functionPolicies.get(fn.arn),
        context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': ACCOUNT },
        purpose: `API Gateway route ${route.routeKey}`,
      },
    );
    if (!permission.allowed) {
      record(500);
      return send(500, { 'content-type': 'application/json' }, '{"message":"Internal Server Error"}');
    }
    if (route.payloadFormatVersion !== '2.0')
      throw new Error(`Route ${route.routeKey}: payload format ${route.payloadFormatVersion} is not emulated`);

    const headers: Record<string, string> = {};
    let cookies: string[] | undefined;
    for (let index = 0; index < request.rawHeaders.length; index += 2) {
      const name = request.rawHeaders[index]!.toLowerCase();
      const value = request.rawHeaders[index + 1]!;
      if (name === 'cookie') cookies = [...(cookies ?? []), ...value.split(/;\s*/).filter(Boolean)];
      else headers[name] = name in headers ? `${headers[name]},${value}` : value;
    }
    const sourceIp = request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1';
    headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${sourceIp}` : sourceIp;
    headers['x-forwarded-port'] = String(request.socket.localPort ?? 443);
    headers['x-forwarded-proto'] = 'http';
    headers['x-amzn-trace-id'] = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
    const query: Record<string, string> = {};
    for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
    const body = Buffer.concat(chunks);
    const text = TEXT_TYPES.test(headers['content-type'] ?? '');
    const now = new Date();
    const host = headers.host ?? `${api.id}.execute-api.${REGION}.amazonaws.com`;
    const event = {
      version: '2.0',
      routeKey: route.routeKey,
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      ...(cookies ? { cookies } : {}),
      headers,
      ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
      ...(Object.keys(pathParameters).length > 0 ? { pathParameters } : {}),
      requestContext: {
        accountId: ACCOUNT,
        apiId: api.id,
        domainName: host,
        domainPrefix: host.split('.')[0],
        http: { method, path: url.pathname, protocol: `HTTP/${request.httpVersion}`, sourceIp, userAgent: headers['user-agent'] ?? '' },
        requestId,
        routeKey: route.routeKey,
        stage: '$default',
        time: apiGatewayTime(now),
        timeEpoch: now.getTime(),
      },
      ...(body.length > 0 ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
      isBase64Encoded: body.length > 0 && !text,
    };

    const result = await Promise.race([
      this.lambda.invoke(fn, JSON.stringify(event), `${method} ${url.pathname} (${route.routeKey})`),
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), route.timeoutMillis).unref()),
    ]);
    if (result === 'timeout') {
      record(503);
      return send(503, { 'content-type': 'application/json' }, '{"message":"Service Unavailable"}');
    }
    if (result.functionError) {
      record(500);
      return send(500, { 'content-type': 'application/json' }, '{"message":"Internal Server Error"}');
    }
    const output = parse(result.payload);
    if (isObject(output) && 'statusCode' in output) {
      const responseHeaders: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries((output.headers ?? {}) as Record<string, unknown>))
        responseHeaders[name.toLowerCase()] = String(value);
      if (Array.isArray(output.cookies) && output.cookies.length > 0) responseHeaders['set-cookie'] = output.cookies.map(String);
      const raw = typeof output.body === 'string' ? output.body : '';
      const responseBody = output.isBase64Encoded === true ? Buffer.from(raw, 'base64') : Buffer.from(raw);
      const status = Number(output.statusCode);
      record(status, envelopeStatus(responseBody));
      return send(status, responseHeaders, responseBody);
    }
    // The "simple" response: whatever the function returned, as JSON, with status 200.
    const bodyText = typeof output === 'string' ? output : result.payload;
    record(200, envelopeStatus(Buffer.from(bodyText)));
    return send(200, { 'content-type': 'application/json' }, bodyText);
  }
}

function envelopeStatus(body: Buffer): string | undefined {
  const parsed = parse(body.toString('utf8'));
  return isObject(parsed) && typeof parsed.status === 'string' ? parsed.status : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `12/Mar/2020:19:03:58 +0000`, as requestContext.time. */
function apiGatewayTime(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}
