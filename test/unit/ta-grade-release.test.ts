import { describe, expect, it } from 'vitest';
import type { RubricComponent } from '#shared/gradeables/gradeable.ts';
import { componentScore, gradingOpen, shownComponents, taMaximum, taReleased, taScore } from '#shared/tagrading/grade.ts';
import { rubricComponent } from '../support/rubric.ts';

// When TA grades open and reach students, and what students see of them.
// (Score arithmetic and input checks: ta-grading.test.ts.)

const component = (title: string, fields: Partial<RubricComponent> = {}): RubricComponent =>
  rubricComponent(title, { ta_comment: 'for graders', ...fields });
const grade = (mark_ids: number[], custom_points = 0, custom_message = '') => ({
  mark_ids,
  custom_points,
  custom_message,
  grader_id: 'ta',
  graded_at: '2026-10-20T00:00:00.000Z',
});

describe('release and grading dates', () => {
  const dates = { grade_start_date: '2026-10-15T00:00:00.000Z', grade_released_date: '2026-11-01T00:00:00.000Z' };

  it('release TA grades to students from the release instant on; without a release date, at once', () => {
    expect(taReleased({ dates }, new Date('2026-10-31T23:59:59.999Z'))).toBe(false);
    expect(taReleased({ dates }, new Date('2026-11-01T00:00:00.000Z'))).toBe(true);
    expect(taReleased({ dates: {} }, new Date('2000-01-01T00:00:00.000Z'))).toBe(true);
  });

  it('open grading from the grade start date on; without one, at once', () => {
    expect(gradingOpen({ dates }, new Date('2026-10-14T23:59:59.999Z'))).toBe(false);
    expect(gradingOpen({ dates }, new Date('2026-10-15T00:00:00.000Z'))).toBe(true);
    expect(gradingOpen({ dates: {} }, new Date('2000-01-01T00:00:00.000Z'))).toBe(true);
  });
});

describe('clamping', () => {
  it('applies the clamps to default, marks and custom points together, not to each', () => {
    const penalties = component('P', { default: 5, lower_clamp: -3, upper_clamp: 5, marks: [{ points: -6, title: 'x', publish: true }] });
    expect(componentScore(penalties, grade([0]))).toBe(-1);
    expect(componentScore(penalties, grade([0], 4))).toBe(3);
    expect(componentScore(penalties, grade([0], -4))).toBe(-3);
  });

  it('keeps a negative component from taking the TA score below 0, but lets it offset other components', () => {
    const rubric = [component('A'), component('B', { lower_clamp: -4 })];
    expect(taScore({ rubric }, { revision: 1, components: { '0': grade([], 3), '1': grade([], -4) } })).toBe(0);
    expect(taScore({ rubric }, { revision: 1, components: { '0': grade([], 5), '1': grade([], -4) } })).toBe(1);
  });

  it('gives the most TA points as the sum of max values, not of upper clamps (extra credit beyond)', () => {
    expect(
      taMaximum({ rubric: [component('A', { max_value: 5, upper_clamp: 7 }), component('B', { max_value: 2.5, upper_clamp: 2.5 })] }),
    ).toBe(7.5);
    expect(taMaximum({ rubric: [] })).toBe(0);
  });
});

describe('graded components as shown', () => {
  const rubric = [
    component('Style', {
      marks: [
        { points: 1, title: 'Clear names', publish: true },
        { points: -2, title: 'Grader note', publish: false },
      ],
    }),
    component('Ungraded'),
    component('Tests', { max_value: 3, upper_clamp: 3 }),
  ];
  const taGrade = { revision: 2, components: { '2': grade([], 3, 'all pass'), '0': grade([0, 1], 2, 'ok') } };

  it('lists graded components only, in rubric order', () => {
    expect(shownComponents({ rubric }, taGrade, { forStudent: false }).map((c) => c.title)).toEqual(['Style', 'Tests']);
    expect(shownComponents({ rubric }, undefined, { forStudent: true })).toEqual([]);
  });

  it('shows students published marks only and never who graded, while the score still counts every mark', () => {
    const [style] = shownComponents({ rubric }, taGrade, { forStudent: true });
    expect(style).toEqual({
      component_id: 0,
      title: 'Style',
      score: 1,
      max_value: 5,
      comment: 'ok',
      custom_points: 2,
      marks: [{ mark_id: 0, title: 'Clear names', points: 1 }],
      grader_id: null,
      graded_at: null,
    });
  });

  it('shows graders every mark and who graded when', () => {
    const [style] = shownComponents({ rubric }, taGrade, { forStudent: false });
    expect(style).toMatchObject({
      marks: [
        { mark_id: 0, title: 'Clear names', points: 1 },
        { mark_id: 1, title: 'Grader note', points: -2 },
      ],
      grader_id: 'ta',
      graded_at: '2026-10-20T00:00:00.000Z',
    });
  });
});
