/** Choosing the active version: a student for themselves, staff for a student. */
import { courseGroups, isActiveMember, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { getItems } from '#shared/data/items.ts';
import { resultsRef } from '#shared/data/results.ts';
import { gradeableKey, setActiveVersion, submissionRef } from '#shared/data/submissions.ts';
import { teamMembers, teamMembershipRef, teamSubmissionCopies, type TeamMembership } from '#shared/data/teams.ts';
import { failedConditions, namedTransaction, transactWrite, type NamedReason, type TransactItem } from '#shared/data/transactions.ts';
import { gradeableNotFound, noSuchVersion } from '#shared/gradeables/failures.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { invalidInput } from '#shared/errors.ts';
import { isValidUserId } from '#shared/users/user.ts';
import type { CourseGradeable } from '#shared/ids.ts';
import { ltiScoreOutbox } from '#shared/lti/score-queue.ts';
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

/** A choice as asked: by whom, in which course, of whose version. */
export interface ActiveVersionChoice {
  readonly caller: { readonly userId: string };
  readonly enrollment: Enrollment;
  readonly course: Course;
  /** Whose version to choose (instructors and full access graders); the caller's when absent. */
  readonly userId: string | undefined;
  /** The version asked for (see requestedVersion). */
  readonly version: number;
}

/** What the token check read of the caller's: the gradeable, their own submission and team membership. */
export interface ActiveVersionLoaded {
  readonly gradeable?: GradeableDocument;
  readonly submission?: Submission;
  readonly membership?: TeamMembership;
}

/** Whose submission a choice changes: the target's own, or their team's, whose members each carry a copy of its active version (for their late days). */
interface ChoiceOwner {
  readonly target: string;
  readonly ownerId: string;
  readonly members?: readonly string[] | undefined;
}

/**
 * Sets the active version (or none) of the caller's submission, or, for instructors and full access
 * graders, of `user_id`'s; on team gradeables, of the team's. The results of the chosen version
 * become the active results in the same write, so values, late days and summaries follow it.
 */
export async function chooseActiveVersion(choice: ActiveVersionChoice, loaded: ActiveVersionLoaded, now = new Date()) {
  const gradeable = await admitChoice(choice, loaded, now);
  const owner = await ownerOfChoice(choice, loaded, gradeable);
  const first = owner.ownerId === choice.caller.userId ? loaded.submission : undefined;
  return commitChoice(choice, gradeable, owner, first);
}

/** The refusals of a choice before its submission is read: the gradeable, and whose version the caller may choose. */
async function admitChoice(choice: ActiveVersionChoice, loaded: ActiveVersionLoaded, now: Date): Promise<GradeableDocument> {
  const { caller, enrollment, course } = choice;
  const gradeable = loaded.gradeable;
  if (!gradeable || !isVisible(gradeable, enrollment, now)) throw gradeableNotFound();
  const target = choice.userId ?? caller.userId;
  if (target !== caller.userId) {
    if (enrollment.group > courseGroups.fullAccessGrader) throw notSameUser();
    const { member } = isValidUserId(target)
      ? await getItems({ member: enrollmentRef(course.term, course.course, target) })
      : { member: undefined };
    if (!member || !isActiveMember(member)) throw userNotInCourse({ user_id: target });
  }
  if (gradeable.type !== 'Electronic File') throw onlyElectronicVersions();
  return gradeable;
}

async function ownerOfChoice(choice: ActiveVersionChoice, loaded: ActiveVersionLoaded, gradeable: GradeableDocument): Promise<ChoiceOwner> {
  const { caller, course } = choice;
  const target = choice.userId ?? caller.userId;
  if (!gradeable.team_gradeable) return { target, ownerId: target };
  const membership =
    (target === caller.userId ? loaded.membership : undefined) ??
    (await getItems({ membership: teamMembershipRef(course.term, course.course, gradeable.id, target) })).membership;
  if (!membership) throw notOnTeam({ user_id: target });
  return { target, ownerId: membership.teamId, members: await teamMembers(teamOf(choice, gradeable), membership) };
}

const teamOf = ({ course }: ActiveVersionChoice, gradeable: GradeableDocument) => ({
  term: course.term,
  course: course.course,
  gradeableId: gradeable.id,
});

/** The choice's write, tried until it goes through; a cancelled try does what AFTER_CHOICE_CANCELLED says of the items that failed. */
async function commitChoice(choice: ActiveVersionChoice, gradeable: GradeableDocument, owner: ChoiceOwner, first: Submission | undefined) {
  const { course } = choice;
  let submission = first;
  let members = owner.members;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    submission ??= (await getItems({ submission: submissionRef(course.term, course.course, gradeable.id, owner.ownerId) })).submission;
    const version = requestedVersion(choice.version, submission?.highestVersion ?? 0);
    if (typeof version === 'string') throw invalidInput(version);
    // requestedVersion accepts no version when nothing was submitted.
    if (!submission) throw new Error('A version was accepted of a submission that does not exist');
    const transaction = choiceTransaction(await planChoice(choice, gradeable, { ...owner, members }, submission, version));
    try {
      await transactWrite(transaction.items);
    } catch (error) {
      const failed = failedConditions(error);
      if (failed.length === 0) throw error;
      const steps = afterChoiceCancelled(transaction.reasons(failed));
      if (steps.has('read again')) submission = undefined;
      if (steps.has('read the team again')) members = await membersNow(choice, gradeable, owner);
      continue;
    }
    return choiceAnswer(
      gradeable.title,
      version,
      submission.highestVersion,
      owner.target !== choice.caller.userId ? owner.target : undefined,
    );
  }
  throw new Error('Could not set the active version: too much contention');
}

