import type { MiddlewareObj } from '@middy/core';
import { tokenFromAuthorization } from '#shared/auth/authorization-header.ts';
import { verifyToken, type TokenClaims } from '#shared/auth/jwt.ts';
import { courseAccess, isCourseAccess } from '#shared/courses/access.ts';
import { accessGroupRole } from '#shared/courses/group-access.ts';
import { isValidCode, type Course, type Enrollment } from '#shared/courses/course.ts';
import { courseRef } from '#shared/data/courses.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems, type ItemRefs } from '#shared/data/items.ts';
import { sessionRef, type Session } from '#shared/data/sessions.ts';
import { userRef } from '#shared/data/users.ts';
import { isFaculty, isSuperuser, type User } from '#shared/users/user.ts';
import { unauthenticated } from '../failures.ts';
import { forbidden, Refusal } from '#shared/errors.ts';
import { courseNotFound } from '#shared/courses/failures.ts';
import type { Access } from '../routes.ts';
import type { ApiContext, ApiEvent, ApiResult, ReadScope } from '../types.ts';
import { refusalKey, refusalMemory } from './refusals.ts';

export type ReadDeclaration = (scope: ReadScope) => ItemRefs;

/** What a route reads besides the token check's items (see EndpointDefinition in endpoint.ts). */
export interface RouteReads {
  readonly reads?: ReadDeclaration | undefined;
  readonly alongside?: ((scope: ReadScope) => Promise<unknown>) | undefined;
}

type Request = Parameters<NonNullable<MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>['before']>>[0];

/** Callers this function instance refused lately, whose next request skips the `alongside` read (refusals.ts). */
const refusals = refusalMemory();

const SESSION = '#session';
const CALLER = '#caller';
const COURSE = '#course';
const ENROLLMENT = '#enrollment';

const allowedBy: Record<Exclude<Access, `course:${string}`>, (user: User) => boolean> = {
  public: () => true,
  'token-optional': () => true,
  user: () => true,
  faculty: isFaculty,
  superuser: isSuperuser,
};

/**
 * The token check, folded into the handler's own reads: after the JWT is verified locally, the
 * user's session item, the caller's profile, on course routes the course and the caller's
 * enrollment, and every item the handler declared are fetched in one BatchGetItem, so an
 * authenticated read costs one DynamoDB round trip. A route's `alongside` read (a Query, whose
 * keys the BatchGetItem cannot hold) starts at the same moment; its result reaches the handler
 * only once the caller is allowed, and a refused request answers as if it had not been made. A
 * caller this instance refused the route lately gets no such read before the check (refusals.ts).
 *
 * The body is parsed once the token is verified, so that reads may be built from it (an
 * unauthenticated request is refused before its body is read); a body that cannot be taken is
 * refused after the token, course and role checks, as when it was parsed after them.
 * Checks run in the order token, course, role, body.
 */
export const authenticate = (
  access: Access,
  { reads, alongside }: RouteReads,
  body: MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const { event, context } = request;
    const parseBody = async (): Promise<void> => {
      await body.before?.(request);
    };
    context.items = {};
    if (access === 'public') return parseBody();
    const header = event.headers?.authorization;
    if (access === 'token-optional' && !header) return parseBody();

    const token = tokenFromAuthorization(header);
    const claims = token ? await verifyToken(token) : undefined;
    if (!claims) throw unauthenticated();
    const bodyRefused = await settle(parseBody());

    const params = event.pathParameters ?? {};
    const { semester, course } = params;
    const named =
      isCourseAccess(access) && semester && course && isValidCode(semester) && isValidCode(course) ? { semester, course } : undefined;
    // A course route's own reads are built only from a well-formed course; a bad one is refused below.
    const declares = !isCourseAccess(access) || named !== undefined;
    const scope: ReadScope = {
      userId: claims.userId,
      params: params as ReadScope['params'],
      query: event.queryStringParameters ?? {},
      headers: event.headers ?? {},
      body: bodyRefused.ok ? (context.body ?? {}) : {},
    };
    const readAlongside = declares ? alongside : undefined;
    const refused = readAlongside && named ? refusalKey(event.routeKey, named, claims.userId) : undefined;
    const along =
      readAlongside && !(refused && refusals.recently(refused)) ? settle(Promise.resolve(scope).then(readAlongside)) : undefined;
    try {
      await check(request, access, claims, named, declares ? reads?.(scope) : undefined);
      if (!bodyRefused.ok) throw bodyRefused.error;
    } catch (error) {
      if (refused && error instanceof Refusal && error.kind === 'forbidden') refusals.remember(refused);
      await along; // a refused request ends with nothing of its own still reading
      throw error;
    }
    if (refused) refusals.forget(refused);
    if (readAlongside) {
      // Not started for a caller refused lately, who is allowed now: read after the check.
      const outcome = await (along ?? settle(Promise.resolve(scope).then(readAlongside)));
      if (!outcome.ok) throw outcome.error;
      context.alongside = outcome.value;
    }
  },
});

/** The one BatchGetItem and the checks: token (session), course, role; sets the caller, course and items. */
async function check(
  { context }: Request,
  access: Access,
  claims: TokenClaims,
  named: { semester: string; course: string } | undefined,
  declared: ItemRefs | undefined,
): Promise<void> {
  const refs: ItemRefs = {
    ...declared,
    [SESSION]: sessionRef(claims.userId),
    [CALLER]: userRef(claims.userId),
  };
  if (named) {
    refs[COURSE] = courseRef(named.semester, named.course);
    refs[ENROLLMENT] = enrollmentRef(named.semester, named.course, claims.userId);
  }
  const {
    [SESSION]: session,
    [CALLER]: user,
    [COURSE]: loadedCourse,
    [ENROLLMENT]: enrollment,
    ...items
  } = (await getItems(refs)) as Record<string, unknown> as {
    [SESSION]?: Session;
    [CALLER]?: User;
    [COURSE]?: Course;
    [ENROLLMENT]?: Enrollment;
  } & Record<string, unknown>;
  // A disabling ends the session in the same write; refusing a disabled caller here too keeps a
  // session written by a request already under way at that moment from outliving it.
  if (!session || session.tokenId !== claims.tokenId || !user || user.disabled) throw unauthenticated();

  if (isCourseAccess(access)) {
    if (!loadedCourse) throw courseNotFound();
    const decision = courseAccess(access, enrollment, user);
    const acrossGroup = decision === 'ask-access-group' ? await accessGroupRole(loadedCourse.accessGroup, claims.userId) : undefined;
    if (decision !== 'allowed' && acrossGroup === undefined) throw forbidden();
    context.course = loadedCourse;
    context.enrollment = enrollment;
    context.acrossGroup = acrossGroup;
  } else if (!allowedBy[access](user)) {
    throw forbidden();
  }

  context.caller = { ...user, token: claims };
  context.items = items;
}

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** The promise's outcome, never a rejection (so a result nobody awaits yet is not an unhandled one). */
const settle = <T>(promise: Promise<T>): Promise<Settled<T>> =>
  promise.then(
    (value) => ({ ok: true, value }) as const,
    (error: unknown) => ({ ok: false, error }) as const,
  );
