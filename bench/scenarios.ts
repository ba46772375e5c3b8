import { randomUUID } from 'node:crypto';
import { routes, type RouteName } from '#functions/definitions.ts';
import type { ApiEvent } from '#shared/http/types.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { swaggerUiLinks } from '#shared/docs/swagger-ui.ts';
import { createSummariesJob } from '#shared/data/summaries.ts';
import { gradeableKey, setVersionState } from '#shared/data/submissions.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { createDelivery, deleteWebhook, webhooksOf } from '#shared/data/webhooks.ts';
import { createGradebookExport } from '#shared/data/gradebook-exports.ts';
import { getItems } from '#shared/data/items.ts';
import { createSimilarityRun, similarityPairRef, writeSimilarityPairs } from '#shared/data/similarity-runs.ts';
import { newSimilarityRunId } from '#shared/similarity/runs.ts';
import { newGradebookExportId } from '#shared/gradebook/exports.ts';
import { newSummariesJobId } from '#shared/summaries/job.ts';
import { useLocalSummariesQueue } from '#shared/summaries/queue.ts';
import { newMessageId } from '#shared/webhooks/webhook.ts';
import { invoke, request, sessionToken, submitEvent, vcsGradeable, type Envelope, type World } from './world.ts';
import { addMember, createCourse } from '../test/support/courses.ts';
import { rubricComponent } from '../test/support/rubric.ts';
import { createUser } from '../test/support/users.ts';

/** The round-trip budget of an endpoint (the targets are in docs/development.md, Benchmarks). */
export type Kind = 'read' | 'write' | 'token-issue' | 'batch' | 'static';

