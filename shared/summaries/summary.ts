import type { Enrollment, PersonName } from '#shared/courses/course.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { toLocalTime } from '#shared/gradeables/time-zone.ts';
import type { SummaryDocument } from '#shared/data/summaries.ts';
import {
  chargeGradeable,
  chargeStudent,
  lateDayGradeable,
  type LateDayCharge,
  type StudentLateDays,
} from '#shared/submissions/late-days.ts';
import type { Submission } from '#shared/submissions/submission.ts';
import { isTaGraded, shownComponents, taScore, totalScore } from '#shared/tagrading/grade.ts';

export type SummaryStatus = 'Good' | 'Late' | 'Bad' | 'Unsubmitted';

/** The course's order of gradeables, as the summaries and the course gradebook list them: by due date (grading's when no submission is due), then id. */
export const byDueDate = (a: GradeableDocument, b: GradeableDocument): number =>
  (a.dates.submission_due_date ?? a.dates.grade_due_date ?? '').localeCompare(
    b.dates.submission_due_date ?? b.dates.grade_due_date ?? '',
  ) || a.id.localeCompare(b.id);

/** Released gradeables only, in due-date order. */
export function releasedGradeables(documents: readonly GradeableDocument[], now: Date): GradeableDocument[] {
  return documents.filter((document) => (document.dates.grade_released_date ?? '') <= now.toISOString()).sort(byDueDate);
}

/** `homework` → `Homework`, `problem-set` → `Problem-set`: the reference's bucket keys. */
export const bucketKey = (bucket: string): string => bucket.charAt(0).toUpperCase() + bucket.slice(1);

/** A user's late days for the summaries: the course's default budget, their grants and extensions, every gradeable charged. */
export interface SummaryLateDays {
  readonly defaultBudget: number;
  readonly student: StudentLateDays | undefined;
  /** Every gradeable of the course: late days are charged on the unreleased ones too. */
  readonly gradeables: readonly GradeableDocument[];
}

/**
 * One gradeable of a summary, as the reference's generateGradeSummary writes it. On Electronic File
 * gradeables the late-day charge (see late-days.ts) gives the status: within the extension Good,
 * charged within the gradeable's allowance and the student's budget Late, beyond either Bad with
 * score 0; `late_day_exceptions` and `reason_for_exception` appear when an extension exists, and
 * `late_days_remaining` is the budget left after this gradeable. Without a charge given, the
 * student has no budget. The score is the active version's autograding points plus the TA score
 * (never below 0), and `components` lists the TA-graded components' titles and scores.
 */
export function gradeableEntry(
  document: GradeableDocument,
  submission: Submission | undefined,
  timeZone: string,
  charge: LateDayCharge = chargeGradeable(lateDayGradeable(document, submission, undefined), 0),
) {
  const electronic = document.type === 'Electronic File';
  const active = submission?.versions.find((version) => version.version === submission.activeVersion);
  const results = submission?.activeResults?.version === active?.version ? submission?.activeResults : undefined;
  const autograding = round((results?.testCases ?? []).reduce((sum, test) => sum + test.points_received, 0));
  const status: SummaryStatus = electronic ? charge.status : 'Good';
  const released = document.dates.grade_released_date;
  const grade = isTaGraded(document) ? submission?.taGrade : undefined;
  const ta = taScore(document, grade) ?? 0;
  return {
    id: document.id,
    name: document.title,
    gradeable_type: document.type,
    grade_released_date: released ? toLocalTime(released, timeZone) : null,
    score: status === 'Bad' ? 0 : totalScore(autograding, ta),
    status,
    ...(electronic && charge.extension > 0 ? { late_day_exceptions: charge.extension, reason_for_exception: charge.reason ?? '' } : {}),
    days_after_deadline: electronic ? charge.daysLate : 0,
    days_charged: electronic ? charge.charged : 0,
    ...(electronic ? { late_days_remaining: charge.remaining } : {}),
    autograding_score: autograding,
    tagrading_score: ta,
    components: shownComponents(document, grade, { forStudent: true }).map(({ title, score }) => ({ title, score })),
  };
}

/**
 * A user's summary: ids, names and sections, the course's default late-day budget
 * (`default_allowed_late_days`, the reference's field) and the budget left now, then one key per
 * syllabus bucket.
 */
export function userSummary(
  person: PersonName,
  enrollment: Enrollment,
  gradeables: readonly GradeableDocument[],
  submissionOf: (gradeableId: string, userId: string) => Submission | undefined,
  context: { timeZone: string; generatedAt: string; lateDays?: SummaryLateDays },
): SummaryDocument {
  const lateDays = context.lateDays ?? { defaultBudget: 0, student: undefined, gradeables };
  const submissions = new Map<string, Submission | undefined>();
  for (const document of [...gradeables, ...lateDays.gradeables]) {
    if (!submissions.has(document.id)) submissions.set(document.id, submissionOf(document.id, person.userId));
  }
  const { charges, remainingAsOf } = chargeStudent(
    lateDays.defaultBudget,
    lateDays.student,
    lateDays.gradeables,
    (gradeableId) => submissions.get(gradeableId),
    new Date(context.generatedAt),
  );
  const summary: SummaryDocument = {
    user_id: person.userId,
    legal_first_name: person.givenName,
    preferred_first_name: person.givenName,
    legal_last_name: person.familyName,
    preferred_last_name: person.familyName,
    registration_section: enrollment.registrationSection,
    rotating_section: enrollment.rotatingSection,
    default_allowed_late_days: lateDays.defaultBudget,
    late_days_remaining: remainingAsOf,
    last_update: context.generatedAt,
  };
  for (const document of gradeables) {
    const key = bucketKey(document.syllabus_bucket);
    const list = (summary[key] ??= []) as unknown[];
    list.push(gradeableEntry(document, submissions.get(document.id), context.timeZone, charges.get(document.id)));
  }
  return summary;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
