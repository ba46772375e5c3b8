import type { Enrollment, PersonName } from '#shared/courses/course.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { toLocalTime } from '#shared/gradeables/time-zone.ts';
import type { SummaryDocument } from '#shared/data/summaries.ts';
import type { Submission } from '#shared/submissions/submission.ts';
import { isTaGraded, shownComponents, taScore, totalScore } from '#shared/tagrading/grade.ts';

export type SummaryStatus = 'Good' | 'Late' | 'Bad' | 'Unsubmitted';

/** Released gradeables only, in due-date order. */
export function releasedGradeables(documents: readonly GradeableDocument[], now: Date): GradeableDocument[] {
  return documents
    .filter((document) => (document.dates.grade_released_date ?? '') <= now.toISOString())
    .sort(
      (a, b) =>
        (a.dates.submission_due_date ?? a.dates.grade_due_date ?? '').localeCompare(
          b.dates.submission_due_date ?? b.dates.grade_due_date ?? '',
        ) || a.id.localeCompare(b.id),
    );
}

/** `homework` → `Homework`, `problem-set` → `Problem-set`: the reference's bucket keys. */
export const bucketKey = (bucket: string): string => bucket.charAt(0).toUpperCase() + bucket.slice(1);

/**
 * One gradeable of a summary. Late days count whole days after the due date; within the
 * gradeable's allowance they are charged and the status is Late; beyond it the status is Bad and
 * the score 0. The score is the active version's autograding points plus the TA score (issue 16;
 * never below 0), and `components` lists the TA-graded components' titles and scores.
 */
export function gradeableEntry(document: GradeableDocument, submission: Submission | undefined, timeZone: string) {
  const electronic = document.type === 'Electronic File';
  const active = submission?.versions.find((version) => version.version === submission.activeVersion);
  const results = submission?.activeResults?.version === active?.version ? submission?.activeResults : undefined;
  const autograding = round((results?.testCases ?? []).reduce((sum, test) => sum + test.points_received, 0));
  const daysLate = active?.daysLate ?? 0;
  const allowance = document.dates.late_days ?? 0;
  const status: SummaryStatus = electronic && !active ? 'Unsubmitted' : daysLate === 0 ? 'Good' : daysLate <= allowance ? 'Late' : 'Bad';
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
    days_after_deadline: daysLate,
    days_charged: status === 'Late' ? daysLate : 0,
    autograding_score: autograding,
    tagrading_score: ta,
    components: shownComponents(document, grade, { forStudent: true }).map(({ title, score }) => ({ title, score })),
  };
}

/** A user's summary: ids, names and sections, then one key per syllabus bucket. */
export function userSummary(
  person: PersonName,
  enrollment: Enrollment,
  gradeables: readonly GradeableDocument[],
  submissionOf: (gradeableId: string, userId: string) => Submission | undefined,
  context: { timeZone: string; generatedAt: string },
): SummaryDocument {
  const summary: SummaryDocument = {
    user_id: person.userId,
    legal_first_name: person.givenName,
    preferred_first_name: person.givenName,
    legal_last_name: person.familyName,
    preferred_last_name: person.familyName,
    registration_section: enrollment.registrationSection,
    rotating_section: enrollment.rotatingSection,
    last_update: context.generatedAt,
  };
  for (const document of gradeables) {
    const key = bucketKey(document.syllabus_bucket);
    const list = (summary[key] ??= []) as unknown[];
    list.push(gradeableEntry(document, submissionOf(document.id, person.userId), context.timeZone));
  }
  return summary;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
