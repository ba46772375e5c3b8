/**
 * What a function of the service is: its route (method, paths, who may call it, what it reads from
 * a request) and what it may touch (tables, queues). Each function declares itself in
 * `functions/<name>/definition.ts`; `functions/definitions.ts` gathers them for the route table,
 * the local server, the CDK stack and the API docs. A function's bundle imports only its own.
 */
import type * as z from 'zod/mini';
import type { FunctionSetting } from '#shared/config.ts';
import type { CourseAccess } from '#shared/courses/access.ts';
import type { tables } from '#shared/data/tables.ts';
import type { ObjectArea } from '#shared/storage/keys.ts';

/**
 * DynamoDB actions by their IAM names (without `dynamodb:`). A transaction is authorized item by
 * item, so TransactWriteItems needs the action of each of its items (PutItem, UpdateItem,
 * DeleteItem, ConditionCheckItem). `Query <index>` queries one of the table's indexes.
 */
export type DataAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'Scan'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  | 'BatchWriteItem'
  | `Query ${string}`;

export type DataUse = Readonly<Partial<Record<keyof typeof tables, readonly DataAction[]>>>;

/**
 * S3 actions on the submissions bucket by their IAM names (without `s3:`), as shared/storage/objects.ts
 * needs them: HeadObject and a presigned GET need GetObject; a presigned POST PutObject; CopyObject
 * GetObject on its source and PutObject on its target; DeleteObjects DeleteObject on each key;
 * listing ListBucket.
 */
export type ObjectAction = 'GetObject' | 'PutObject' | 'DeleteObject' | 'ListBucket';

/** What a function does with the submissions bucket: actions on every key, or per key area (`uploads/`, `versions/`). */
export type ObjectUse = readonly ObjectAction[] | Readonly<Partial<Record<ObjectArea, readonly ObjectAction[]>>>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route.
 * - `public`: no token is read (the token endpoints take credentials in the body);
 * - `token-optional`: a token is checked when one is sent;
 * - `user`: any valid token; `faculty`: access level faculty or superuser; `superuser`;
 * - `course:…`: a role in the course named by the `{semester}` and `{course}` path parameters
 *   (see CourseAccess); the course is loaded with the token check.
 */
export type Access = 'public' | 'token-optional' | 'user' | 'faculty' | 'superuser' | CourseAccess;

/** Who may call a route, in words (the README's route table and the OpenAPI document). */
export const whoMayCall: Readonly<Record<Access, string>> = {
  public: 'anyone, no token needed',
  'token-optional': 'anyone; a token, when sent, must be valid',
  user: 'any valid token',
  faculty: 'faculty and superusers',
  superuser: 'superusers',
  'course:member': 'course members',
  'course:staff': 'course instructors and graders',
  'course:instructor': 'course instructors',
  'course:instructor-or-superuser': 'course instructors and superusers',
  'course:instructor-or-group-staff':
    "course staff; instructors and full access graders of the unarchived courses of the course's access group may read",
};

type Shape = Readonly<Record<string, z.ZodMiniType>>;

/** What a route reads from a request, as zod schemas (shared/http/fields.ts builds the fields). */
export interface RouteInput {
  readonly query?: Shape;
  /** Request headers beyond Authorization and Prefer, by their canonical names. */
  readonly headers?: Shape;
  /** Form fields, read alike from JSON, url-encoded and multipart bodies. */
  readonly body?: Shape;
  /** The body is one JSON document, handed over as parsed (its schema is the contract's). */
  readonly document?: true;
  /** The body field a `text/csv` body is read as (a route taking a CSV document). */
  readonly csv?: string;
}

