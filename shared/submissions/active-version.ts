/** Choosing the active version: a student for themselves, staff for a student. */
import { courseGroups, isActiveMember, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { getItems } from '#shared/data/items.ts';
import { resultsRef } from '#shared/data/results.ts';
import { gradeableKey, setActiveVersion, submissionRef } from '#shared/data/submissions.ts';
import { teamMembers, teamMembershipRef, teamSubmissionCopies, type TeamMembership } from '#shared/data/teams.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { gradeableNotFound, noSuchVersion } from '#shared/gradeables/failures.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { invalidInput } from '#shared/errors.ts';
import { isValidUserId } from '#shared/users/user.ts';
import type { CourseGradeable } from '#shared/ids.ts';
import type { Submission } from './submission.ts';
import { notOnTeam, teamChangedMeanwhile, userNotInCourse } from '#shared/courses/failures.ts';
import { notSameUser, nothingSubmitted, onlyElectronicVersions } from './failures.ts';

/** The caller's own gradeable, submission and team membership, read with the token check. */
export function activeVersionReads({ term, course, gradeableId }: CourseGradeable, callerId: string) {
  return {
    gradeable: gradeableRef(term, course, gradeableId),
    submission: submissionRef(term, course, gradeableId, callerId),
    membership: teamMembershipRef(term, course, gradeableId, callerId),
  };
}

/**
 * The version a body names (read by the HTTP layer as a whole number from 0): 0 is none (the
 * submission is cancelled), otherwise one of the submission's versions. Pure, for the unit tests.
 */
export function requestedVersion(version: number, highestVersion: number): number | string {
  if (highestVersion === 0) return nothingSubmitted.text();
  if (version > highestVersion) return noSuchVersion.text({ version, highest_version: highestVersion });
  return version;
}

const MAX_ATTEMPTS = 20;

/**
 * Sets the active version (or none) of the caller's submission, or, for instructors and full access
 * graders, of `user_id`'s; on team gradeables, of the team's. The results of the chosen version
 * become the active results in the same write, so values, late days and summaries follow it.
 */
export async function chooseActiveVersion(
  context: {
    caller: { userId: string };
    enrollment: Enrollment;
    course: Course;
    /** Whose version to choose (instructors and full access graders); the caller's when absent. */
    userId: string | undefined;
    /** The version asked for (see requestedVersion). */
    version: number;
  },
  loaded: { gradeable?: GradeableDocument; submission?: Submission; membership?: TeamMembership },
  now = new Date(),
) {
  const { caller, enrollment, course } = context;
  const gradeable = loaded.gradeable;
  if (!gradeable || !isVisible(gradeable, enrollment, now)) throw gradeableNotFound();
  const target = context.userId ?? caller.userId;
  if (target !== caller.userId) {
    if (enrollment.group > courseGroups.fullAccessGrader) throw notSameUser();
    const { member } = isValidUserId(target)
      ? await getItems({ member: enrollmentRef(course.term, course.course, target) })
      : { member: undefined };
    if (!member || !isActiveMember(member)) throw userNotInCourse({ user_id: target });
  }
  if (gradeable.type !== 'Electronic File') throw onlyElectronicVersions();
  let ownerId = target;
  let membership = target === caller.userId ? loaded.membership : undefined;
  // A team's members each carry a copy of the team's active version (for their late days).
  let members: readonly string[] | undefined;
  const team = { term: course.term, course: course.course, gradeableId: gradeable.id };
  if (gradeable.team_gradeable) {
    membership ??= (await getItems({ membership: teamMembershipRef(course.term, course.course, gradeable.id, target) })).membership;
    if (!membership) throw notOnTeam({ user_id: target });
    ownerId = membership.teamId;
    members = await teamMembers(team, membership);
  }
  const key = { gradeableKey: gradeableKey(course.term, course.course, gradeable.id), ownerId };
  let submission = ownerId === caller.userId ? loaded.submission : undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    submission ??= (await getItems({ submission: submissionRef(course.term, course.course, gradeable.id, ownerId) })).submission;
    const version = requestedVersion(context.version, submission?.highestVersion ?? 0);
    if (typeof version === 'string') throw invalidInput(version);
    // requestedVersion accepts no version when nothing was submitted.
    if (!submission) throw new Error('A version was accepted of a submission that does not exist');
    const summary = submission.versions[version - 1];
    const results =
      version > 0 && summary?.state === 'graded'
        ? submission.activeResults?.version === version
          ? submission.activeResults
          : (await getItems({ results: resultsRef(key.gradeableKey, ownerId, version) })).results
        : undefined;
    try {
      const daysLate = version > 0 ? summary?.daysLate : undefined;
      await transactWrite([
        setActiveVersion(
          key,
          { highestVersion: submission.highestVersion, state: summary?.state, daysLate },
          version,
          results && { version, testCases: results.testCases },
        ),
        ...(members ? teamSubmissionCopies({ ...team, ownerId }, members, { version, daysLate }) : []),
      ]);
    } catch (error) {
      if (failedConditions(error).length === 0) throw error;
      submission = undefined; // a new version or a finished grading meanwhile: read again
      if (members) {
        // Or the team changed (a member added): its members too.
        const { membership: now } = await getItems({ membership: teamMembershipRef(course.term, course.course, gradeable.id, target) });
        if (now?.teamId !== ownerId) throw teamChangedMeanwhile();
        members = await teamMembers(team, now);
      }
      continue;
    }
    const whose = target !== caller.userId ? ` for ${target}` : '';
    return {
      active_version: version,
      highest_version: submission.highestVersion,
      message:
        version === 0
          ? `Cancelled the submission of ${gradeable.title}${whose}.`
          : `Updated the active version of ${gradeable.title} to version ${version}${whose}.`,
    };
  }
  throw new Error('Could not set the active version: too much contention');
}
