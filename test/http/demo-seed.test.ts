import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '#infra/local/seed.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

/** The demo dataset: a graded rubric, a graded Numeric gradeable, and summaries that reflect them. */
let api: TestApi;
let folder: string;
const token = async (userId: string) => ({
  Authorization: (await api.postJson('/token', { user_id: userId, password: userId })).json.data.token as string,
});

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'demo-seed-'));
  await seedDemoData(folder);
  api = await startTestApi({ workers: 0 });
}, 120_000);
afterAll(async () => {
  await api.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the demo dataset', () => {
  it('has a TA-graded rubric and a graded Numeric quiz, with their audit trails', async () => {
    const student = await token('student');
    const values = (await api.get('/f26/sample/gradeable/hw_graded/values', student)).json.data;
    expect(values).toMatchObject({ total_points: 4, tagrading_score: 9, total_score: 13, ta_grading_complete: true });
    const quiz = (await api.get('/f26/sample/gradeable/quiz_numeric/values', student)).json.data;
    expect(quiz).toMatchObject({ tagrading_score: 13.5, total_score: 13.5 });
    const trail = (await api.get('/f26/sample/gradeable/hw_graded/grading/student2', await token('ta'))).json.data;
    expect(trail).toMatchObject({ revision: 2, tagrading_score: 3 });
    expect(trail.history.map((entry: { grader_id: string; component_id: number }) => [entry.grader_id, entry.component_id])).toEqual([
      ['ta', 0],
      ['ta', 1],
    ]);
  });

  it('has summaries that reflect every score', async () => {
    const instructor = await token('instructor');
    const { summaries } = (await api.get('/f26/sample/reports/summaries', instructor)).json.data as {
      summaries: Record<string, { id: string }[] | string>[];
    };
    const of = (userId: string) => summaries.find((summary) => summary.user_id === userId)!;
    const pick = (userId: string, bucket: string, id: string) => (of(userId)[bucket] as { id: string }[]).find((entry) => entry.id === id);
    expect(pick('student', 'Homework', 'hw_graded')).toMatchObject({
      status: 'Good',
      autograding_score: 4,
      tagrading_score: 9,
      score: 13,
      days_charged: 0,
    });
    // Two days late, one of them covered by an extension: one day charged of the course's two.
    expect(pick('student2', 'Homework', 'hw_graded')).toMatchObject({
      status: 'Late',
      autograding_score: 2,
      tagrading_score: 3,
      score: 5,
      late_day_exceptions: 1,
      reason_for_exception: 'Illness (documented)',
      days_after_deadline: 2,
      days_charged: 1,
      late_days_remaining: 1,
    });
    expect(of('student2')).toMatchObject({ default_allowed_late_days: 2, late_days_remaining: 1 });
    // Granted 5 days in all a week ago, none used.
    expect(of('student')).toMatchObject({ default_allowed_late_days: 2, late_days_remaining: 5 });
    expect(pick('student', 'Quiz', 'quiz_numeric')).toMatchObject({ gradeable_type: 'Numeric', tagrading_score: 13.5, score: 13.5 });
    expect(pick('student2', 'Quiz', 'quiz_numeric')).toMatchObject({ tagrading_score: 11, score: 11 });
  });

  it("shows a student's late days on the seeded submission as the summaries charge them", async () => {
    const answer = (await api.get('/f26/sample/late-days/student2', await token('student2'))).json;
    expect(answer.status).toBe('success');
    const table = answer.data as { gradeables: { id: string }[] };
    expect(table.gradeables.find((entry) => entry.id === 'hw_graded')).toMatchObject({
      status: 'Late',
      days_late: 2,
      late_day_exceptions: 1,
      days_charged: 1,
      late_days_remaining: 1,
    });
  });
});