/** What every function may touch besides its route's reads: tables, queues, the grading sandbox. */
export interface FunctionUse {
  /**
   * What the handler itself does with each table, as DynamoDB actions: its function is granted
   * exactly these (and its environment names exactly these tables). On routes, the shared
   * middleware's reads are added from `access` (see infra/function-access.ts): never list them
   * here. Items a handler declares in `reads` are fetched in the token check's BatchGetItem, so
   * their tables need `BatchGetItem`.
   */
  readonly data?: DataUse;
  /**
   * What the handler does with the submissions bucket (shared/storage/objects.ts): its function is
   * granted exactly these actions, on the areas named, and its environment names the bucket.
   */
  readonly objects?: ObjectUse;
  /** `send`: the function wakes the grading workers (SQS SendMessage on the grading queue). */
  readonly queue?: 'send';
  /** `publish`: the function publishes webhook events (SQS SendMessage on the webhook queue). */
  readonly events?: 'publish';
  /** `send`: the function queues summaries jobs (SQS SendMessage on the summaries queue). */
  readonly summariesQueue?: 'send';
  /** `send`: the function queues grades for linked LMS courses (SQS SendMessage on the LTI score queue). */
  readonly ltiScores?: 'send';
  /** `read`: the function reads the LTI tool's keys (shared/lti/tool-keys.ts: Secrets Manager GetSecretValue in AWS). */
  readonly ltiKey?: 'read';
  /**
   * `sign`: the function signs grading records with the deployment's record key; `publish`: it
   * publishes the record keys' public halves. Either reads the record keys' secret.
   */
  readonly recordKeys?: 'sign' | 'publish';
  /**
   * The deployment's settings its code reads of those given only to the functions that read them
   * (`functionSettings` of shared/config.ts): in AWS its environment holds each one the deployment
   * sets, and nothing else of them; locally it sees only these.
   */
  readonly settings?: readonly FunctionSetting[];
}

/**
 * A function that serves no route (a queue's worker, the `$default` route): what it is, for its
 * description, and what it may touch.
 */
export interface WorkerDefinition extends FunctionUse {
  readonly kind: 'worker';
  /** The function's name: its folder `functions/<name>/`. */
  readonly name: string;
  readonly summary: string;
  /** Runs grading jobs in the grading sandbox (in AWS: CodeBuild builds and the jobs bucket). */
  readonly gradingSandbox?: true;
}

export interface RouteDefinition extends FunctionUse {
  readonly kind: 'route';
  /** The function's name: its folder `functions/<name>/`, and its key in the contract. */
  readonly name: string;
  readonly method: HttpMethod;
  /** API Gateway path syntax: `/api/{semester}/{course}/users`. */
  readonly path: string;
  /** Further paths served by the same function (the reference system moved some routes). */
  readonly aliases?: readonly string[];
  readonly access: Access;
  readonly summary: string;
  /** The success answer carries a strong ETag; a request whose If-None-Match matches it gets 304 Not Modified. */
  readonly etag?: true;
  /**
   * The success answer's HTTP status with `Prefer: http-status` when not 200: 202 for a route that
   * only queues the work it is asked for. The OpenAPI document, the answer check and the envelope
   * read it from here.
   */
  readonly successStatus?: 202;
  /** What the route reads from a request; built on the function's first request (and for the docs). */
  readonly input?: () => RouteInput;
  /** The largest body it takes, where more than MAX_BODY_BYTES (files sent in a multipart body). */
  readonly bodyBytes?: number;
}

export type FunctionDefinition = RouteDefinition | WorkerDefinition;

/**
 * A change of a course field that the courses list copies onto enrollments (display name,
 * archived): the course item in steps, the copies, the term the copies include, its audit entry.
 */
export function courseChangeData() {
  return {
    courses: ['UpdateItem', 'GetItem', 'ConditionCheckItem'],
    enrollments: ['Query', 'UpdateItem'],
    terms: ['GetItem', 'ConditionCheckItem'],
    audit: ['PutItem'],
  } as const satisfies DataUse;
}

/** A route's definition, its literal types kept (the handler's input types come from them). */
export const route = <const Definition extends Omit<RouteDefinition, 'kind'>>(definition: Definition) =>
  ({ kind: 'route', ...definition }) as const satisfies RouteDefinition;

/** A worker's definition. */
export const worker = <const Definition extends Omit<WorkerDefinition, 'kind'>>(definition: Definition) =>
  ({ kind: 'worker', ...definition }) as const satisfies WorkerDefinition;

/**
 * The names of the routes, filled in by functions/definitions.ts (declaration merging), so that
 * what is keyed by route name here (the contract) is checked against the definitions without
 * importing them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface RouteNames {}

export type RouteName = keyof RouteNames & string;

export interface RouteKey {
  readonly name: RouteName;
  readonly method: HttpMethod;
  readonly path: string;
}

/** Every (method, path) pair the routes serve, aliases included: one API Gateway route each. */
export const routeKeysOf = (routes: Readonly<Record<string, RouteDefinition>>): readonly RouteKey[] =>
  Object.values(routes).flatMap((route) =>
    [route.path, ...(route.aliases ?? [])].map((path) => ({ name: route.name as RouteName, method: route.method, path })),
  );

