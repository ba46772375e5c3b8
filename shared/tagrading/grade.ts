/**
 * TA grading: the rules over one (gradeable, owner)'s TA grade, as pure functions.
 * A grade holds, per rubric component (by its 0-based place in the rubric, the `component_id`),
 * the marks applied (`mark_ids`, 0-based places in the component's marks), a custom score
 * (`custom_points`) and comment (`custom_message`): the reference's GradedComponent fields.
 * A component's score is default + marks + custom points, clamped to the component's
 * [lower_clamp, upper_clamp]; the TA score is the sum over graded components, never below 0.
 */
import type { ComponentGrade, TaGrade } from '#shared/data/submissions.ts';
import type { GradeableDocument, RubricComponent } from '#shared/gradeables/gradeable.ts';
import { rubricMaximum } from '#shared/gradeables/points.ts';
import { customPointsBeyondSpan, markTwice, noComponent, noMark } from './failures.ts';

export type { ComponentGrade, TaGrade } from '#shared/data/submissions.ts';

export const MAX_MESSAGE_LENGTH = 10_000;

/** What a grader sends for one component, read by the HTTP layer (numbers whole where they name a place). */
export interface ComponentGradeInput {
  readonly component_id: number;
  readonly mark_ids?: readonly number[];
  readonly custom_points?: number;
  readonly custom_message?: string;
}

export type Checked =
  { readonly ok: Omit<ComponentGrade, 'grader_id' | 'graded_at'> & { readonly component_id: number } } | { readonly error: string };

/** Checks a grader's input against the gradeable's rubric; the first problem is the error. */
export function checkComponentGrade(gradeable: Pick<GradeableDocument, 'rubric'>, input: ComponentGradeInput): Checked {
  const id = input.component_id;
  const component = gradeable.rubric[id];
  if (!component) return { error: noComponent.text({ component_id: id }) };

  const markIds: number[] = [];
  for (const mark of input.mark_ids ?? []) {
    if (!component.marks[mark]) return { error: noMark.text({ component_id: id, mark_id: mark }) };
    if (markIds.includes(mark)) return { error: markTwice.text({ mark_id: mark }) };
    markIds.push(mark);
  }

  const points = input.custom_points ?? 0;
  const span = component.upper_clamp - component.lower_clamp;
  if (Math.abs(points) > span) {
    return { error: customPointsBeyondSpan.text({ '-span': -span, span, component_id: id }) };
  }

  const message = input.custom_message ?? '';
  return { ok: { component_id: id, mark_ids: markIds.sort((a, b) => a - b), custom_points: points, custom_message: message } };
}

/** A component's score: default + its marks' points + custom points, clamped to its clamps. */
export function componentScore(component: RubricComponent, grade: Pick<ComponentGrade, 'mark_ids' | 'custom_points'>): number {
  const marks = grade.mark_ids.reduce((sum, id) => sum + (component.marks[id]?.points ?? 0), 0);
  const raw = component.default + marks + grade.custom_points;
  return round(Math.min(component.upper_clamp, Math.max(component.lower_clamp, raw)));
}

/** The TA score: the sum of the graded components' scores, never below 0; undefined when nothing is graded. */
export function taScore(gradeable: Pick<GradeableDocument, 'rubric'>, grade: TaGrade | undefined): number | undefined {
  const graded = gradedComponents(gradeable, grade);
  if (graded.length === 0) return undefined;
  return round(
    Math.max(
      0,
      graded.reduce((sum, { component, componentGrade }) => sum + componentScore(component, componentGrade), 0),
    ),
  );
}

/** Whether every component of the rubric has a grade. */
export function taComplete(gradeable: Pick<GradeableDocument, 'rubric'>, grade: TaGrade | undefined): boolean {
  return gradeable.rubric.length > 0 && gradeable.rubric.every((_, id) => grade?.components[String(id)] !== undefined);
}

/** The most points TA grading gives: the sum of the components' max_value. */
export const taMaximum = rubricMaximum;

/** Autograding plus TA points, never below 0. */
export const totalScore = (autograding: number, ta: number | undefined): number => round(Math.max(0, autograding + (ta ?? 0)));

/** Whether TA grading counts for a gradeable: Checkpoints and Numeric always, Electronic File with ta_grading. */
export const isTaGraded = (gradeable: Pick<GradeableDocument, 'type' | 'ta_grading'>): boolean =>
  gradeable.type !== 'Electronic File' || gradeable.ta_grading === true;

/** Whether a student may see TA scores and comments now: once grades are released. */
export const taReleased = (gradeable: Pick<GradeableDocument, 'dates'>, now: Date): boolean =>
  (gradeable.dates.grade_released_date ?? '') <= now.toISOString();

/** Whether grading has opened (grade_start_date has passed). */
export const gradingOpen = (gradeable: Pick<GradeableDocument, 'dates'>, now: Date): boolean =>
  (gradeable.dates.grade_start_date ?? '') <= now.toISOString();

/** The grade with one component replaced, and its next revision. */
export function withComponent(grade: TaGrade | undefined, componentId: number, componentGrade: ComponentGrade): TaGrade {
  return { components: { ...(grade?.components ?? {}), [String(componentId)]: componentGrade }, revision: (grade?.revision ?? 0) + 1 };
}

function gradedComponents(gradeable: Pick<GradeableDocument, 'rubric'>, grade: TaGrade | undefined) {
  return gradeable.rubric.flatMap((component, id) => {
    const componentGrade = grade?.components[String(id)];
    return componentGrade ? [{ id, component, componentGrade }] : [];
  });
}

/**
 * The graded components as shown: score, comment and marks, in rubric order. Students (`forStudent`)
 * see only published marks' titles, never who graded.
 */
export function shownComponents(
  gradeable: Pick<GradeableDocument, 'rubric'>,
  grade: TaGrade | undefined,
  options: { forStudent: boolean },
) {
  return gradedComponents(gradeable, grade).map(({ id, component, componentGrade }) => ({
    component_id: id,
    title: component.title,
    score: componentScore(component, componentGrade),
    max_value: component.max_value,
    comment: componentGrade.custom_message,
    custom_points: componentGrade.custom_points,
    marks: componentGrade.mark_ids
      .filter((markId) => !options.forStudent || component.marks[markId]?.publish !== false)
      .map((markId) => ({ mark_id: markId, title: component.marks[markId]?.title ?? '', points: component.marks[markId]?.points ?? 0 })),
    grader_id: options.forStudent ? null : componentGrade.grader_id,
    graded_at: options.forStudent ? null : componentGrade.graded_at,
  }));
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
