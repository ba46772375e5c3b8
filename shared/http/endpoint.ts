import middy from '@middy/core';
import { maxBodyBytes } from '#shared/config.ts';
import type { ItemRefs, LoadedItems } from '#shared/data/items.ts';
import { authenticate, type ReadScope } from './middleware/authenticate.ts';
import { body } from './middleware/body.ts';
import { conditional } from './middleware/conditional.ts';
import { envelope } from './middleware/envelope.ts';
import { routes, type Access, type RouteDefinition, type RouteName } from './routes.ts';
import type { Course, Enrollment } from '#shared/courses/course.ts';
import type { ApiContext, ApiEvent, ApiResult, Caller, RequestBody } from './types.ts';

type CallerFor<A extends Access> = A extends 'public' ? undefined : A extends 'token-optional' ? Caller | undefined : Caller;

type CourseFor<A extends Access> = A extends `course:${string}` ? Course : undefined;

/** What a handler receives: everything parsed, checked and loaded. */
export interface ApiRequest<A extends Access, Items> {
  readonly caller: CallerFor<A>;
  /** On course routes: the course, and the caller's enrollment (absent for access-group staff). */
  readonly course: CourseFor<A>;
  readonly enrollment: Enrollment | undefined;
  readonly items: Items;
  readonly body: RequestBody;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly event: ApiEvent;
}

export interface EndpointDefinition<A extends Access, Refs extends ItemRefs> {
  /** The items this endpoint needs, fetched together with the token check in one round trip. */
  readonly reads?: (scope: ReadScope) => Refs;
  /** Returns the success `data`; throws an ApiFailure for a `fail`. */
  readonly handle: (request: ApiRequest<A, LoadedItems<Refs>>) => unknown;
}

/**
 * Builds the Lambda handler of a route from the one shared middy stack: envelope and error
 * mapping, the token check with the declared reads, and body parsing; routes with `etag` answer
 * conditional requests.
 */
export function endpoint<const Name extends RouteName, Refs extends ItemRefs = Record<never, never>>(
  name: Name,
  definition: EndpointDefinition<(typeof routes)[Name]['access'], Refs>,
) {
  const { access } = routes[name];
  const stack = middy<ApiEvent, ApiResult, Error, ApiContext>();
  if ((routes[name] as RouteDefinition).etag) stack.use(conditional());
  return stack
    .use(envelope())
    .use(authenticate(access, definition.reads))
    .use(body({ maxBytes: maxBodyBytes() }))
    .handler(
      async (event, context) =>
        definition.handle({
          caller: context.caller as CallerFor<(typeof routes)[Name]['access']>,
          course: context.course as CourseFor<(typeof routes)[Name]['access']>,
          enrollment: context.enrollment,
          items: (context.items ?? {}) as LoadedItems<Refs>,
          body: context.body ?? {},
          params: event.pathParameters ?? {},
          query: event.queryStringParameters ?? {},
          event,
        }) as unknown as ApiResult,
    );
}
