/**
 * A course's roster synced from the LMS (`POST …/lti/roster-sync`, and every linked course on
 * the nightly schedule): every page of each link's membership service is read with a service
 * token, the members identified and given their course role (memberships.ts), and the result
 * applied through the class-list import, which answers, audits and dry-runs it: students the LMS
 * no longer lists as active are dropped, staff never, and a member's section here is kept. The
 * whole roster is read before anything is written: a platform that fails midway changes nothing.
 */
import { courseId, type Course } from '#shared/courses/course.ts';
import { importClassList, type ClassListReport } from '#shared/courses/enroll.ts';
import { MAX_CLASS_LIST_ROWS } from '#shared/courses/class-list.ts';
import { courseRef } from '#shared/data/courses.ts';
import { getItems, type ItemRef } from '#shared/data/items.ts';
import { getLtiRegistration, ltiLinkedCourses, ltiLinksOfCourse, ltiPersonRef, type LtiPerson } from '#shared/data/lti.ts';
import { userRef } from '#shared/data/users.ts';
import { logger } from '#shared/logger.ts';
import { rosterNotLinked, rosterRefused, rosterTooLarge, rosterUnavailable } from './failures.ts';
import {
  bindingKey,
  identifyMembers,
  MEMBERSHIP_CONTAINER_TYPE,
  membersOfPage,
  nextPageUrl,
  NRPS_SCOPE,
  rosterClassList,
  type RosterEntry,
} from './memberships.ts';
import { allowedPlatformHosts } from './platform-address.ts';
import { askPlatform } from './platform-request.ts';
import { platformUrl, type LtiRegistration } from './registration.ts';
import { answerFailure, malformedAnswer, PlatformServiceFailure, unreachableFailure } from './service-failure.ts';
import { withServiceToken } from './service-token.ts';
import { Refusal } from '#shared/errors.ts';

/** The most pages read of one link's roster: a platform whose next links never end is refused, not followed forever. */
export const MAX_ROSTER_PAGES = 100;
/** The most bytes of one page (a platform may list a whole course on one page: a few hundred bytes a member). */
export const MAX_ROSTER_PAGE_BYTES = 4 * 1024 * 1024;
/** The audit's actor of the nightly sync (no user id has a colon). */
export const NIGHTLY_ROSTER_ACTOR = 'system:lti-roster-sync';
const SERVICE = "The LMS's roster service";

/** One link's roster: every page, from its memberships URL on. */
async function readRoster(registration: LtiRegistration, membershipsUrl: string, now: Date) {
  const allowed = allowedPlatformHosts();
  const members = [];
  let url: URL;
  try {
    url = platformUrl('context_memberships_url', membershipsUrl, allowed);
  } catch (error) {
    throw unreachableFailure(SERVICE, error);
  }
  for (let page = 1; ; page++) {
    const pageUrl = url;
    const answer = await withServiceToken(
      registration,
      [NRPS_SCOPE],
      (token) =>
        askPlatform(
          'context_memberships_url',
          pageUrl,
          {
            method: 'GET',
            headers: { accept: MEMBERSHIP_CONTAINER_TYPE, authorization: `Bearer ${token}` },
            answerLimit: MAX_ROSTER_PAGE_BYTES,
          },
          allowed,
        ).catch((error: unknown) => {
          throw unreachableFailure(SERVICE, error);
        }),
      now,
    );
    if (answer.status !== 200) throw answerFailure(SERVICE, answer, now);
    const read = membersOfPage(answer.text);
    if (typeof read === 'string') throw malformedAnswer(SERVICE, read);
    members.push(...read.members);
    if (members.length > MAX_CLASS_LIST_ROWS) throw rosterTooLarge({ limit: MAX_CLASS_LIST_ROWS, what: 'members' });
    const next = nextPageUrl(answer.headers.link, url);
    if (next === undefined) return members;
    if (typeof next === 'string') throw malformedAnswer(SERVICE, next);
    if (page >= MAX_ROSTER_PAGES) throw rosterTooLarge({ limit: MAX_ROSTER_PAGES, what: 'pages' });
    url = next;
  }
}

