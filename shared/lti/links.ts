/**
 * Links of an LMS course (an LTI context) to a course here. An instructor launching from an LMS
 * course not linked yet gets a launch session without a course; with it, as an instructor of a
 * course here too, they link the LMS course to it (`POST …/lti/link`). The link keeps the context,
 * the registration and deployment, the platform's roster (NRPS) and grade service (AGS) endpoints
 * from that launch, and the section students it enrols are given. A context is linked to one
 * course only (the link's write is conditional); linking and unlinking are audited.
 */
import type { Caller } from '#shared/auth/caller.ts';
import { courseId, isValidSection, type Course } from '#shared/courses/course.ts';
import { badSection } from '#shared/courses/failures.ts';
import { auditEntry } from '#shared/data/audit.ts';
import { countLtiScoreLinks } from '#shared/data/courses.ts';
import { getItems } from '#shared/data/items.ts';
import { linkLtiContext, ltiContextLinkRef, ltiLinksOfCourse, unlinkLtiContext, type LtiContextLink } from '#shared/data/lti.ts';
import { launchDetailsRef, type LaunchDetails } from '#shared/data/sessions.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { contextLinkedAlready, linkNeedsLaunch, linkNotFound } from './failures.ts';
import { takesScores } from './scores.ts';

/** What linking reads with the token check: the caller's launch session's details. */
export const linkReads = (userId: string) => ({ launch: launchDetailsRef(userId) });

/** A link as the API answers it. */
export const linkRecord = (link: LtiContextLink) => ({
  registration_id: link.registrationId,
  context_id: link.contextId,
  deployment_id: link.deploymentId,
  semester: link.semester,
  course: link.course,
  section: link.section,
  memberships_url: link.membershipsUrl,
  grades: link.grades ? { lineitems: link.grades.lineitems, lineitem: link.grades.lineitem, scope: [...link.grades.scope] } : null,
  linked_by: link.linkedBy,
  linked_at: link.linkedAt,
});

/**
 * The link a caller's launch session may make: from a launch without a course, by an instructor
 * in the LMS, from a context (the launch session's own, still current: the token check read it).
 */
export function linkOf(
  course: Pick<Course, 'term' | 'course'>,
  caller: Pick<Caller, 'userId' | 'token'>,
  details: LaunchDetails | undefined,
  section: string | null,
  now: Date,
): LtiContextLink {
  const { token } = caller;
  const fromLaunch = token.method === 'lti' && token.launch?.semester === null && details?.tokenId === token.tokenId;
  if (!fromLaunch || !details.mayLink || details.contextId === null) throw linkNeedsLaunch();
  if (section !== null && !isValidSection(section)) throw badSection({ field: 'section', section });
  return {
    registrationId: details.registrationId,
    contextId: details.contextId,
    deploymentId: details.deploymentId,
    semester: course.term,
    course: course.course,
    section,
    membershipsUrl: details.membershipsUrl,
    grades: details.grades,
    linkedBy: caller.userId,
    linkedAt: now.toISOString(),
  };
}

/** `POST …/lti/link`: links the launch's LMS course to this course, audited; refused when it is linked already. */
export async function linkContext(
  course: Course,
  caller: Pick<Caller, 'userId' | 'token'>,
  details: LaunchDetails | undefined,
  section: string | null,
  now = new Date(),
) {
  const link = linkOf(course, caller, details, section, now);
  const { registrationId, contextId, ...after } = link;
  try {
    await transactWrite([
      ...linkLtiContext(link),
      ...(takesScores(link) ? [countLtiScoreLinks(course.term, course.course, 1)] : []),
      auditEntry(
        { courseId: courseId(course.term, course.course) },
        { actor: caller.userId, action: 'lti.linked', target: `${registrationId}#${contextId}`, after },
        now,
      ),
    ]);
  } catch (error) {
    if (!failedConditions(error).includes(0)) throw error;
    const { existing } = await getItems({ existing: ltiContextLinkRef(registrationId, contextId) });
    throw contextLinkedAlready({ semester: existing?.semester ?? '?', course: existing?.course ?? '?' });
  }
  return linkRecord(link);
}

/** `GET …/lti/link`: the LMS courses linked to this course. */
export const courseLinks = async (course: Pick<Course, 'term' | 'course'>) =>
  (await ltiLinksOfCourse(course.term, course.course)).map(linkRecord);

/** `DELETE …/lti/link`: unlinks an LMS course from this course, audited; launches from it are then told it is not linked. */
export async function unlinkContext(course: Pick<Course, 'term' | 'course'>, actor: string, registrationId: string, contextId: string) {
  const links = await ltiLinksOfCourse(course.term, course.course);
  const link = links.find((candidate) => candidate.registrationId === registrationId && candidate.contextId === contextId);
  if (!link) throw linkNotFound({ context_id: contextId });
  const { registrationId: _, contextId: __, ...before } = link;
  try {
    await transactWrite([
      ...unlinkLtiContext(link),
      ...(takesScores(link) ? [countLtiScoreLinks(course.term, course.course, -1)] : []),
      auditEntry(
        { courseId: courseId(course.term, course.course) },
        { actor, action: 'lti.unlinked', target: `${registrationId}#${contextId}`, before },
      ),
    ]);
  } catch (error) {
    if (failedConditions(error).includes(0)) throw linkNotFound({ context_id: contextId });
    throw error;
  }
  return null;
}
