import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routeKeys, routes } from '#functions/definitions.ts';
import type { RouteDefinition, RouteKey } from '#shared/http/routes.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import { createCourseWorld, tokenOf, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { createUser } from '../support/users.ts';
import { routeRows } from '#functions/test-rows.ts';
import { personas, type MatrixPersona, type MatrixWorld, type Outcome } from './authorization-matrix.ts';
import { mapLimit } from './support.ts';
import { pageTitle } from '#shared/http/platform-answers.ts';
import { daysFromNow, openDates } from '../support/dates.ts';
import { publicGradeableJson, publicVcs } from '../support/gradeables.ts';

let api: TestApi;
let course: CourseWorld;
let world: MatrixWorld;
let tokens: Record<MatrixPersona, Record<string, string>>;

/** Port 9 (discard) on loopback: registration accepts it once allowed; nothing ever listens or is delivered. */
const WEBHOOK_URL = 'http://127.0.0.1:9/matrix';

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_ALLOWED_HOSTS', '127.0.0.1:9');
  api = await startTestApi({ workers: 0 });
  course = await createCourseWorld(api);
  const [outsider, login] = await Promise.all([createUser('user', 'outsider'), createUser('user', 'login')]);
  const outsiderToken = (await api.postJson('/token', { user_id: outsider.userId, password: outsider.password })).json.data.token;
  const { term, course: code } = course.course;
  const upload = async (id: string, dates: Record<string, string>) => {
    const answer = await api.postJson(
      `/${term}/${code}/upload`,
      publicGradeableJson(id, { title: `Title of ${id}`, vcs: publicVcs('org/hw-{$user_id}'), dates }),
      course.tokens.instructor,
    );
    expect(answer.json.status, answer.text).toBe('success');
  };
  const openGradeable = uniqueCode('open');
  const futureGradeable = uniqueCode('future');
  await upload(openGradeable, openDates(2));
  await upload(futureGradeable, { ...openDates(2), ta_view_start_date: daysFromNow(-1), submission_open_date: daysFromNow(1) });
  const teamGradeable = uniqueCode('team');
  const teamUpload = await api.postJson(
    `/${term}/${code}/upload`,
    { id: teamGradeable, title: 'Team homework', type: 'Electronic File', team_gradeable: { team_size_max: 2, inherit_from: '' } },
    course.tokens.instructor,
  );
  expect(teamUpload.json.status, teamUpload.text).toBe('success');
  const webhook = async () => {
    const answer = await api.postJson(
      `/${term}/${code}/webhooks`,
      { url: WEBHOOK_URL, events: ['submission.failed'] },
      course.tokens.instructor,
    );
    expect(answer.json.status, answer.text).toBe('success');
    return answer.json.data.id as string;
  };
  const siblingGradeable = uniqueCode('sibling');
  const sibling = await api.postJson(
    `/${course.sibling.term}/${course.sibling.course}/upload`,
    { id: siblingGradeable, title: 'Sibling homework', type: 'Electronic File' },
    { Authorization: await tokenOf(api, course.users.siblingInstructor) },
  );
  expect(sibling.json.status, sibling.text).toBe('success');
  const [webhookId, doomedWebhookId] = [await webhook(), await webhook()];
  const summaries = await api.postJson(`/${term}/${code}/reports/summaries`, {}, course.tokens.instructor);
  expect(summaries.json.status, summaries.text).toBe('success');

  const u = course.users;
  world = {
    term,
    course: code,
    userIds: {
      outsider: outsider.userId,
      student: u.student.userId,
      student2: u.student2.userId,
      mentor: u.mentor.userId,
      ta: u.ta.userId,
      instructor: u.instructor.userId,
      otherInstructor: u.otherInstructor.userId,
      groupStaff: u.groupStaff.userId,
      groupMentor: u.groupMentor.userId,
      archivedGroupInstructor: u.archivedGroupInstructor.userId,
      faculty: u.faculty.userId,
      superuser: u.superuser.userId,
    },
    openGradeable,
    openTitle: `Title of ${openGradeable}`,
    futureGradeable,
    login: { user_id: login.userId, password: login.password },
    unique: (prefix) => uniqueCode(prefix),
    sibling: { term: course.sibling.term, course: course.sibling.course, gradeable: siblingGradeable },
    webhookUrl: WEBHOOK_URL,
    webhookId,
    teamGradeable,
    doomedWebhookId,
  };
  tokens = { ...course.tokens, outsider: { Authorization: outsiderToken } } as Record<MatrixPersona, Record<string, string>>;
}, 120_000);
afterAll(async () => {
  await api.close();
  vi.unstubAllEnvs();
});

