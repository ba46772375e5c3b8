/** Submissions, versions and the rules over them (the reference's values and submitting: docs/reference-compatibility.md). */
import {
  isTaGraded,
  shownComponents,
  taComplete,
  taMaximum,
  taReleased,
  taScore,
  totalScore,
  type TaGrade,
} from '#shared/tagrading/grade.ts';
import type { QueueCounters } from '#shared/data/jobs.ts';
import type { Submission } from '#shared/data/submissions.ts';
import { queuePosition } from '#shared/queue/tickets.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';

export type { GradingResults, Submission, TestCaseResult, VersionState, VersionSummary } from '#shared/data/submissions.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days after the due date, counted as a student would: any part of a day is a day. */
export function daysLate(submittedAt: Date, dueAt: string | undefined): number {
  if (!dueAt) return 0;
  const late = submittedAt.getTime() - Date.parse(dueAt);
  return late <= 0 ? 0 : Math.ceil(late / DAY_MS);
}

/**
 * Late submissions beyond the allowance are refused only when the gradeable does not allow late
 * submission; the student's extension on the gradeable adds its days to the allowance.
 */
export function lateRefusal(
  days: number,
  policy: { late_submission_allowed?: boolean; late_days?: number; has_due_date?: boolean },
  extension = 0,
): string | undefined {
  if (days === 0 || policy.has_due_date === false || policy.late_submission_allowed !== false) return undefined;
  const allowed = (policy.late_days ?? 0) + extension;
  if (days <= allowed) return undefined;
  const yours = extension > 0 ? ` (with an extension of ${extension} ${extension === 1 ? 'day' : 'days'})` : '';
  return `The due date has passed: this submission would be ${days} ${days === 1 ? 'day' : 'days'} late, and this gradeable accepts at most ${allowed} ${allowed === 1 ? 'day' : 'days'} late${yours}.`;
}

/**
 * How hidden test cases show in `values` and `attempts`: left out, as their score alone (no
 * message or autocheck, which may quote the expected output), or whole.
 */
export type HiddenTestCases = 'left-out' | 'score-only' | 'whole';

/**
 * Instructors see hidden test cases whole and graders by their score alone; students do not see
 * them until the gradeable's grades are released (grade_released_date), then by their score alone.
 * So a student's totals are the visible test cases' until then and the same as staff see from then
 * on, as in their summary, which lists released gradeables only.
 */
export function hiddenTestCasesFor(
  reader: { readsHidden: boolean; staff: boolean },
  gradeable: Pick<GradeableDocument, 'dates'>,
  now: Date,
): HiddenTestCases {
  if (reader.readsHidden) return 'whole';
  return reader.staff || taReleased(gradeable, now) ? 'score-only' : 'left-out';
}

/** What a grader sees of a hidden test case's outcome instead of its message. */
export const HIDDEN_OUTCOME = 'Hidden test case: its messages and output are shown to instructors only.';

/**
 * The reference's `values` for the active version (docs/reference-compatibility.md). `queuePosition` is the active job's
 * 1-based place in the queue, 0 while it is graded, -1 otherwise. Hidden test cases, and their
 * points, are left out unless the reader is staff; the percent never divides by zero.
 */
