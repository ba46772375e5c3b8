import middy from '@middy/core';
import { maxBodyBytes } from '#shared/config.ts';
import type { ItemRefs, LoadedItems } from '#shared/data/items.ts';
import { recordRequestWrites } from '#shared/data/request-writes.ts';
import { Refusal } from '#shared/errors.ts';
import { authenticate, type RouteReads } from './middleware/authenticate.ts';
import { body } from './middleware/body.ts';
import { conditional } from './middleware/conditional.ts';
import { envelope } from './middleware/envelope.ts';
import { PREFERENCE_APPLIED } from './envelope.ts';
import { inputOf, parseInput, parsePath, type CourseParameter, type Input, type ParameterNames, type Params } from './request.ts';
import { WithHeaders } from './paging.ts';
import type { Access, RouteDefinition } from './routes.ts';
import type { GroupRole } from '#shared/courses/access.ts';
import type { Course, Enrollment } from '#shared/courses/course.ts';
import type { ApiContext, ApiEvent, ApiResult, Caller, ReadScope, RequestView } from './types.ts';

type AccessOf<Definition extends RouteDefinition> = Definition['access'];

type CallerFor<A extends Access> = A extends 'public' ? undefined : A extends 'token-optional' ? Caller | undefined : Caller;

type CourseFor<A extends Access> = A extends `course:${string}` ? Course : undefined;

/** The caller's enrollment: certain where the route needs a role in the course; access-group staff have none. */
type EnrollmentFor<A extends Access> = A extends 'course:instructor-or-group-staff' | 'course:instructor-or-superuser'
  ? Enrollment | undefined
  : A extends `course:${string}`
    ? Enrollment
    : undefined;

type AcrossGroupFor<A extends Access> = A extends 'course:instructor-or-group-staff' ? GroupRole | undefined : undefined;

/** A request as its route reads it: each path parameter of its kind, the query, headers and body fields declared. */
export interface View<Definition extends RouteDefinition> extends Input<Definition> {
  readonly params: Params<Definition>;
}

/** The request's own path and query as sent (with an API Gateway stage prefix, if any): only for links back to it. */
export type RequestUrl = Pick<ApiEvent, 'rawPath' | 'rawQueryString'>;

/** What a handler receives: everything parsed, checked and loaded. */
export interface ApiRequest<Definition extends RouteDefinition, Items, Alongside = undefined> extends View<Definition> {
  readonly caller: CallerFor<AccessOf<Definition>>;
  /** On course routes: the course, and the caller's enrollment (absent for access-group staff). */
  readonly course: CourseFor<AccessOf<Definition>>;
  readonly enrollment: EnrollmentFor<AccessOf<Definition>>;
  /** On routes open to the course's access group: the caller's role in the group, when it let them in (see groupRoleOf). */
  readonly acrossGroup: AcrossGroupFor<AccessOf<Definition>>;
  readonly items: Items;
  /** What the route's `alongside` read resolved to. */
  readonly alongside: Alongside;
  /** A paged list's link to its next page is built from it (paging.ts). */
  readonly url: RequestUrl;
  /** The Authorization header as sent: a public route may know its client by the token it holds. */
  readonly authorization: string | undefined;
}

/** The path parameters a route answers itself when malformed: all but the course's, which the course check refuses. */
type OwnParameters<Definition extends RouteDefinition> = Exclude<ParameterNames<Definition['path']>, CourseParameter>;

/** What a route answering a malformed path parameter knows of its request: all but the path and what was read for it. */
export type MalformedRequest<Definition extends RouteDefinition> = Omit<
  ApiRequest<Definition, never, never>,
  'params' | 'items' | 'alongside'
>;

/**
 * What the route answers for each of its own path parameters when the value is not of its kind
 * (parameters.ts), given the value as sent: a Refusal (mostly its not-found, as for an id nothing
 * has), or its `data`. The domain gets only well-formed values.
 */
export type MalformedAnswers<Definition extends RouteDefinition> = {
  readonly [P in OwnParameters<Definition>]: (value: string, request: MalformedRequest<Definition>) => unknown;
};

export type EndpointDefinition<Definition extends RouteDefinition, Refs extends ItemRefs, Alongside> = {
  /** The items this endpoint needs, fetched together with the token check in one round trip. */
  readonly reads?: (scope: ReadScope<View<Definition>>) => Refs;
  /**
   * A read whose keys the token check cannot know (a Query), started at the same moment as its
   * BatchGetItem; `handle` gets the result only once the caller is allowed.
   */
  readonly alongside?: (scope: ReadScope<View<Definition>>) => Promise<Alongside>;
  /** Returns the success `data`; throws a Refusal for a `fail`. */
  readonly handle: (request: ApiRequest<Definition, LoadedItems<Refs>, Alongside>) => unknown;
} & ([OwnParameters<Definition>] extends [never]
  ? { readonly malformed?: undefined }
  : { readonly malformed: MalformedAnswers<Definition> });

