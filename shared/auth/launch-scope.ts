/**
 * What a launch session (a token traded for an LTI launch code) may reach, checked by the one
 * token check for every route: the launched course's routes (its role there decides as for any
 * token), the few routes about the caller themselves, and never a superuser's or faculty's route.
 * A launch from an LMS course not linked yet has no course: it may only ask what it is and link
 * the LMS course to a course where the caller is an instructor (the link route checks that).
 */
import type { LaunchScope } from './jwt.ts';

/** What any launch session may call: what it is, its logout, and deep linking (which only a deep-linking launch's instructor passes). */
const SESSION_ROUTES: ReadonlySet<string> = new Set(['GET /api/token', 'POST /api/token/invalidate', 'POST /api/lti/deep-links']);
/** What a launch into a course may call besides its course's routes: the caller's own profile. */
const CALLER_ROUTES: ReadonlySet<string> = new Set(['GET /api/me']);
/** What a launch without a course may call besides: linking its LMS course (the caller an instructor there). */
const LINK_ROUTES: ReadonlySet<string> = new Set(['POST /api/{semester}/{course}/lti/link']);

/**
 * Whether a launch session may call the route (`routeKey` as API Gateway names it; `course`: the
 * course a course route names, undefined on any other route).
 */
export function launchMayCall(
  launch: LaunchScope,
  routeKey: string,
  course: { readonly semester: string; readonly course: string } | undefined,
): boolean {
  const key = routeKey.replace(/^HEAD /, 'GET ');
  if (SESSION_ROUTES.has(key)) return true;
  if (launch.semester === null || launch.course === null) return LINK_ROUTES.has(key);
  if (CALLER_ROUTES.has(key)) return true;
  return course !== undefined && course.semester === launch.semester && course.course === launch.course;
}