/** A realistic successful call of one endpoint against the bench world. */
export interface Scenario {
  readonly route: RouteName;
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

/** A page or file answered as is (not an envelope): its HTTP status stands as the answer's. */
const isPage = (answer: Envelope) => answer.status === 'HTTP 200';
const isRedirect = (answer: Envelope) => answer.status === 'HTTP 302';
/** A password every password rule takes. */
const STRONG_PASSWORD = 'Bench-passphrase-correct-horse-battery';
const SMALL_FILE = Buffer.from('#include <iostream>\nint main() { std::cout << "Hello, World!" << std::endl; return 0; }\n'.repeat(20));

/**
 * One scenario per route of the route table: `scenarios` is typed over every route name, so a
 * route added without one fails the type check. Data a call needs is made lazily, once (a files,
 * team or spare gradeable, a spare course, a webhook), or before each call, untimed.
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
  const once = <T>(make: () => Promise<T>): (() => Promise<T>) => {
    let made: Promise<T> | undefined;
    return () => (made ??= make());
  };
  const succeeded = (what: string, answer: Envelope): Envelope => {
    if (answer.status !== 'success') throw new Error(`bench: ${what} failed: ${JSON.stringify(answer)}`);
    return answer;
  };
  const filesGradeable = once(() => uploadGradeable(course, filesGradeableJson(`files_${unique()}`)));
  // A version of the reading student's, for its files to be listed.
  const filesVersion = once(async () => {
    const id = await filesGradeable();
    succeeded(
      'a files submission',
      await invoke('submit-files', await multipartEvent(`${base}/gradeable/${id}/files`, tokens.instructor, users.student.userId)),
    );
    return id;
  });
  const teamGradeable = once(() =>
    uploadGradeable(course, { ...vcsGradeable(`team_${unique()}`), team_gradeable: { team_size_max: 2, inherit_from: '' } }),
  );
  const spareGradeable = once(() => uploadGradeable(course, vcsGradeable(`spare_${unique()}`)));
  const spareCourse = once(async () => createCourse(course.term, users.instructor));
  // A finished job, its course's slot already free again, as a job run by the summaries worker leaves it.
  const summariesJob = once(async () => {
    const jobId = newSummariesJobId();
    const now = Date.now();
    const at = new Date(now).toISOString();
    await createSummariesJob(
      {
        jobId,
        term: course.term,
        course: course.course,
        state: 'done',
        done: 3,
        total: 3,
        requestedBy: users.instructor.userId,
        createdAt: at,
        startedAt: at,
        finishedAt: at,
        attempts: 1,
        summaries: 3,
      },
      { until: now - 1, now },
    );
    return jobId;
  });
  // A finished gradebook export of the instructor's, as the summaries worker leaves it (its CSV need not exist to be linked).
  const gradebookExport = once(async () => {
    const exportId = newGradebookExportId();
    const at = new Date().toISOString();
    await createGradebookExport({
      exportId,
      term: course.term,
      course: course.course,
      format: 'csv',
      state: 'done',
      requestedBy: users.instructor.userId,
      createdAt: at,
      startedAt: at,
      finishedAt: at,
      attempts: 1,
      students: 3,
      bytes: 200,
    });
    return exportId;
  });
  const similarityRun = once(async () => {
    const runId = newSimilarityRunId();
    const at = new Date().toISOString();
    await createSimilarityRun({
      runId,
      term: course.term,
      course: course.course,
      gradeableId,
      state: 'done',
      requestedBy: users.instructor.userId,
      createdAt: at,
      startedAt: at,
      finishedAt: at,
      attempts: 1,
      submissions: 2,
      fingerprinted: 2,
      pairs: 1,
    });
    const side = (owner: string) => ({ owner, version: 1, term: course.term, course: course.course, gradeableId, filesId: randomUUID() });
    await writeSimilarityPairs(course.term, course.course, [
      {
        runId,
        rank: 1,
        left: side(users.student.userId),
        right: side(users.submitter.userId),
        similarity: 0.9,
        longestFragment: 120,
        totalOverlap: 200,
        fragments: [],
        revision: 0,
      },
    ]);
    return runId;
  });
  const registerWebhook = () =>
    request('POST', `${base}/webhooks`, { token: tokens.instructor, json: { url: WEBHOOK_URL, events: ['submission.graded'] } });
  const webhook = once(async () => (succeeded('a webhook', await invoke('create-webhook', registerWebhook())).data as { id: string }).id);
  // The webhooks the measured registrations left (a course keeps a bounded number), removed untimed.
  const removeOtherWebhooks = async () => {
    const kept = await webhook();
    for (const { webhookId } of await webhooksOf(course.term, course.course)) {
      if (webhookId !== kept) await deleteWebhook(course.term, course.course, webhookId);
    }
  };
  const ltiPlatform = () => ({
    issuer: `https://lms-${unique()}.example.edu`,
    client_id: 'bench',
    auth_login_url: 'https://203.0.113.10/auth',
    auth_token_url: 'https://203.0.113.10/token',
    jwks_url: 'https://203.0.113.10/jwks',
  });
  const ltiPlatformRequest = () => request('POST', '/api/lti/registrations', { token: tokens.superuser, json: ltiPlatform() });
  const ltiRegistration = once(
    async () =>
      (succeeded('an LTI platform', await invoke('create-lti-registration', ltiPlatformRequest())).data as { registration_id: string })
        .registration_id,
  );
  // A registered platform whose logins the bench starts (each a redirect to its authorization endpoint).
  const loginPlatform = once(async () => {
    const platform = ltiPlatform();
    succeeded(
      'an LTI platform to log in from',
      await invoke('create-lti-registration', request('POST', '/api/lti/registrations', { token: tokens.superuser, json: platform })),
    );
    return {
      iss: platform.issuer,
      client_id: platform.client_id,
      login_hint: 'bench-student',
      target_link_uri: 'https://bench.example.edu/api/lti/launch',
    };
  });
  // An invitation the bench's registers are refused with (so it stays usable).
  const ltiInvitation = once(async () => {
    const answer = succeeded(
      'an LTI invitation',
      await invoke('create-lti-invitation', request('POST', '/api/lti/registrations/invitations', { token: tokens.superuser, json: {} })),
    );
    return new URL((answer.data as { url: string }).url).searchParams.get('invitation') ?? '';
  });
  // Grade inquiries: a gradeable whose grades are released and whose inquiry window is open,
  // taking inquiries per component: the student opens them about component 0, posts about
  // component 2, and graders resolve and reopen the one about component 1.
  const inquiryGradeable = once(() => uploadGradeable(course, inquiryGradeableJson(`inquiries_${unique()}`)));
  const inquiries = `${base}/gradeable`;
  const openInquiries = async (id: string, componentId: number) => {
    const answer = await invoke(
      'list-inquiries',
      request('GET', `${base}/inquiries`, { token: tokens.ta, query: { gradeable_id: id, status: 'open' } }),
    );
    return (succeeded('the inquiry list', answer).data as { inquiry_id: string; component_id: number }[]).filter(
      (inquiry) => inquiry.component_id === componentId,
    );
  };
  const resolveOpen = async (id: string, componentId: number) => {
    for (const { inquiry_id } of await openInquiries(id, componentId)) {
      const event = request('PATCH', `${inquiries}/${id}/inquiries/${inquiry_id}`, { token: tokens.ta, json: { status: 'resolved' } });
      succeeded('resolving an inquiry', await invoke('change-inquiry-status', event));
    }
  };
  const openOne = async (id: string, componentId: number) => {
    const event = request('POST', `${inquiries}/${id}/inquiries`, {
      token: tokens.student,
      json: { content: 'Why did this component lose points?', component_id: componentId },
    });
    return (succeeded('opening an inquiry', await invoke('open-inquiry', event)).data as { inquiry_id: string }).inquiry_id;
  };
  // A post's inquiry, opened afresh before it fills up (untimed).
  let postedTo: { inquiryId: string; left: number } | undefined;
  const inquiryToPostTo = async (id: string) => {
    if (!postedTo || postedTo.left === 0) {
      await resolveOpen(id, 2);
      postedTo = { inquiryId: await openOne(id, 2), left: 25 };
    }
    postedTo.left--;
    return postedTo.inquiryId;
  };
  const inquiryToChange = once(async () => openOne(await inquiryGradeable(), 1));
  const known: { readonly [Route in RouteName]: Omit<Scenario, 'route'> } = {
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
    // A page of the course's gradebook (50 students by default): 1 Query of the bySection index, then one
    // round of BatchGetItem for the page's profiles, enrollments, late days and team memberships
    // ((3 + team gradeables) × students / 100 requests), then one for their submissions of every
    // gradeable shown or charged late days (students × gradeables / 100 requests, in parallel):
    // 50 students × 40 gradeables = 2,000 submission items in 20 requests, 2 + 20 BatchGetItem in all.
    'course-gradebook': { kind: 'batch', iterations: 60, prepare: get(`${base}/gradebook`, tokens.ta) },
    // Asking for an export: the record written and one message sent (to a local queue that drops it: the export itself is the gradebook section's).
    'create-gradebook-export': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        useLocalSummariesQueue(async () => undefined);
        return request('POST', `${base}/gradebook/exports`, { token: tokens.instructor, json: { format: 'csv' } });
      },
    },
    // Asking for a similarity report: the gradeable read with the token check, the run written and one message sent (to a local queue that drops it: the run itself is the similarity section's).
    'create-similarity-run': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        useLocalSummariesQueue(async () => undefined);
        return request('POST', `${base}/gradeable/${gradeableId}/similarity`, { token: tokens.instructor, json: {} });
      },
    },
    // A done run's first page of pairs: the run read with the token check, then one Query of its pairs.
    'similarity-run': {
      kind: 'batch',
      iterations: 120,
      prepare: async () => get(`${base}/gradeable/${gradeableId}/similarity/${await similarityRun()}`, tokens.instructor)(),
    },
    // The gradeable's runs, newest first: the gradeable read with the token check and the runs' listing entries
    // alongside it (a Query), then the page's runs (one BatchGetItem, without their starter code).
    'similarity-runs': {
      kind: 'batch',
      iterations: 120,
      prepare: async () => {
        await similarityRun();
        return get(`${base}/gradeable/${gradeableId}/similarity`, tokens.instructor)();
      },
    },
    // One pair with its fragments (none here: no files read), read with the token check.
    'similarity-pair': {
      kind: 'read',
      iterations: 120,
      prepare: async () => get(`${base}/gradeable/${gradeableId}/similarity/${await similarityRun()}/pairs/1`, tokens.instructor)(),
    },
    // A decision: the pair read with the token check, then its update and audit entry in one transaction
    // (the pair's revision read before each call, untimed).
    'decide-similarity-pair': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        const runId = await similarityRun();
        const { pair } = await getItems({ pair: similarityPairRef(course.term, course.course, runId, 1) });
        return request('PATCH', `${base}/gradeable/${gradeableId}/similarity/${runId}/pairs/1`, {
          token: tokens.instructor,
          json: { decision: 'dismissed', revision: pair?.revision ?? 0 },
        });
      },
    },
    'gradebook-export': {
      kind: 'read',
      iterations: 120,
      prepare: async () => get(`${base}/gradebook/exports/${await gradebookExport()}`, tokens.instructor)(),
    },
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
    'auth-methods': { kind: 'static', iterations: 120, prepare: async () => request('GET', '/api/auth') },
    // Files: a staff member submits for a student (no per-student bounds), a small multipart body or declared uploads.
    'submit-files': {
      kind: 'write',
      iterations: 60,
      prepare: async () => multipartEvent(`${base}/gradeable/${await filesGradeable()}/files`, tokens.instructor, users.student.userId),
    },
    'file-uploads': {
      kind: 'read',
      iterations: 120,
      prepare: async () =>
        request('POST', `${base}/gradeable/${await filesGradeable()}/files/uploads`, {
          token: tokens.student,
          json: { files: [{ name: 'main.cpp', size: SMALL_FILE.length }] },
        }),
    },
    'submission-files': {
      kind: 'read',
      iterations: 120,
      prepare: async () => request('GET', `${base}/gradeable/${await filesVersion()}/files`, { token: tokens.student }),
    },
    // A version not graded in the bench: the same reads as a graded one's record (the results item is read either way).
    'grading-record': {
      kind: 'read',
      iterations: 120,
      prepare: get(`${base}/gradeable/${gradeableId}/record?version=1`, tokens.student),
      ok: (answer) =>
        answer.status === 'success' || /^Version 1 has no grading record/.test(String((answer as { message?: unknown }).message)),
    },
    'summaries-job': {
      kind: 'read',
      iterations: 120,
      prepare: async () => get(`${base}/reports/summaries/jobs/${await summariesJob()}`, tokens.instructor)(),
    },
    // Webhooks: a receiver on a host the operator allows (bench/setup-env.ts); nothing is sent to it.
    'create-webhook': {
      kind: 'write',
      iterations: 60,
      // Each course keeps a bounded number of webhooks: one is removed again before each call (untimed).
      prepare: async () => {
        await removeOtherWebhooks();
        return registerWebhook();
      },
    },
    'list-webhooks': { kind: 'read', iterations: 120, prepare: get(`${base}/webhooks`, tokens.instructor) },
    'delete-webhook': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        await removeOtherWebhooks();
        const answer = succeeded('a webhook to delete', await invoke('create-webhook', registerWebhook()));
        return request('DELETE', `${base}/webhooks/${(answer.data as { id: string }).id}`, { token: tokens.instructor });
      },
    },
    'list-webhook-deliveries': {
      kind: 'read',
      iterations: 120,
      prepare: async () => get(`${base}/webhooks/${await webhook()}/deliveries`, tokens.instructor)(),
    },
    'replay-webhook-delivery': {
      kind: 'write',
      iterations: 60,
      // A delivery that failed after its last retry, written before each call (a replay starts it again).
      prepare: async () => {
        const webhookId = await webhook();
        const deliveryId = newMessageId();
        const at = new Date().toISOString();
        await createDelivery({
          term: course.term,
          course: course.course,
          webhookId,
          deliveryId,
          event: 'submission.graded',
          payload: '{}',
          state: 'failed',
          attempts: [{ at, status: 500, durationMs: 5 }],
          roundStart: 0,
          createdAt: at,
        });
        return request('POST', `${base}/webhooks/${webhookId}/deliveries/${deliveryId}/replay`, { token: tokens.instructor });
      },
    },
    // Teams, on a team gradeable of its own: a team of two students set, and one made to be deleted.
    'list-teams': {
      kind: 'read',
      iterations: 120,
      prepare: async () => get(`${base}/gradeable/${await teamGradeable()}/teams`, tokens.instructor)(),
    },
    'set-team': {
      kind: 'write',
      iterations: 60,
      prepare: async (i) =>
        request('PUT', `${base}/gradeable/${await teamGradeable()}/teams/bench_team`, {
          token: tokens.instructor,
          json: { members: i % 2 ? [users.student.userId, users.submitter.userId] : [users.student.userId] },
        }),
    },
    'import-teams': {
      kind: 'batch',
      iterations: 40,
      // The two students move between two teams: each list creates one team and deletes the other.
      prepare: async (i) =>
        request('POST', `${base}/gradeable/${await teamGradeable()}/teams/import`, {
          token: tokens.instructor,
          text: {
            type: 'text/csv',
            body: ['team_id,user_id', `bench_import_${i % 2}`, `bench_import_${i % 2}`]
              .map((row, index) => (index === 0 ? row : `${row},${index === 1 ? users.student.userId : users.submitter.userId}`))
              .join('\n'),
          },
        }),
    },
    'delete-team': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        const gradeable = await teamGradeable();
        const team = `t_${unique()}`;
        // A student of its own: a team needs a member, and a student is on one team of a gradeable.
        const member = await createUser('user', 'teamed');
        await addMember(course, member, 4, '1');
        const set = await invoke(
          'set-team',
          request('PUT', `${base}/gradeable/${gradeable}/teams/${team}`, { token: tokens.instructor, json: { members: [member.userId] } }),
        );
        if (set.status !== 'success') throw new Error(`bench: a team to delete: ${JSON.stringify(set)}`);
        return request('DELETE', `${base}/gradeable/${gradeable}/teams/${team}`, { token: tokens.instructor });
      },
    },
    // Gradeables: the one downloaded is put back as it is; one made before each call is deleted.
    'replace-gradeable': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        const id = await spareGradeable();
        const downloaded = await invoke('download-gradeable', request('GET', `${base}/${id}/download`, { token: tokens.instructor }));
        return request('PUT', `${base}/gradeable/${id}`, { token: tokens.instructor, json: downloaded.data });
      },
    },
    'delete-gradeable': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        const id = await uploadGradeable(course, vcsGradeable(`del_${unique()}`));
        return request('DELETE', `${base}/gradeable/${id}`, { token: tokens.instructor });
      },
    },
    'course-config': {
      kind: 'read',
      iterations: 120,
      prepare: get(`/api/courses/${course.term}/${course.course}/config`, tokens.instructor),
    },
    'set-course-config': {
      kind: 'write',
      iterations: 60,
      prepare: async (i) =>
        request('POST', `/api/courses/${course.term}/${course.course}/config`, {
          token: tokens.instructor,
          json: { name: 'course_name', entry: `Bench Course ${i % 2}` },
        }),
    },
    // Archiving, on a course of its own: unarchived (or archived) again before each call, untimed.
    'archive-course': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        const config = `/api/courses/${(await spareCourse()).term}/${(await spareCourse()).course}/config`;
        await invoke('unarchive-course', request('POST', `${config}/unarchive`, { token: tokens.instructor }));
        return request('POST', `${config}/archive`, { token: tokens.instructor });
      },
    },
    'unarchive-course': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        const config = `/api/courses/${(await spareCourse()).term}/${(await spareCourse()).course}/config`;
        await invoke('archive-course', request('POST', `${config}/archive`, { token: tokens.instructor }));
        return request('POST', `${config}/unarchive`, { token: tokens.instructor });
      },
    },
    // The roster: an account enrolled, a student dropped (each made before the call), a class list of 10 imported.
    'enroll-member': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        const user = await createUser('user', 'enrolled');
        return request('PUT', `${base}/users/${user.userId}`, {
          token: tokens.instructor,
          json: { group: 'Student', registration_section: '1' },
        });
      },
    },
    'drop-member': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        const user = await createUser('user', 'dropped');
        await addMember(course, user, 4, '1');
        return request('DELETE', `${base}/users/${user.userId}`, { token: tokens.instructor });
      },
    },
    'import-class-list': {
      kind: 'batch',
      iterations: 20,
      prepare: async () => {
        const rows = Array.from({ length: 10 }, () => {
          const userId = `listed-${unique()}`;
          return `${userId},Listed,Student,${userId}@example.edu,1,Student`;
        });
        return request('POST', `${base}/users/import`, {
          token: tokens.instructor,
          text: { type: 'text/csv', body: ['user_id,first_name,last_name,email,registration_section,group', ...rows].join('\n') },
        });
      },
    },
    openapi: {
      kind: 'static',
      iterations: 120,
      prepare: async () => request('GET', '/api/openapi.json'),
      ok: (answer) => typeof (answer as unknown as { openapi?: unknown }).openapi === 'string',
    },
    'record-keys': {
      kind: 'static',
      iterations: 120,
      prepare: async () => request('GET', '/api/records/jwks'),
      ok: (answer) => Array.isArray((answer as unknown as { keys?: unknown }).keys),
    },
    'api-docs': { kind: 'static', iterations: 120, prepare: async () => request('GET', '/api/docs'), ok: isPage },
    'api-docs-asset': {
      kind: 'static',
      iterations: 120,
      prepare: async () => request('GET', `/api/docs/${swaggerUiLinks().styles}`, { headers: { 'accept-encoding': 'gzip' } }),
      ok: isPage,
    },
    // LTI: superusers register platforms (on a public address literal: no name is looked up), list, read and remove them.
    'create-lti-registration': {
      kind: 'write',
      iterations: 60,
      prepare: async () => request('POST', '/api/lti/registrations', { token: tokens.superuser, json: ltiPlatform() }),
    },
    'list-lti-registrations': { kind: 'read', iterations: 60, prepare: get('/api/lti/registrations', tokens.superuser) },
    'get-lti-registration': {
      kind: 'read',
      iterations: 120,
      prepare: async () => get(`/api/lti/registrations/${await ltiRegistration()}`, tokens.superuser)(),
    },
    'delete-lti-registration': {
      kind: 'write',
      iterations: 60,
      prepare: async () => {
        const answer = succeeded('an LTI platform to remove', await invoke('create-lti-registration', ltiPlatformRequest()));
        return request('DELETE', `/api/lti/registrations/${(answer.data as { registration_id: string }).registration_id}`, {
          token: tokens.superuser,
        });
      },
    },
    'lti-jwks': { kind: 'static', iterations: 120, prepare: async () => request('GET', '/api/lti/jwks'), ok: isPage },
    'lti-config': { kind: 'static', iterations: 120, prepare: async () => request('GET', '/api/lti/config'), ok: isPage },
    // A platform's browser starts an LTI login: the state is stored and the browser redirected.
    'lti-login': {
      kind: 'write',
      iterations: 120,
      prepare: async () => request('GET', '/api/lti/login', { query: await loginPlatform(), headers: { host: 'bench.example.edu' } }),
      ok: isRedirect,
    },
    'lti-login-form': {
      kind: 'write',
      iterations: 120,
      prepare: async () => request('POST', '/api/lti/login', { form: await loginPlatform(), headers: { host: 'bench.example.edu' } }),
      ok: isRedirect,
    },
    // A launch whose state no login issued: the state's one read, refused with a page (a full launch needs a platform's keys).
    'lti-launch': {
      kind: 'read',
      iterations: 120,
      prepare: async () => request('POST', '/api/lti/launch', { form: { id_token: 'not.a.token', state: `bench-${unique()}` } }),
      ok: (answer) => answer.status === 'HTTP 400',
    },
    // LTI links of the course: listed, and asked for with an API token (a link comes only from a launch session) or to unlink one not linked.
    'lti-links': { kind: 'read', iterations: 60, prepare: get(`${base}/lti/link`, tokens.instructor) },
    'link-lti-context': {
      kind: 'read',
      iterations: 60,
      prepare: async () => request('POST', `${base}/lti/link`, { token: tokens.instructor, json: { section: '1' } }),
      ok: (answer) => answer.status === 'fail',
    },
    // Deep linking needs an instructor's deep-linking launch session; an API token is refused before anything is read beyond the token check.
    'create-lti-deep-link': {
      kind: 'read',
      iterations: 60,
      prepare: async () => request('POST', '/api/lti/deep-links', { token: tokens.instructor, json: { gradeable_ids: ['hw1'] } }),
      ok: (answer) => answer.status === 'fail',
    },
    'unlink-lti-context': {
      kind: 'write',
      iterations: 60,
      prepare: async () =>
        request('DELETE', `${base}/lti/link`, { token: tokens.instructor, query: { registration_id: 'lti_none', context_id: 'none' } }),
      ok: (answer) => answer.status === 'fail',
    },
    // The bench's course is linked to no LMS course: the sync is refused before any platform is asked.
    'lti-roster-sync': {
      kind: 'write',
      iterations: 60,
      prepare: async () => request('POST', `${base}/lti/roster-sync`, { token: tokens.instructor, json: { dry_run: true } }),
      ok: (answer) => answer.status === 'fail',
    },
    'list-lti-scores': { kind: 'read', iterations: 60, prepare: get(`${base}/lti/scores`, tokens.instructor) },
    // A delivery id naming no delivery: refused after one read.
    'replay-lti-score': {
      kind: 'write',
      iterations: 60,
      prepare: async () =>
        request('POST', `${base}/lti/scores/ls_${Buffer.from('["hw","nobody","lti_x","ctx"]').toString('base64url')}/replay`, {
          token: tokens.instructor,
        }),
      ok: (answer) => answer.status === 'fail',
    },
    // The bench's course is linked to no LMS course: the publish is refused once the links are read.
    'publish-lti-scores': {
      kind: 'write',
      iterations: 60,
      prepare: async () => request('POST', `${base}/gradeable/${gradeableId}/lti/publish`, { token: tokens.instructor }),
      ok: (answer) => answer.status === 'fail',
    },
    // LTI Dynamic Registration: a superuser invites an LMS; an LMS opens an invitation with a
    // configuration on this machine's own address, refused before any request (no platform here).
    'create-lti-invitation': {
      kind: 'write',
      iterations: 60,
      prepare: async () => request('POST', '/api/lti/registrations/invitations', { token: tokens.superuser, json: { label: 'Bench LMS' } }),
    },
    'lti-register': {
      kind: 'read',
      iterations: 120,
      prepare: async () =>
        request('GET', '/api/lti/register', {
          query: { invitation: await ltiInvitation(), openid_configuration: 'https://127.0.0.1/.well-known/openid-configuration' },
          headers: { host: 'bench.example.edu' },
        }),
      ok: (answer) => answer.status === 'HTTP 400',
    },
    // Accounts: superusers list, create, read, change and set passwords; a user changes their own.
    'list-users': { kind: 'read', iterations: 60, prepare: get('/api/users', tokens.superuser) },
    'create-user': {
      kind: 'write',
      iterations: 20,
      prepare: async () => {
        const userId = `created-${unique()}`;
        return request('POST', '/api/users', {
          token: tokens.superuser,
          json: { user_id: userId, first_name: 'Created', last_name: 'User', email: `${userId}@example.edu`, password: STRONG_PASSWORD },
        });
      },
    },
    'get-user': { kind: 'read', iterations: 120, prepare: get(`/api/users/${users.student.userId}`, tokens.student) },
    'update-user': {
      kind: 'write',
      iterations: 60,
      prepare: async (i) =>
        request('PATCH', `/api/users/${users.student.userId}`, { token: tokens.student, json: { first_name: `Sam${i % 2}` } }),
    },
    'set-user-password': {
      kind: 'write',
      iterations: 20,
      prepare: async () =>
        request('POST', `/api/users/${(await createUser('user', 'reset')).userId}/password`, {
          token: tokens.superuser,
          json: { password: STRONG_PASSWORD },
        }),
    },
    'link-identity': {
      kind: 'write',
      iterations: 60,
      prepare: async () =>
        request('PUT', `/api/users/${users.student.userId}/identity`, { token: tokens.superuser, json: { subject: `sub-${unique()}` } }),
    },
    'change-password': {
      kind: 'token-issue',
      iterations: 15,
      // The caller's current password is known: an account made before each call, with its session.
      prepare: async () => {
        const user = await createUser('user', 'changer');
        return request('POST', '/api/me/password', {
          token: await sessionToken(user.userId),
          json: { current_password: user.password, new_password: STRONG_PASSWORD },
        });
      },
    },
    'list-terms': { kind: 'read', iterations: 120, prepare: get('/api/terms', tokens.student) },
    'user-audit': { kind: 'read', iterations: 120, prepare: get(`/api/users/${users.student.userId}/audit`, tokens.superuser) },
    'course-audit': { kind: 'read', iterations: 120, prepare: get(`${base}/audit`, tokens.instructor) },
    'open-inquiry': {
      kind: 'write',
      iterations: 60,
      // The student's previous inquiry about component 0 resolved first (untimed): one may be open at a time.
      prepare: async () => {
        const id = await inquiryGradeable();
        await resolveOpen(id, 0);
        return request('POST', `${inquiries}/${id}/inquiries`, { token: tokens.student, json: { content: 'Why?', component_id: 0 } });
      },
    },
    'list-inquiries': { kind: 'read', iterations: 120, prepare: async () => request('GET', `${base}/inquiries`, { token: tokens.ta }) },
    'post-to-inquiry': {
      kind: 'write',
      iterations: 60,
      prepare: async (i) => {
        const id = await inquiryGradeable();
        const inquiryId = await inquiryToPostTo(id);
        return request('POST', `${inquiries}/${id}/inquiries/${inquiryId}/posts`, {
          token: i % 2 === 0 ? tokens.student : tokens.ta,
          json: { content: `Post ${i}` },
        });
      },
    },
    'change-inquiry-status': {
      kind: 'write',
      iterations: 60,
      // Resolved and reopened in turn: the status it is not in now (read untimed).
      prepare: async () => {
        const id = await inquiryGradeable();
        const inquiryId = await inquiryToChange();
        const isOpen = (await openInquiries(id, 1)).some((inquiry) => inquiry.inquiry_id === inquiryId);
        return request('PATCH', `${inquiries}/${id}/inquiries/${inquiryId}`, {
          token: tokens.ta,
          json: { status: isOpen ? 'resolved' : 'open' },
        });
      },
    },
  };
  return (Object.keys(routes) as RouteName[]).map((route) => ({ route, ...known[route] }));
}

/** Where the bench's webhooks point: a host the bench allows (bench/setup-env.ts); nothing is ever sent there. */
export const WEBHOOK_HOST = '127.0.0.1:9';
const WEBHOOK_URL = `http://${WEBHOOK_HOST}/bench-hook`;

function filesGradeableJson(id: string): Record<string, unknown> {
  const at = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
  return {
    id,
    title: 'Files bench',
    type: 'Electronic File',
    dates: { ta_view_start_date: at(-2), submission_open_date: at(-1), submission_due_date: at(7) },
    autograding: { test_cases: [{ name: 'Compiles', command: 'g++ -o /tmp/main main.cpp', expect: { exit_code: 0 } }] },
  };
}

/** A multipart submission of one small file for `userId`, base64-encoded as API Gateway hands it to Lambda. */
export async function multipartEvent(path: string, token: string, userId: string, file: Buffer = SMALL_FILE): Promise<ApiEvent> {
  const form = new FormData();
  form.append('user_id', userId);
  form.append('files', new Blob([new Uint8Array(file)]), 'main.cpp');
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  const event = request('POST', path, { token });
  return {
    ...event,
    headers: { authorization: token, 'content-type': encoded.headers.get('content-type') ?? '' },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
}

/** A TA graded files gradeable whose grades were released yesterday and that takes grade inquiries per component for five more days. */
function inquiryGradeableJson(id: string): Record<string, unknown> {
  const at = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
  return {
    id,
    title: `Inquiries ${id}`,
    type: 'Electronic File',
    syllabus_bucket: 'homework',
    ta_grading: true,
    grade_inquiries: true,
    grade_inquiry_per_component_allowed: true,
    dates: {
      ta_view_start_date: at(-11),
      submission_open_date: at(-10),
      submission_due_date: at(-5),
      grade_start_date: at(-4),
      grade_due_date: at(-2),
      grade_released_date: at(-1),
      grade_inquiry_start_date: at(-1),
      grade_inquiry_due_date: at(5),
    },
    rubric: [rubricComponent('Style'), rubricComponent('Design'), rubricComponent('Tests')],
  };
}