function urlOf(key: RouteKey, params: Record<string, string>, query: Record<string, string> | undefined): string {
  const filled = { semester: world.term, course: world.course, ...params };
  const path = key.path.replace(/^\/api/, '').replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in filled)) throw new Error(`${key.method} ${key.path}: no value for {${name}}`);
    return encodeURIComponent(filled[name as keyof typeof filled]!);
  });
  return query ? `${path}?${new URLSearchParams(query)}` : path;
}

/** The answer's outcome in the matrix's terms, or a description of what else came back; `successStatus`: the route's declared one. */
function verdict(answer: Answer, expected: Outcome, successStatus = 200): string | undefined {
  const { httpStatus } = answer;
  const shown = `HTTP ${httpStatus} ${answer.text.slice(0, 300)}`;
  // A platform-facing route answers a redirect, or an HTML page titled with its fail (the reference page is HTML too, with 200).
  const page = httpStatus >= 400 && /^text\/html/.test(answer.headers.get('content-type') ?? '') ? pageTitle(answer.text) : undefined;
  const json = page === undefined ? answer.json : { status: 'fail', message: page };
  if (expected === 'allowed') {
    const redirect = (httpStatus === 302 || httpStatus === 303) && answer.headers.has('location');
    const ok =
      redirect || (httpStatus === successStatus && (json.status === 'success' || (json.status === undefined && typeof json === 'object')));
    return ok ? undefined : shown;
  }
  const [message, status] =
    expected === 'denied'
      ? ["You don't have access to this endpoint.", 403]
      : expected === 'unauthenticated'
        ? ['Unauthenticated access. Please log in.', 401]
        : [expected.fail.replace('{future}', world.futureGradeable), expected.status];
  return json.status === 'fail' && json.message === message && httpStatus === status ? undefined : shown;
}

describe('the authorization matrix', () => {
  it('has cases for every route, and none for a route that does not exist', () => {
    const names = Object.keys(routes);
    const cases: Record<string, { readonly authorization: readonly unknown[] }> = routeRows;
    expect(
      names.filter((name) => !cases[name]?.authorization.length),
      'routes without authorization cases in functions/<name>/test-rows.ts',
    ).toEqual([]);
    expect(
      Object.keys(cases).filter((name) => !names.includes(name)),
      'cases for routes that do not exist',
    ).toEqual([]);
  });

  it('answers every route (and alias) as every persona exactly as the table says', async () => {
    const mismatches: string[] = [];
    let checked = 0;
    // Writing routes that replace what readers read (summaries) run after the rest.
    const order = [...routeKeys].sort((a, b) => Number(a.name === 'generate-summaries') - Number(b.name === 'generate-summaries'));
    for (const key of order) {
      const runs = routeRows[key.name].authorization.flatMap((testCase) => personas.map((persona) => ({ testCase, persona })));
      await mapLimit(runs, 8, async ({ testCase, persona }) => {
        const request = testCase.request(world, persona);
        const headers: Record<string, string> = { Prefer: 'http-status', ...tokens[persona] };
        const init: { headers: Record<string, string>; body?: string } = { headers };
        if (key.method !== 'GET' && request.form) {
          headers['Content-Type'] = 'application/x-www-form-urlencoded';
          init.body = new URLSearchParams(request.body as Record<string, string>).toString();
        } else if (key.method !== 'GET') {
          headers['Content-Type'] = 'application/json';
          init.body = JSON.stringify(request.body ?? {});
        }
        const answer = await api.call(key.method, urlOf(key, request.params ?? {}, request.query), init);
        const expected = testCase.expect[persona];
        const problem = verdict(answer, expected, (routes[key.name] as RouteDefinition).successStatus);
        checked++;
        if (problem) {
          mismatches.push(
            `${key.method} ${key.path} [${testCase.variation}] as ${persona}: expected ${JSON.stringify(expected)}, got ${problem}`,
          );
        }
      });
    }
    expect(mismatches).toEqual([]);
    expect(checked).toBeGreaterThan(routeKeys.length * personas.length);
    // Every route as every persona, one after another: minutes on a loaded machine.
  }, 600_000);
});