export function gradeableValues(submission: Submission | undefined, queue: QueueCounters, options: { hidden: HiddenTestCases }) {
  const active = submission?.versions.find((version) => version.version === submission.activeVersion);
  const position = !active ? -1 : active.state === 'queued' ? queuePosition(active.ticket, queue) : active.state === 'grading' ? 0 : -1;
  const results = submission?.activeResults?.version === active?.version ? submission?.activeResults : undefined;
  const testCases = (results?.testCases ?? [])
    .filter((test) => options.hidden !== 'left-out' || !test.hidden)
    .map((test) => (test.hidden && options.hidden === 'score-only' ? { ...test, testcase_message: HIDDEN_OUTCOME, autochecks: [] } : test));
  const earned = testCases.reduce((sum, test) => sum + test.points_received, 0);
  const possible = testCases.filter((test) => !test.is_extra_credit).reduce((sum, test) => sum + test.points_available, 0);
  return {
    is_queued: position > 0,
    queue_position: position,
    is_grading: position === 0,
    has_submission: (submission?.highestVersion ?? 0) > 0,
    autograding_complete: results !== undefined,
    has_active_version: active !== undefined,
    highest_version: submission?.highestVersion ?? 0,
    total_points: active ? round(earned) : null,
    total_percent: active ? (possible > 0 ? round(earned / possible) : 0) : null,
    commit: active?.commit ?? null,
    // Rebuilt field by field: DynamoDB keeps no key order in maps.
    test_cases: testCases.map((test) => ({
      name: test.name,
      details: test.details,
      is_extra_credit: test.is_extra_credit,
      points_available: test.points_available,
      has_extra_results: test.has_extra_results,
      points_received: test.points_received,
      testcase_message: test.testcase_message,
      autochecks: test.autochecks.map((check) => {
        const { description, messages, diff_viewer, expected, actual } = check as Record<string, unknown>;
        return { description, messages, diff_viewer, expected, actual };
      }),
    })),
  };
}

/**
 * `attempts`: every version, newest first, its points counting hidden test cases as `values` does (`hidden`). A gradeable without a due date has no late days: its
 * versions are 0 days late, as in the summaries and the gradebook, whatever was counted when
 * they were submitted.
 */
export function attempts(submission: Submission | undefined, gradeable: Pick<GradeableDocument, 'dates'>, hidden: HiddenTestCases) {
  const activeVersion = submission?.activeVersion;
  const due = gradeable.dates.has_due_date !== false;
  return [...(submission?.versions ?? [])].reverse().map((version) => ({
    version: version.version,
    submitted_at: version.submittedAt,
    submitted_by: version.submittedBy,
    days_late: due ? version.daysLate : 0,
    active: version.version === activeVersion,
    grading_state: version.state,
    points: version.points === undefined ? null : round(version.points + (hidden === 'left-out' ? 0 : (version.hiddenPoints ?? 0))),
    message: version.message ?? null,
    commit: version.commit ?? null,
  }));
}

/**
 * The attempts list as pages see it, newest first: a version's position is its number. The list is
 * bounded (a submission's versions live in one DynamoDB item of at most 400 KB), and paged on
 * request like every list.
 */
export const attemptsOrder = {
  list: 'attempts list',
  keys: 1,
  accepts: ([version = '']: readonly string[]) => /^\d{1,9}$/.test(version),
  position: (attempt: { readonly version: number }) => [String(attempt.version)],
  compare: (attempt: { readonly version: number }, [version = '']: readonly string[]) => Number(version) - attempt.version,
};

const round = (value: number) => Math.round(value * 10_000) / 10_000;

/**
 * The TA grading part of `values`, beside the reference's fields: the TA score and
 * the graded components (score, comment, marks), and the total of autograding and TA points.
 * Students see TA scores and comments only once grades are released (grade_released_date).
 */
export function taValues(
  gradeable: GradeableDocument,
  submission: Submission | undefined,
  autogradingPoints: number | null,
  options: { forStudent: boolean; now: Date },
) {
  const visible = isTaGraded(gradeable) && (!options.forStudent || taReleased(gradeable, options.now));
  const grade: TaGrade | undefined = visible ? submission?.taGrade : undefined;
  const ta = taScore(gradeable, grade);
  return {
    ta_grading: isTaGraded(gradeable),
    ta_grades_released: taReleased(gradeable, options.now),
    ta_grading_complete: visible && taComplete(gradeable, grade),
    tagrading_score: ta ?? null,
    tagrading_max: isTaGraded(gradeable) ? taMaximum(gradeable) : 0,
    total_score: autogradingPoints === null && ta === undefined ? null : totalScore(autogradingPoints ?? 0, ta),
    ta_components: shownComponents(gradeable, grade, { forStudent: options.forStudent }),
  };
}
