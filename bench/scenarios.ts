import { randomUUID } from 'node:crypto';
import { routes } from '#functions/definitions.ts';
import type { ApiEvent } from '#shared/http/types.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { gradeableKey, setVersionState } from '#shared/data/submissions.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { invoke, request, sessionToken, submitEvent, vcsGradeable, type Envelope, type World } from './world.ts';
import { rubricComponent } from '../test/support/rubric.ts';

/** The round-trip budget of an endpoint (the targets are in docs/development.md, Benchmarks). */
export type Kind = 'read' | 'write' | 'token-issue' | 'batch' | 'static';

/** A realistic successful call of one endpoint against the bench world. */
export interface Scenario {
  readonly route: string;
  readonly kind: Kind;
  /** Builds the event of call number `i`; may prepare data first (untimed: it runs before the clock starts). */
  readonly prepare: (i: number) => Promise<ApiEvent>;
  /** Calls timed for latency (after warm-up). */
  readonly iterations: number;
  /** Whether the answer is a success (default: a `success` envelope). */
  readonly ok?: (answer: Envelope) => boolean;
}

export const waveTarget: Record<Kind, number | undefined> = { read: 1, write: 2, 'token-issue': 2, batch: undefined, static: 0 };
export const waveTargetText: Record<Kind, string> = {
  read: '1 round trip',
  write: '≤ 2 round trips',
  'token-issue': '2 round trips',
  batch: 'linear (see scale)',
  static: 'no DynamoDB request',
};

const unique = () => randomUUID().slice(0, 8);

/**
 * One scenario per route of the route table that the bench knows how to call; routes added later
 * show up as "no scenario" until one is written here.
 */