/**
 * Builds the Lambda handler of a route from the one shared middy stack: envelope and error
 * mapping, the token check with the declared reads, and body parsing; the request is read once
 * into its view (its path parameters, query, headers and body, as its definition declares them),
 * which the reads and the handler get. Routes with `etag` answer conditional requests.
 *
 * Each invocation records its DynamoDB writes (shared/data/request-writes.ts), so that an `error`
 * answer says whether anything may have been written. Shortly before the function's time runs out
 * middy answers with a `TimeoutError` while the handler may still be running; the envelope then
 * ends the request's access to DynamoDB, so nothing is written after that answer.
 */
export function endpoint<const Definition extends RouteDefinition, Refs extends ItemRefs = Record<never, never>, Alongside = undefined>(
  route: Definition,
  definition: EndpointDefinition<Definition, Refs, Alongside>,
) {
  const { access } = route;
  const stack = middy<ApiEvent, ApiResult, Error, ApiContext>({ timeoutEarlyInMillis: TIME_TO_ANSWER_MS });
  if (route.etag) stack.use(conditional());
  const handler = stack
    .use(envelope(route.successStatus))
    .use(
      authenticate(
        access,
        definition as RouteReads,
        body({ maxBytes: Math.max(route.bodyBytes ?? 0, maxBodyBytes()), csvField: () => inputOf(route).csv }),
        {
          path: (event) => parsePath(route, event.pathParameters ?? {}),
          fields: (event, body) => parseInput(route, { query: event.queryStringParameters, headers: event.headers, body }),
        },
      ),
    )
    .handler(async (event, context) => {
      const { malformed, params, ...fields } = context.view as RequestView;
      const request = {
        caller: context.caller as CallerFor<AccessOf<Definition>>,
        course: context.course as CourseFor<AccessOf<Definition>>,
        enrollment: context.enrollment as EnrollmentFor<AccessOf<Definition>>,
        acrossGroup: context.acrossGroup as AcrossGroupFor<AccessOf<Definition>>,
        ...(fields as unknown as Input<Definition>),
        url: { rawPath: event.rawPath, rawQueryString: event.rawQueryString },
        authorization: event.headers?.authorization,
      };
      const data: unknown = malformed
        ? await refusedIfRefusal(answerMalformed(definition.malformed, malformed.name)(malformed.value, request))
        : await definition.handle({
            ...request,
            params: params as Params<Definition>,
            items: (context.items ?? {}) as LoadedItems<Refs>,
            alongside: context.alongside as Alongside,
          });
      if (!(data instanceof WithHeaders)) return data as ApiResult;
      answerHeaders.set(context, data.headers);
      return data.data as ApiResult;
    });
  return async (event: ApiEvent, context: ApiContext): Promise<ApiResult> => {
    answerHeaders.delete(context);
    const result = withoutBodyForHead(event, await recordRequestWrites(() => handler(event, context)));
    // A handler's own headers (a paged list's Link) go with its success answer only.
    const headers = answerHeaders.get(context);
    answerHeaders.delete(context);
    if (!headers || typeof result !== 'object' || (result.statusCode !== 200 && result.statusCode !== route.successStatus)) return result;
    return { ...result, headers: { ...result.headers, ...headers, ...preferencesApplied(result.headers, headers) } };
  };
}

/** The route's answer to a malformed path parameter; the course's never reaches it (the course check refuses it). */
function answerMalformed<Definition extends RouteDefinition>(answers: MalformedAnswers<Definition> | undefined, name: string) {
  const answer = (answers as Readonly<Record<string, MalformedAnswers<Definition>[OwnParameters<Definition>]>> | undefined)?.[name];
  if (!answer) throw new Error(`No answer to a malformed {${name}}`);
  return answer;
}

/** A Refusal an answer to a malformed parameter returns is thrown, as the domain's are. */
async function refusedIfRefusal(answer: unknown): Promise<unknown> {
  const resolved: unknown = await answer;
  if (resolved instanceof Refusal) throw resolved;
  return resolved;
}

/** The envelope's preference applied (`http-status`) and the handler's, named together. */
function preferencesApplied(
  envelope: Readonly<Record<string, boolean | number | string>> | undefined,
  handler: Readonly<Record<string, string>>,
): Record<string, string> {
  const applied = [envelope?.[PREFERENCE_APPLIED], handler[PREFERENCE_APPLIED]].filter((value) => value !== undefined);
  return applied.length > 0 ? { [PREFERENCE_APPLIED]: applied.join(', ') } : {};
}

/** A HEAD request (routed to its GET's function) gets the GET's status and headers, never its body. */
function withoutBodyForHead(event: ApiEvent, result: ApiResult): ApiResult {
  if (event.requestContext?.http?.method !== 'HEAD' || typeof result !== 'object') return result;
  return { ...result, body: '' };
}

/** The response headers a handler asked for (WithHeaders), by invocation. */
const answerHeaders = new WeakMap<ApiContext, Readonly<Record<string, string>>>();

/** How long before the function's time limit the answer is given: time to log, count and return it. */
const TIME_TO_ANSWER_MS = 250;
