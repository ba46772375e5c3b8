import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Caller } from '#shared/auth/caller.ts';
import type { GroupRole } from '#shared/courses/access.ts';
import type { Course, Enrollment } from '#shared/courses/course.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;
export type { Caller };

/** A parsed request body: JSON object fields, or form fields (strings, string arrays, files). */
export type RequestBody = Readonly<Record<string, unknown>>;

/** What a route's reads may be built from, before anything is read: the raw request and the caller's id. */
export interface ReadScope<Params = Readonly<Record<string, string>>> {
  readonly userId: string;
  readonly params: Params;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The parsed body, unchecked (its fields are not yet the route's inputs); `{}` when it is refused after the token check. */
  readonly body: RequestBody;
}

/** What the middleware stack hands the handler through the Lambda context (set before it runs). */
export interface ApiContext extends Context {
  caller?: Caller;
  /** On course-scoped routes: the course and the caller's enrollment in it (if any). */
  course?: Course;
  enrollment?: Enrollment;
  /** On routes open to the course's access group: the caller's role there, when the group let them in. */
  acrossGroup?: GroupRole | undefined;
  items?: Record<string, unknown>;
  /** What the route's `alongside` read resolved to, once the caller was allowed. */
  alongside?: unknown;
  body?: RequestBody;
}