export function scenarios(world: World): Scenario[] {
  const { course, gradeableId, tokens, users } = world;
  const base = `/api/${course.term}/${course.course}`;
  const get = (path: string, token: string, query?: Record<string, string>) => async () => request('GET', path, { token, query });
  let quizId: Promise<string> | undefined;
  const quiz = () =>
    (quizId ??= uploadGradeable(course, {
      id: `quiz_${unique()}`,
      title: 'Bench quiz',
      type: 'Numeric',
      syllabus_bucket: 'quiz',
      dates: {
        ta_view_start_date: new Date(Date.now() - 3 * 86_400_000).toISOString(),
        grade_start_date: new Date(Date.now() - 2 * 86_400_000).toISOString(),
        grade_due_date: new Date(Date.now() + 86_400_000).toISOString(),
        grade_released_date: new Date(Date.now() + 2 * 86_400_000).toISOString(),
      },
      rubric: [rubricComponent('Q1')],
    }));
  let regradeId: Promise<string> | undefined;
  const aRegrade = () =>
    (regradeId ??= invoke(
      'regrade',
      request('POST', `${base}/gradeable/${gradeableId}/regrade`, { token: tokens.instructor, json: {} }),
    ).then((answer) => (answer.data as { regrade_id: string }).regrade_id));
  const known: Record<string, Omit<Scenario, 'route'>> = {
    'issue-token': {
      kind: 'token-issue',
      iterations: 15,
      prepare: async () => request('POST', '/api/token', { form: { user_id: users.login.userId, password: users.login.password } }),
    },
    'invalidate-token': {
      kind: 'write',
      iterations: 60,
      // A logout needs a live token each time: its session is written before the call.
      prepare: async () => request('POST', '/api/token/invalidate', { token: await sessionToken(users.logout.userId) }),
    },
    'token-info': { kind: 'read', iterations: 120, prepare: get('/api/token', tokens.student) },
    me: { kind: 'read', iterations: 120, prepare: get('/api/me', tokens.student) },
    'list-courses': { kind: 'read', iterations: 120, prepare: get('/api/courses', tokens.student) },
    'create-course': {
      kind: 'write',
      iterations: 60,
      prepare: async () =>
        request('POST', '/api/courses', {
          token: tokens.instructor,
          json: {
            course_semester: course.term,
            course_title: `bench_${unique()}`,
            head_instructor: users.instructor.userId,
            base_course_semester: course.term,
            base_course_title: course.course,
          },
        }),
    },
    'course-users': { kind: 'read', iterations: 120, prepare: get(`${base}/users`, tokens.instructor) },
    'course-graders': { kind: 'read', iterations: 120, prepare: get(`${base}/graders`, tokens.instructor) },
    'create-term': {
      kind: 'write',
      iterations: 60,
      prepare: async () =>
        request('POST', '/api/terms', {
          token: tokens.superuser,
          json: { term_id: `b${unique()}`, term_name: 'Bench Term', start_date: '2027-01-10', end_date: '2027-05-10' },
        }),
    },
    'upload-gradeable': {
      kind: 'write',
      iterations: 60,
      prepare: async () => request('POST', `${base}/upload`, { token: tokens.instructor, json: vcsGradeable(`hw_${unique()}`) }),
    },
    'download-gradeable': { kind: 'read', iterations: 120, prepare: get(`${base}/${gradeableId}/download`, tokens.instructor) },
    'list-gradeables': { kind: 'read', iterations: 120, prepare: get(`${base}/gradeables`, tokens.student) },
    'submit-vcs': { kind: 'write', iterations: 60, prepare: async () => submitEvent(world, 'submitter') },
    'gradeable-values': { kind: 'read', iterations: 120, prepare: get(`${base}/gradeable/${gradeableId}/values`, tokens.student) },
    'gradeable-attempts': { kind: 'read', iterations: 120, prepare: get(`${base}/gradeable/${gradeableId}/attempts`, tokens.student) },
    // TA grading, on a Numeric gradeable whose grading has started (made once, untimed).
    'save-ta-grade': {
      kind: 'write',
      iterations: 60,
      prepare: async (i) =>
        request('POST', `${base}/gradeable/${await quiz()}/grading/${users.student.userId}`, {
          token: tokens.ta,
          json: { component_id: 0, custom_points: i % 5 },
        }),
    },
    'ta-grade': {
      kind: 'read',
      iterations: 120,
      prepare: async () => request('GET', `${base}/gradeable/${await quiz()}/grading/${users.student.userId}`, { token: tokens.ta }),
    },
    'set-active-version': {
      kind: 'write',
      iterations: 60,
      prepare: async (i) =>
        request('POST', `${base}/gradeable/${gradeableId}/version`, { token: tokens.student, json: { version: i % 2 } }),
    },
    gradebook: { kind: 'batch', iterations: 60, prepare: get(`${base}/gradeable/${gradeableId}/gradebook`, tokens.ta) },
    // Regrade: one student's active version, made gradeable again before each call (untimed).
    regrade: {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        await transactWrite([
          setVersionState({ gradeableKey: gradeableKey(course.term, course.course, gradeableId), ownerId: users.student.userId }, 1, {
            state: 'graded',
            points: 0,
          }),
        ]);
        return request('POST', `${base}/gradeable/${gradeableId}/regrade`, {
          token: tokens.instructor,
          json: { user_id: users.student.userId },
        });
      },
      ok: (answer) => answer.status === 'success' && (answer.data as { queued?: number }).queued === 1,
    },
    'regrade-status': {
      kind: 'read',
      iterations: 120,
      prepare: async () => get(`${base}/regrades/${await aRegrade()}`, tokens.instructor)(),
    },
    // Late days: the course's budget, a grant, an extension, a student's late-day table.
    'set-course-late-days': {
      kind: 'write',
      iterations: 60,
      prepare: async (i) =>
        request('PUT', `${base}/late-days`, { token: tokens.instructor, json: { default_student_late_days: 2 + (i % 2) } }),
    },
    'grant-late-days': {
      kind: 'write',
      iterations: 60,
      prepare: async (i) =>
        request('POST', `${base}/late-days/${users.student.userId}`, {
          token: tokens.instructor,
          json: { allowed_late_days: 3 + (i % 2), since: '2026-09-01' },
        }),
    },
    'set-extension': {
      kind: 'write',
      iterations: 60,
      prepare: async (i) =>
        request('PUT', `${base}/gradeable/${gradeableId}/extensions/${users.student.userId}`, {
          token: tokens.instructor,
          json: { late_days: 1 + (i % 2), reason_for_exception: 'Bench' },
        }),
    },
    'student-late-days': { kind: 'read', iterations: 120, prepare: get(`${base}/late-days/${users.student.userId}`, tokens.student) },
    openapi: {
      kind: 'static',
      iterations: 120,
      prepare: async () => request('GET', '/api/openapi.json'),
      ok: (answer) => typeof (answer as unknown as { openapi?: unknown }).openapi === 'string',
    },
    // The grade summaries (when their routes exist): generate first, so the reads find a generation.
    'generate-summaries': {
      kind: 'batch',
      iterations: 20,
      prepare: async () => request('POST', `${base}/reports/summaries`, { token: tokens.instructor }),
    },
    'list-summaries': { kind: 'read', iterations: 120, prepare: get(`${base}/reports/summaries`, tokens.instructor) },
    'user-summary': {
      kind: 'read',
      iterations: 120,
      prepare: get(`${base}/reports/summaries/${users.student.userId}`, tokens.student),
    },
  };
  return Object.keys(routes).flatMap((route) => {
    const scenario = known[route];
    return scenario ? [{ route, ...scenario }] : [];
  });
}

/** Routes of the table without a scenario here (reported, not measured). */
export const unscripted = (world: World) => {
  const scripted = new Set(scenarios(world).map((scenario) => scenario.route));
  return Object.keys(routes).filter((route) => !scripted.has(route));
};
