import type { MiddlewareObj } from '@middy/core';
import { tokenFromAuthorization } from '#shared/auth/authorization-header.ts';
import { verifyToken, type TokenClaims } from '#shared/auth/jwt.ts';
import { courseAccess, isCourseAccess } from '#shared/courses/access.ts';
import { accessGroupRole } from '#shared/courses/group-access.ts';
import type { Course, Enrollment } from '#shared/courses/course.ts';
import { courseRef } from '#shared/data/courses.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems, type ItemRefs } from '#shared/data/items.ts';
import { launchSessionRef, sessionRef, type Session } from '#shared/data/sessions.ts';
import { launchMayCall } from '#shared/auth/launch-scope.ts';
import { userRef } from '#shared/data/users.ts';
import { isFaculty, isSuperuser, type User } from '#shared/users/user.ts';
import { unauthenticated } from '../failures.ts';
import { forbidden, Refusal } from '#shared/errors.ts';
import { courseNotFound } from '#shared/courses/failures.ts';
import type { Access } from '../routes.ts';
import type { PathView } from '../request.ts';
import type { ApiContext, ApiEvent, ApiResult, ReadScope, RequestBody, RequestFields } from '../types.ts';
import { refusalKey, refusalMemory } from './refusals.ts';

export type ReadDeclaration = (scope: ReadScope) => ItemRefs;

/** What a route reads besides the token check's items (see EndpointDefinition in endpoint.ts). */
export interface RouteReads {
  readonly reads?: ReadDeclaration | undefined;
  readonly alongside?: ((scope: ReadScope) => Promise<unknown>) | undefined;
}

/** How the route reads its request: the path, and the query, headers and body fields (request.ts). */
export interface RequestReading {
  readonly path: (event: ApiEvent) => PathView;
  /** Throws the first field's refusal. */
  readonly fields: (event: ApiEvent, body: RequestBody) => RequestFields;
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
 * The body is parsed once the token is verified, and the request read with the route's schemas
 * (its path, query, headers and body fields: `context.view`), so that reads are built from that
 * view alone (an unauthenticated request is refused before its body is read). A body that cannot
 * be taken, or a field not of its kind, is refused after the token, course and role checks, as
 * when they were read after them; no read of the route's own is built from such a request, nor
 * from a path with a malformed parameter (the handler answers that one, see endpoint.ts).
 * Checks run in the order token, course, role, body, fields.
 */
export const authenticate = (
  access: Access,
  { reads, alongside }: RouteReads,
  body: MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>,
  reading: RequestReading,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const { event, context } = request;
    const path = reading.path(event);
    const readRequest = async (): Promise<void> => {
      await body.before?.(request);
      context.view = { ...reading.fields(event, context.body ?? {}), ...path };
    };
    context.items = {};
    if (access === 'public') return readRequest();
    const header = event.headers?.authorization;
    if (access === 'token-optional' && !header) return readRequest();

    const token = tokenFromAuthorization(header);
    const claims = token ? await verifyToken(token) : undefined;
    if (!claims) throw unauthenticated();
    const refused = await settle(readRequest());

    const { semester, course } = path.params;
    const named = isCourseAccess(access) && semester !== undefined && course !== undefined ? { semester, course } : undefined;
    // The route's own reads are built only from a request read whole, of a well-formed course; a bad one is refused below.
    const view = context.view;
    const declares = (!isCourseAccess(access) || named !== undefined) && refused.ok && view && !view.malformed;
    const scope: ReadScope | undefined = declares ? { ...view, userId: claims.userId } : undefined;
    const readAlongside = scope && alongside ? () => alongside(scope) : undefined;
    const refusedLately = readAlongside && named ? refusalKey(event.routeKey, named, claims.userId) : undefined;
    const along =
      readAlongside && !(refusedLately && refusals.recently(refusedLately)) ? settle(Promise.resolve().then(readAlongside)) : undefined;
    try {
      await check(request, access, claims, named, scope ? reads?.(scope) : undefined);
      // A launch session reaches only what its launch opened (shared/auth/launch-scope.ts).
      if (claims.launch && !launchMayCall(claims.launch, event.routeKey, named)) throw forbidden();
      if (!refused.ok) throw refused.error;
    } catch (error) {
      if (refusedLately && error instanceof Refusal && error.kind === 'forbidden') refusals.remember(refusedLately);
      await along; // a refused request ends with nothing of its own still reading
      throw error;
    }
    if (refusedLately) refusals.forget(refusedLately);
    if (readAlongside) {
      // Not started for a caller refused lately, who is allowed now: read after the check.
      const outcome = await (along ?? settle(Promise.resolve().then(readAlongside)));
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
    [SESSION]: claims.method === 'lti' ? launchSessionRef(claims.userId) : sessionRef(claims.userId),
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
