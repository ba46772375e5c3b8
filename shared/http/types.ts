import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Caller } from '#shared/auth/caller.ts';
import type { GroupRole } from '#shared/courses/access.ts';
import type { Course, Enrollment } from '#shared/courses/course.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;
export type { Caller };

/** A parsed request body: JSON object fields, or form fields (strings, string arrays, files). */
export type RequestBody = Readonly<Record<string, unknown>>;

/** A request's query, headers and body fields, each read with its route's schemas (request.ts). */
export interface RequestFields {
  readonly query: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly body: RequestBody;
}

/** A path parameter that is not of its kind: which, and its value as sent. */
export interface MalformedParameter {
  readonly name: string;
  readonly value: string;
}

/**
 * The one view of a request its route's reads and handler get: the path parameters, the query,
 * the headers and the body, each read with the route's schemas; `malformed` names the first path
 * parameter not of its kind (and `params` then holds only those before it).
 */
export interface RequestView extends RequestFields {
  readonly params: Readonly<Record<string, string>>;
  readonly malformed?: MalformedParameter | undefined;
}

/** What a route's reads may be built from, before anything is read: its request's view and the caller's id. */
export type ReadScope<View = Omit<RequestView, 'malformed'>> = View & { readonly userId: string };

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
  /** The request read with its route's schemas, once its body is parsed. */
  view?: RequestView;
}