/** The refusal a platform's failure is answered with: retryable ones with the platform's Retry-After. */
function refusalOf(failure: PlatformServiceFailure): Refusal {
  if (!failure.retryable) return rosterRefused({ problem: failure.message });
  const retry = failure.retryAfterSeconds === null ? {} : { retryAfterSeconds: failure.retryAfterSeconds };
  return new Refusal('unavailable', rosterUnavailable.text({ problem: failure.message }), retry);
}

/** Every member of the course's links with a roster service, each with their link's section and registration. */
async function rosterEntries(course: Pick<Course, 'term' | 'course'>, now: Date): Promise<RosterEntry[]> {
  const usable: { registration: LtiRegistration; membershipsUrl: string; section: string | null }[] = [];
  for (const link of await ltiLinksOfCourse(course.term, course.course)) {
    // A link made before its platform offered a roster service, or whose registration was removed, has no roster to read.
    const registration = link.membershipsUrl === null ? undefined : await getLtiRegistration(link.registrationId);
    if (registration && link.membershipsUrl !== null)
      usable.push({ registration, membershipsUrl: link.membershipsUrl, section: link.section });
  }
  if (usable.length === 0) throw rosterNotLinked();
  const entries: RosterEntry[] = [];
  // An LMS user in two linked LMS courses of one platform is one member: the first link's.
  const seen = new Set<string>();
  for (const link of usable) {
    const { registration } = link;
    const members = await readRoster(registration, link.membershipsUrl, now).catch((error: unknown) => {
      throw error instanceof PlatformServiceFailure ? refusalOf(error) : error;
    });
    for (const member of members) {
      const key = bindingKey(registration.issuer, member.user_id);
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push({ line: entries.length + 1, member, section: link.section, registration });
    }
  }
  if (entries.length > MAX_CLASS_LIST_ROWS) throw rosterTooLarge({ limit: MAX_CLASS_LIST_ROWS, what: 'members' });
  return entries;
}

/** `POST …/lti/roster-sync`: the course's roster made the LMS's, as the class-list import answers it. */
export async function syncRoster(
  course: Course,
  options: { actor: string; dryRun?: boolean },
  now: Date = new Date(),
): Promise<ClassListReport> {
  const entries = await rosterEntries(course, now);
  const bindingRefs: Record<string, ItemRef<LtiPerson>> = {};
  entries.forEach(({ member, registration }, index) => (bindingRefs[`b${index}`] = ltiPersonRef(registration.issuer, member.user_id)));
  const bindings = new Map(
    Object.values(await getItems(bindingRefs)).flatMap((person) =>
      person ? [[bindingKey(person.issuer, person.subject), person.userId] as const] : [],
    ),
  );
  const identified = identifyMembers(entries, bindings);
  const userRefs = Object.fromEntries(identified.members.map(({ userId }, index) => [`u${index}`, userRef(userId)]));
  const users = new Set(Object.values(await getItems(userRefs)).flatMap((user) => (user ? [user.userId] : [])));
  const list = rosterClassList(identified, users);
  const { profilesUpdated: _, ...report } = await importClassList(course, list, {
    actor: options.actor,
    dryRun: options.dryRun ?? false,
    dropMissing: true,
    keepSections: true,
    keepRoles: true,
  });
  return report;
}

/** The nightly run: every unarchived linked course, one at a time; a course that fails is logged and the others go on. */
export async function nightlyRosterSync(now = new Date()) {
  const linked = await ltiLinkedCourses();
  let synced = 0;
  let failed = 0;
  let skipped = 0;
  for (const { semester, course: code } of linked) {
    const id = courseId(semester, code);
    try {
      const { course } = await getItems({ course: courseRef(semester, code) });
      if (!course || course.archived) {
        skipped++;
        continue;
      }
      const report = await syncRoster(course, { actor: NIGHTLY_ROSTER_ACTOR }, now);
      synced++;
      const { created, updated, dropped, unchanged } = report;
      logger.info({
        message: 'Roster synced from the LMS',
        course: id,
        created,
        updated,
        dropped,
        unchanged,
        rejected: report.rejected.length,
      });
    } catch (error) {
      failed++;
      logger.error({ message: 'Roster sync from the LMS failed', course: id, error: error as Error });
    }
  }
  const report = { courses: linked.length, synced, failed, skipped };
  logger.info({ message: 'Nightly roster sync', ...report });
  return report;
}
