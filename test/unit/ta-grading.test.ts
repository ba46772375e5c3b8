import { describe, expect, it } from 'vitest';
import { Refusal } from '#shared/errors.ts';
import { parseInput } from '#functions/definitions.ts';
import type { RubricComponent } from '#shared/gradeables/gradeable.ts';
import {
  checkComponentGrade,
  componentScore,
  isTaGraded,
  taComplete,
  taScore,
  totalScore,
  withComponent,
} from '#shared/tagrading/grade.ts';
import { rubricComponent } from '../support/rubric.ts';

const component = (fields: Partial<RubricComponent>): RubricComponent => rubricComponent('C', fields);
const marks = (...points: number[]) => points.map((p, i) => ({ points: p, title: `m${i}`, publish: true }));
const gradeable = {
  rubric: [
    component({ marks: marks(2, 3, -1) }),
    component({ lower_clamp: -2, default: 4, max_value: 4, upper_clamp: 4, marks: marks(-3) }),
  ],
};
const by = (mark_ids: number[], custom_points = 0) => ({
  mark_ids,
  custom_points,
  custom_message: '',
  grader_id: 'ta',
  graded_at: '2026-01-01T00:00:00.000Z',
});

describe('component scores', () => {
  it('adds default, marks and custom points, clamped to the clamps', () => {
    expect(componentScore(gradeable.rubric[0]!, by([0, 1]))).toBe(5);
    expect(componentScore(gradeable.rubric[0]!, by([0, 1], 4))).toBe(5); // upper clamp
    expect(componentScore(gradeable.rubric[0]!, by([2]))).toBe(0); // lower clamp
    expect(componentScore(gradeable.rubric[1]!, by([0], -4))).toBe(-2);
    expect(componentScore(gradeable.rubric[1]!, by([]))).toBe(4);
    expect(componentScore(gradeable.rubric[0]!, by([], 0.1 + 0.2))).toBe(0.3);
  });

  it('sums graded components into the TA score, never below 0; totals never below 0', () => {
    expect(taScore(gradeable, undefined)).toBeUndefined();
    const one = withComponent(undefined, 1, by([0], -4));
    expect(one.revision).toBe(1);
    expect(taScore(gradeable, one)).toBe(0);
    expect(taComplete(gradeable, one)).toBe(false);
    const both = withComponent(one, 0, by([0]));
    expect(both.revision).toBe(2);
    expect(taScore(gradeable, both)).toBe(0);
    expect(taScore(gradeable, withComponent(both, 0, by([0, 1])))).toBe(3);
    expect(taComplete(gradeable, both)).toBe(true);
    expect(totalScore(3, undefined)).toBe(3);
    expect(totalScore(3, 1.5)).toBe(4.5);
    expect(totalScore(0, -2)).toBe(0);
  });

  it('counts TA grading for Checkpoints, Numeric, and Electronic File with ta_grading', () => {
    expect(isTaGraded({ type: 'Numeric' })).toBe(true);
    expect(isTaGraded({ type: 'Checkpoints' })).toBe(true);
    expect(isTaGraded({ type: 'Electronic File' })).toBe(false);
    expect(isTaGraded({ type: 'Electronic File', ta_grading: true })).toBe(true);
  });
});

describe('checking a grader’s input', () => {
  /** A grader's fields as the HTTP layer reads them (shared/http/inputs.ts), then checked against the rubric. */
  const check = (input: Record<string, unknown>) => {
    try {
      return checkComponentGrade(gradeable, parseInput('save-ta-grade', { body: input }).body);
    } catch (error) {
      if (error instanceof Refusal) return { error: error.message };
      throw error;
    }
  };
  it('accepts JSON and form spellings', () => {
    expect(check({ component_id: 0, mark_ids: [1, 0], custom_points: -1.5, custom_message: 'ok' })).toEqual({
      ok: { component_id: 0, mark_ids: [0, 1], custom_points: -1.5, custom_message: 'ok' },
    });
    expect(check({ component_id: '1', mark_ids: '0', custom_points: '2' })).toEqual({
      ok: { component_id: 1, mark_ids: [0], custom_points: 2, custom_message: '' },
    });
    expect(check({ component_id: 0, mark_ids: '0, 2' })).toMatchObject({ ok: { mark_ids: [0, 2] } });
  });
  it('refuses what the rubric does not have, or points beyond the clamps’ span', () => {
    expect(check({})).toEqual({ error: 'The field component_id is required.' });
    for (const bad of [-1, 1.5, 'x', true, [0], { a: 1 }]) expect(check({ component_id: bad })).toHaveProperty('error');
    expect(check({ component_id: 2 })).toEqual({ error: 'This gradeable has no rubric component 2.' });
    expect(check({ component_id: 0, mark_ids: [3] })).toEqual({ error: 'Rubric component 0 has no mark 3.' });
    expect(check({ component_id: 0, mark_ids: [0, 0] })).toEqual({ error: 'Mark 0 is listed twice.' });
    expect(check({ component_id: 0, mark_ids: '0,,1' })).toHaveProperty('error');
    expect(check({ component_id: 0, custom_points: 5.01 })).toHaveProperty('error');
    expect(check({ component_id: 1, custom_points: -6 })).toHaveProperty('ok');
    expect(check({ component_id: 1, custom_points: -7 })).toEqual({
      error: 'custom_points must lie between -6 and 6 (the span of rubric component 1’s clamps).',
    });
    for (const bad of [Number.NaN, Infinity, '1e3', '0x10', {}, [1]])
      expect(check({ component_id: 0, custom_points: bad })).toHaveProperty('error');
    // The comment is a string of at most 10 000 characters: the HTTP layer reads it so (shared/http/inputs.ts).
    const comment = (custom_message: unknown) => () => parseInput('save-ta-grade', { body: { component_id: 0, custom_message } });
    expect(comment(5)).toThrow('The field custom_message must be a string.');
    expect(comment('x'.repeat(10_001))).toThrow('The field custom_message must be at most 10000 characters long.');
  });
});