/** A choice's transaction items by name. */
export interface ChoiceItems {
  /** The submission's active version and results: fails when a version was added or its grading ended since it was read. */
  readonly active: TransactItem;
  /** Each team member's copy of the team's active version: fails when the team changed since its members were read. */
  readonly copies: readonly TransactItem[];
  /** The grade for the linked LMS courses that take scores, timestamped with the change: never fails. */
  readonly passback: readonly TransactItem[];
}

export type ChoiceItemName = keyof ChoiceItems;

export type ChoiceNextStep =
  /** The submission changed: read it again. */
  | 'read again'
  /** The team changed: read its members again (refused if the target left it). */
  | 'read the team again';

export const AFTER_CHOICE_CANCELLED: Readonly<Record<ChoiceItemName, readonly ChoiceNextStep[]>> = {
  active: ['read again'],
  copies: ['read the team again'],
  passback: [],
};

const choiceTransaction = (items: ChoiceItems) => namedTransaction(['active', 'copies', 'passback'], items);

/** What a cancelled choice does next, given the items whose condition failed. Pure. */
export function afterChoiceCancelled(reasons: readonly NamedReason<ChoiceItemName>[]): ReadonlySet<ChoiceNextStep> {
  return new Set(reasons.flatMap((reason) => AFTER_CHOICE_CANCELLED[reason.name]));
}

/** The items that make `version` active: the chosen version's results (a graded one's) become the active results. */
async function planChoice(
  choice: ActiveVersionChoice,
  gradeable: GradeableDocument,
  owner: ChoiceOwner,
  submission: Submission,
  version: number,
): Promise<ChoiceItems> {
  const { course } = choice;
  const key = { gradeableKey: gradeableKey(course.term, course.course, gradeable.id), ownerId: owner.ownerId };
  const summary = submission.versions[version - 1];
  const results =
    version > 0 && summary?.state === 'graded'
      ? submission.activeResults?.version === version
        ? submission.activeResults
        : (await getItems({ results: resultsRef(key.gradeableKey, owner.ownerId, version) })).results
      : undefined;
  const daysLate = version > 0 ? summary?.daysLate : undefined;
  return {
    active: setActiveVersion(
      key,
      { highestVersion: submission.highestVersion, state: summary?.state, daysLate },
      version,
      results && { version, testCases: results.testCases },
    ),
    copies: owner.members
      ? teamSubmissionCopies({ ...teamOf(choice, gradeable), ownerId: owner.ownerId }, owner.members, { version, daysLate })
      : [],
    // The total the gradebook shows follows the active version: the LMS is sent it with the change's time.
    passback: ltiScoreOutbox(course, { gradeableId: gradeable.id, ownerId: owner.ownerId, gradedAt: new Date() }),
  };
}

/** The team's members now; refused when the target is no longer on the team that owns the submission. */
async function membersNow(choice: ActiveVersionChoice, gradeable: GradeableDocument, owner: ChoiceOwner): Promise<readonly string[]> {
  const { course } = choice;
  const { membership } = await getItems({ membership: teamMembershipRef(course.term, course.course, gradeable.id, owner.target) });
  if (membership?.teamId !== owner.ownerId) throw teamChangedMeanwhile();
  return teamMembers(teamOf(choice, gradeable), membership);
}

/** The answer to a choice that went through; `forUser`: whose version staff chose. Pure. */
export function choiceAnswer(title: string, version: number, highestVersion: number, forUser: string | undefined) {
  const whose = forUser !== undefined ? ` for ${forUser}` : '';
  return {
    active_version: version,
    highest_version: highestVersion,
    message:
      version === 0
        ? `Cancelled the submission of ${title}${whose}.`
        : `Updated the active version of ${title} to version ${version}${whose}.`,
  };
}