/** A method an API Gateway route may serve: a route's own, or HEAD beside a GET. */
export type GatewayMethod = HttpMethod | 'HEAD';

export interface GatewayRouteKey extends Omit<RouteKey, 'method'> {
  readonly method: GatewayMethod;
}

/**
 * The route keys API Gateway serves: `keys`, and a HEAD key beside each GET key, to the same
 * function. An HTTP API sends a HEAD request only to a HEAD route (to `$default` otherwise), and
 * uptime probes send HEAD; the server drops the body of the GET's answer.
 */
export const gatewayRouteKeysOf = (keys: readonly RouteKey[]): readonly GatewayRouteKey[] =>
  keys.flatMap((key): GatewayRouteKey[] => (key.method === 'GET' ? [key, { ...key, method: 'HEAD' }] : [key]));

export type RouteMatch =
  | { kind: 'route'; name: RouteName; routeKey: string; pathParameters: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: GatewayMethod[] }
  /** The path would match but for an empty parameter segment (`/api/f26/sample//download`). */
  | { kind: 'missing-parameter'; parameter: string }
  | { kind: 'not-found' };

type Compiled = GatewayRouteKey & { readonly segments: readonly string[] };

/**
 * A matcher of requests to `keys`, the way API Gateway matches: literal segments win over
 * parameters. A path served only with other methods is "method not allowed"; anything else is
 * "not found".
 */
export function routeMatcher(keys: readonly GatewayRouteKey[]): (method: string, path: string) => RouteMatch {
  const compiled: readonly Compiled[] = keys.map((key) => ({ ...key, segments: key.path.split('/').slice(1) }));
  return (method, path) => matchRoute(compiled, method, path);
}

function matchRoute(compiled: readonly Compiled[], method: string, path: string): RouteMatch {
  const decoded = path.split('/').slice(1).map(safeDecode);
  if (decoded.some((segment) => segment === undefined)) return { kind: 'not-found' };
  if (decoded.some((segment) => segment === '')) return missingParameter(compiled, decoded as string[]);

  const candidates = compiled
    .map((route) => ({ route, score: matchScore(route.segments, decoded as string[]) }))
    .filter((candidate) => candidate.score >= 0)
    .sort((a, b) => b.score - a.score);
  if (candidates.length === 0) return { kind: 'not-found' };

  const best = candidates.find((candidate) => candidate.route.method === method.toUpperCase());
  if (!best) {
    return { kind: 'method-not-allowed', allowed: [...new Set(candidates.map((c) => c.route.method))] };
  }
  const pathParameters: Record<string, string> = {};
  best.route.segments.forEach((segment, index) => {
    const parameter = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (parameter) pathParameters[parameter] = decoded[index] ?? '';
  });
  return {
    kind: 'route',
    name: best.route.name,
    routeKey: `${best.route.method} ${best.route.path}`,
    pathParameters,
  };
}

function missingParameter(compiled: readonly Compiled[], segments: string[]): RouteMatch {
  for (const route of compiled) {
    if (route.segments.length !== segments.length) continue;
    const empty = route.segments.findIndex((segment, index) => segments[index] === '' && segment.startsWith('{'));
    const rest = segments.map((segment, index) => (index === empty ? 'x' : segment));
    if (empty >= 0 && !rest.includes('') && matchScore(route.segments, rest) >= 0) {
      return { kind: 'missing-parameter', parameter: (route.segments[empty] ?? '').slice(1, -1) };
    }
  }
  return { kind: 'not-found' };
}

/** -1 when the route does not match; otherwise higher for more literal segments, leftmost first. */
function matchScore(routeSegments: readonly string[], requestSegments: readonly string[]): number {
  if (routeSegments.length !== requestSegments.length) return -1;
  let score = 0;
  for (const [index, segment] of routeSegments.entries()) {
    const literal = !segment.startsWith('{');
    if (literal && segment !== requestSegments[index]) return -1;
    score = score * 2 + (literal ? 1 : 0);
  }
  return score;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
