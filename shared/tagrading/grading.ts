/** TA grading over HTTP: who may grade whom, and recording a component's grade. */
import { courseGroups, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { auditTrail, saveTaGrade, type AuditEntry, type GradeOwner } from '#shared/data/grades.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { ltiScoreOutbox } from '#shared/lti/score-queue.ts';
import { getItems } from '#shared/data/items.ts';
import { submissionRef, type Submission } from '#shared/data/submissions.ts';
import { teamMembershipRef } from '#shared/data/teams.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { gradeableBusy, gradeableNotFound } from '#shared/gradeables/failures.ts';
import { atGate, firstOfOwner } from '#shared/gradeables/gates.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { toLocalTime } from '#shared/gradeables/time-zone.ts';
import type { CourseGradeable } from '#shared/ids.ts';
import {
  checkComponentGrade,
  type ComponentGradeInput,
  gradingOpen,
  isTaGraded,
  shownComponents,
  taComplete,
  taMaximum,
  taScore,
  withComponent,
} from './grade.ts';
import { invalidInput } from '#shared/errors.ts';
import { notOnTeam } from '#shared/courses/failures.ts';
import {
  gradeableChangedWhileGrading,
  gradeChanged,
  gradeRace,
  gradingNotStarted,
  noStudent,
  notTaGraded,
  notYourSection,
} from './failures.ts';

/** Read with the token check: the gradeable, the student's enrollment, submission and team membership. */
export function gradingReads({ term, course, gradeableId }: CourseGradeable, userId: string) {
  return {
    gradeable: gradeableRef(term, course, gradeableId),
    student: enrollmentRef(term, course, userId),
    submission: submissionRef(term, course, gradeableId, userId),
    membership: teamMembershipRef(term, course, gradeableId, userId),
  };
}

export interface GradingTarget {
  readonly gradeable: GradeableDocument;
  readonly owner: GradeOwner;
  readonly submission: Submission | undefined;
}

/**
 * The student (or their team) a grader names, once the grader may grade them: instructors and full
 * access graders any student of the course, limited access graders the students of their sections.
 */
export async function gradingTarget(
  course: Course,
  grader: Enrollment,
  userId: string,
  loaded: { gradeable?: GradeableDocument; student?: Enrollment; submission?: Submission; membership?: { teamId: string } },
): Promise<GradingTarget> {
  const { gradeable, student } = loaded;
  if (!gradeable) throw gradeableNotFound();
  if (!student || student.group !== courseGroups.student || student.registrationSection === null) {
    throw noStudent({ user_id: userId });
  }
  if (grader.group === courseGroups.limitedAccessGrader && !grader.gradingSections.includes(student.registrationSection)) {
    throw notYourSection({ section: student.registrationSection });
  }
  if (!isTaGraded(gradeable)) throw notTaGraded();
  const base = { term: course.term, course: course.course, gradeableId: gradeable.id };
  if (!gradeable.team_gradeable) return { gradeable, owner: { ...base, ownerId: userId }, submission: loaded.submission };
  if (!loaded.membership) throw notOnTeam({ user_id: userId });
  const ownerId = loaded.membership.teamId;
  const { team } = await getItems({ team: submissionRef(course.term, course.course, gradeable.id, ownerId) });
  return { gradeable, owner: { ...base, ownerId }, submission: team };
}

/** Read alongside the token check: the audit trail of the student's own grade (a team's waits for the team). */
export const ownGradeHistory = (key: CourseGradeable, studentId: string): Promise<AuditEntry[]> =>
  auditTrail({ ...key, ownerId: studentId });

/** `GET …/grading/{user_id}`: the grade and its audit trail; a team's submission and trail are read together. */
export async function gradeWithHistory(
  course: Course,
  grader: Enrollment,
  userId: string,
  loaded: Parameters<typeof gradingTarget>[3],
  ownHistory: AuditEntry[],
) {
  const { gradeable, membership } = loaded;
  const [target, history] = await Promise.all([
    gradingTarget(course, grader, userId, loaded),
    gradeable?.team_gradeable && membership
      ? auditTrail({ term: course.term, course: course.course, gradeableId: gradeable.id, ownerId: membership.teamId })
      : ownHistory,
  ]);
  return { ...gradeView(target, userId), history };
}

/** The TA grade as staff see it. */
export function gradeView(target: GradingTarget, userId: string) {
  const grade = target.submission?.taGrade;
  return {
    gradeable_id: target.gradeable.id,
    user_id: userId,
    owner_id: target.owner.ownerId,
    revision: grade?.revision ?? 0,
    ta_grading_complete: taComplete(target.gradeable, grade),
    tagrading_score: taScore(target.gradeable, grade) ?? null,
    tagrading_max: taMaximum(target.gradeable),
    components: shownComponents(target.gradeable, grade, { forStudent: false }),
  };
}

/**
 * Records one component's grade: checked against the rubric, refused before grade_start_date,
 * written with its audit entry in one transaction that holds only while nobody changed the grade
 * since it was read (`revision`, when sent, must also be the revision the grader saw).
 */
export async function gradeComponent(
  target: GradingTarget,
  graderId: string,
  fields: ComponentGradeInput & { readonly revision?: unknown },
  course: Pick<Course, 'term' | 'course' | 'timeZone' | 'ltiScoreLinks'>,
  now = new Date(),
) {
  const { timeZone } = course;
  const { gradeable } = target;
  if (!gradingOpen(gradeable, now)) {
    const start = gradeable.dates.grade_start_date;
    // Grading is closed only before a grade_start_date.
    if (start === undefined) throw new Error('Grading is closed, yet the gradeable has no grade_start_date');
    throw gradingNotStarted({ grade_start_date: toLocalTime(start, timeZone) });
  }
  const checked = checkComponentGrade(gradeable, fields);
  if ('error' in checked) throw invalidInput(checked.error);
  const current = target.submission?.taGrade;
  const currentRevision = current?.revision ?? 0;
  const { revision } = fields;
  if (revision !== undefined && revision !== '' && String(revision) !== String(currentRevision)) {
    throw gradeChanged({ revision: String(revision).slice(0, 20), current: currentRevision });
  }
  const { component_id: componentId, ...componentFields } = checked.ok;
  const after = { ...componentFields, grader_id: graderId, graded_at: now.toISOString() };
  const grade = withComponent(current, componentId, after);
  const entry = {
    revision: grade.revision,
    grader_id: graderId,
    at: after.graded_at,
    component_id: componentId,
    before: current?.components[String(componentId)] ?? null,
    after,
  };
  // The owner's first grade may create their submission item: it must not slip past a change that
  // deletes the gradeable or changes its type (gates.ts). An item read already stays.
  const startedAt = Date.now();
  for (;;) {
    const writes = saveTaGrade(target.owner, currentRevision, grade, entry);
    // The grade for the linked LMS courses is written with it (the outbox), timestamped with its time.
    const passback = ltiScoreOutbox(course, { gradeableId: gradeable.id, ownerId: target.owner.ownerId, gradedAt: now });
    const gate = target.submission === undefined ? firstOfOwner(target.owner, gradeable, target.owner.ownerId) : undefined;
    try {
      await transactWrite([...writes, ...(gate ? [gate] : []), ...passback]);
      break;
    } catch (error) {
      const failed = failedConditions(error);
      if (failed.some((index) => index < writes.length)) throw gradeRace();
      if (!gate || !failed.includes(writes.length)) throw error;
      const at = await atGate(target.owner, gradeable, target.owner.ownerId, startedAt);
      if (at.next === 'busy') throw gradeableBusy();
      if (at.next === 'deleted') throw gradeableNotFound();
      if (at.next === 'changed') throw gradeableChangedWhileGrading();
    }
  }
  return { ...target, submission: { ...(target.submission ?? emptySubmission(target.owner)), taGrade: grade } };
}

const emptySubmission = (owner: GradeOwner): Submission => ({ ...owner, highestVersion: 0, activeVersion: 0, versions: [] });
