import type { MiddlewareObj } from '@middy/core';
import { tokenFromAuthorization } from '#shared/auth/authorization-header.ts';
import { verifyToken } from '#shared/auth/jwt.ts';
import { courseAccess, isCourseAccess } from '#shared/courses/access.ts';
import { isValidCode, type Course, type Enrollment } from '#shared/courses/course.ts';
import { isAccessGroupStaff } from '#shared/data/access-groups.ts';
import { courseRef } from '#shared/data/courses.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems, type ItemRefs } from '#shared/data/items.ts';
import { sessionRef, type Session } from '#shared/data/sessions.ts';
import { userRef } from '#shared/data/users.ts';
import { isFaculty, isSuperuser, type User } from '#shared/users/user.ts';
import { unauthenticated } from '../failures.ts';
import { forbidden } from '#shared/errors.ts';
import { courseNotFound } from '#shared/courses/failures.ts';
import type { Access } from '../routes.ts';
import type { ApiContext, ApiEvent, ApiResult, ReadScope } from '../types.ts';

export type ReadDeclaration = (scope: ReadScope) => ItemRefs;

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
 * authenticated read costs one DynamoDB round trip. Checks run in the order token, course, role.
 */
export const authenticate = (
  access: Access,
  reads: ReadDeclaration | undefined,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async ({ event, context }) => {
    context.items = {};
    if (access === 'public') return;
    const header = event.headers?.authorization;
    if (access === 'token-optional' && !header) return;

    const token = tokenFromAuthorization(header);
    const claims = token ? await verifyToken(token) : undefined;
    if (!claims) throw unauthenticated();

    const params = event.pathParameters ?? {};
    const { semester, course } = params;
    const named =
      isCourseAccess(access) && semester && course && isValidCode(semester) && isValidCode(course) ? { semester, course } : undefined;
    // A course route's own reads are built only from a well-formed course; a bad one is refused below.
    const declare = isCourseAccess(access) && !named ? undefined : reads;
    const refs: ItemRefs = {
      ...declare?.({
        userId: claims.userId,
        params: params as ReadScope['params'],
        query: event.queryStringParameters ?? {},
        headers: event.headers ?? {},
      }),
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
    if (!session || session.tokenId !== claims.tokenId || !user) throw unauthenticated();

    if (isCourseAccess(access)) {
      if (!loadedCourse) throw courseNotFound();
      const decision = courseAccess(access, enrollment);
      const allowed =
        decision === 'allowed' || (decision === 'ask-access-group' && (await isAccessGroupStaff(loadedCourse.accessGroup, claims.userId)));
      if (!allowed) throw forbidden();
      context.course = loadedCourse;
      context.enrollment = enrollment;
    } else if (!allowedBy[access](user)) {
      throw forbidden();
    }

    context.caller = { ...user, token: claims };
    context.items = items;
  },
});
