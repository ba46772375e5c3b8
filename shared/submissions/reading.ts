import { courseGroups, isActiveMember, NULL_SECTION, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { queueRef } from '#shared/data/jobs.ts';
import { getItems } from '#shared/data/items.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { teamMembershipRef } from '#shared/data/teams.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { readsHiddenTests } from '#shared/courses/access.ts';
import { hiddenTestCasesFor, type HiddenTestCases, type Submission } from './submission.ts';
import type { CourseGradeable } from '#shared/ids.ts';
import { isValidUserId } from '#shared/users/user.ts';
import { notYourSection } from '#shared/tagrading/failures.ts';
import { noGradedGradeable, notSameUser } from './failures.ts';

/**
 * The items `values` and `attempts` need, read with the token check in one round trip: the
 * gradeable, the named user's (by default the caller's) enrollment and submission, and the queue
 * counters.
 */
export function submissionReads({ term, course, gradeableId }: CourseGradeable, callerId: string, requested: string | undefined) {
  const target = readTarget(callerId, requested);
  return {
    gradeable: gradeableRef(term, course, gradeableId),
    target: enrollmentRef(term, course, target),
    submission: submissionRef(term, course, gradeableId, target),
    membership: teamMembershipRef(term, course, gradeableId, target),
    queue: queueRef(),
  };
}

/** Whose submission is read: the user named (when a user id at all), by default the caller. */
export const readTarget = (callerId: string, requested: string | undefined): string =>
  requested && isValidUserId(requested) ? requested : callerId;

/**
 * The submission to show: the user's own, or on team gradeables their team's (one more read,
 * since the team is known only once the membership is).
 */
export async function submissionToShow(
  gradeable: GradeableDocument,
  loaded: { submission?: Submission; membership?: { teamId: string } },
  course: Pick<Course, 'term' | 'course'>,
): Promise<Submission | undefined> {
  if (!gradeable.team_gradeable) return loaded.submission;
  if (!loaded.membership) return undefined;
  const { team } = await getItems({ team: submissionRef(course.term, course.course, gradeable.id, loaded.membership.teamId) });
  return team;
}

/**
 * Whose submission the caller may read: their own; instructors and full access graders anyone's
 * in the course; limited access graders those of the sections they grade (a student outside them
 * is refused as TA grading and late days refuse them, naming the section).
 */
export function readableTarget(
  caller: { userId: string },
  enrollment: Enrollment | undefined,
  requested: string | undefined,
  target: Enrollment | undefined,
): void {
  const userId = requested ?? caller.userId;
  if (userId === caller.userId) return;
  const group = enrollment?.group ?? courseGroups.student;
  if (group === courseGroups.student) throw notSameUser();
  if (!isValidUserId(userId) || !target || !isActiveMember(target)) throw noGradedGradeable({ user_id: userId });
  if (group === courseGroups.limitedAccessGrader && !(enrollment?.gradingSections ?? []).includes(target.registrationSection ?? '')) {
    throw notYourSection({ section: target.registrationSection ?? NULL_SECTION });
  }
}

/** How the caller sees the gradeable's hidden test cases in `values` and `attempts` (hiddenTestCasesFor). */
export function hiddenTestCasesShown(enrollment: Enrollment | undefined, gradeable: GradeableDocument, now: Date): HiddenTestCases {
  const staff = (enrollment?.group ?? courseGroups.student) < courseGroups.student;
  return hiddenTestCasesFor({ readsHidden: readsHiddenTests(enrollment), staff }, gradeable, now);
}
