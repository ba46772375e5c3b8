import { expect } from 'vitest';
import type { Course } from '#shared/courses/course.ts';
import type { CourseWorld } from './courses.ts';
import type { TestApi } from './http.ts';

/**
 * Gives every student of the world's course (or another of its instructor's) `days` late days, as
 * its instructor, and expects it accepted.
 */
export async function setLateDayBudget(api: TestApi, world: CourseWorld, days: number, course: Course = world.course): Promise<void> {
  const budget = await api.call('PUT', `/${course.term}/${course.course}/late-days`, {
    headers: { 'Content-Type': 'application/json', ...world.tokens.instructor },
    body: JSON.stringify({ default_student_late_days: days }),
  });
  expect(budget.json.status, budget.text).toBe('success');
}
