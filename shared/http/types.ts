import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { TokenClaims } from '#shared/auth/jwt.ts';
import type { Course, Enrollment } from '#shared/courses/course.ts';
import type { User } from '#shared/users/user.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** A parsed request body: JSON object fields, or form fields (strings, string arrays, files). */
export type RequestBody = Readonly<Record<string, unknown>>;

/** The user behind a valid token. */
export interface Caller extends User {
  readonly token: TokenClaims;
}

/** What the middleware stack hands the handler through the Lambda context (set before it runs). */
export interface ApiContext extends Context {
  caller?: Caller;
  /** On course-scoped routes: the course and the caller's enrollment in it (if any). */
  course?: Course;
  enrollment?: Enrollment;
  items?: Record<string, unknown>;
  body?: RequestBody;
}
