import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { rubricComponent } from '../support/rubric.ts';
import { daysFromNow as iso } from '../support/dates.ts';
import { editStoredGradeable, uploadGradeable } from '../support/gradeables.ts';
import { closeAll, startAllowedWebhookReceiver } from '../support/allowed-servers.ts';
import type { WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Grade inquiries over HTTP: a student opens one about their released grade within the inquiry
 * window, the student and the graders who may grade them post, graders resolve, a student reopens;
 * every change in the course's audit trail and the webhook events opened and resolved.
 */
let api: TestApi;
let world: CourseWorld;
let receiver: WebhookReceiver;
const base = () => `/${world.course.term}/${world.course.course}`;
const H = (persona: keyof CourseWorld['tokens']) => ({ ...world.tokens[persona], Prefer: 'http-status' });

/** A TA graded homework whose grades were released `releasedDaysAgo` days ago, with an inquiry window of `window` days from then. */
const dates = (releasedIn: number, inquiryDays = 3) => ({
  ta_view_start_date: iso(-20),
  submission_open_date: iso(-19),
  submission_due_date: iso(-10),
  grade_start_date: iso(-9),
  grade_due_date: iso(Math.min(-8, releasedIn - 1)),
  grade_released_date: iso(releasedIn),
  grade_inquiry_start_date: iso(releasedIn),
  grade_inquiry_due_date: iso(releasedIn + inquiryDays),
});
const rubric = [rubricComponent('Style'), rubricComponent('Design')];
const homework = (id: string, fields: Record<string, unknown>) => ({
  id,
  title: id,
  type: 'Electronic File',
  syllabus_bucket: 'homework',
  ta_grading: true,
  grade_inquiries: true,
  rubric,
  ...fields,
});

const open = (gradeable: string, body: Record<string, unknown>, persona: keyof CourseWorld['tokens'] = 'student') =>
  api.postJson(`${base()}/gradeable/${gradeable}/inquiries`, body, H(persona));
const post = (gradeable: string, inquiryId: string, content: string, persona: keyof CourseWorld['tokens']) =>
  api.postJson(`${base()}/gradeable/${gradeable}/inquiries/${inquiryId}/posts`, { content }, H(persona));
const patch = (gradeable: string, inquiryId: string, body: Record<string, unknown>, persona: keyof CourseWorld['tokens']) =>
  api.call('PATCH', `${base()}/gradeable/${gradeable}/inquiries/${inquiryId}`, {
    headers: { 'Content-Type': 'application/json', ...H(persona) },
    body: JSON.stringify(body),
  });
const list = async (persona: keyof CourseWorld['tokens'], query = '') => {
  const answer = await api.get(`${base()}/inquiries${query}`, H(persona));
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as { inquiry_id: string; status: string; revision: number; posts: unknown[]; owner_id: string }[];
};
const auditActions = async (target: string) => {
  const answer = await api.get(`${base()}/audit?page_size=500`, H('instructor'));
  expect(answer.json.status, answer.text).toBe('success');
  return (answer.json.data as { action: string; target: string }[])
    .filter((entry) => entry.target === target)
    .map((entry) => entry.action)
    .reverse();
};
const failed = (answer: { json: { status: string; message?: string }; httpStatus: number }) => [answer.httpStatus, answer.json.message];

beforeAll(async () => {
  receiver = await startAllowedWebhookReceiver();
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  await uploadGradeable(api, world, homework('whole', { dates: dates(-1) }));
  await uploadGradeable(api, world, homework('per_component', { grade_inquiry_per_component_allowed: true, dates: dates(-1) }));
  await uploadGradeable(api, world, homework('unreleased', { dates: dates(2) }));
  await uploadGradeable(api, world, homework('closed', { dates: dates(-5, 2) }));
  await uploadGradeable(api, world, homework('no_inquiries', { grade_inquiries: false, dates: dates(-1) }));
  await uploadGradeable(api, world, homework('race', { dates: dates(-1) }));
  await uploadGradeable(api, world, homework('closing', { dates: dates(-1) }));
  const team = { team_gradeable: { team_size_max: 2, inherit_from: '' }, dates: dates(-1) };
  await uploadGradeable(api, world, homework('team_hw', team));
  await uploadGradeable(api, world, homework('teamless_hw', team));
  const members = { members: [world.users.student.userId, world.users.student2.userId] };
  const teamed = await api.call('PUT', `${base()}/gradeable/team_hw/teams/pair`, {
    headers: { 'Content-Type': 'application/json', ...world.tokens.instructor },
    body: JSON.stringify(members),
  });
  expect(teamed.json.status, teamed.text).toBe('success');
  const hook = await api.postJson(
    `${base()}/webhooks`,
    { url: `${receiver.url}/inquiries`, events: ['inquiry.opened', 'inquiry.resolved'] },
    world.tokens.instructor,
  );
  expect(hook.json.status, hook.text).toBe('success');
}, 120_000);
afterAll(() => closeAll(api, receiver));

describe('opening a grade inquiry', () => {
  it('is a student’s, about their own released grade, within the window, with the change in the audit trail', async () => {
    const answer = await open('whole', { content: 'Why did I lose two points on style?' });
    expect(answer.json.status, answer.text).toBe('success');
    expect(answer.json.data).toMatchObject({
      gradeable_id: 'whole',
      owner_id: world.users.student.userId,
      members: [world.users.student.userId],
      section: '1',
      component_id: null,
      status: 'open',
      revision: 1,
      posts: [{ author: world.users.student.userId, role: 'student', content: 'Why did I lose two points on style?' }],
    });
    expect(await auditActions(answer.json.data.inquiry_id)).toEqual(['inquiry.opened']);
  });

  it('is refused clearly before the release, after the window, without grade_inquiries, and to staff', async () => {
    expect(failed(await open('unreleased', { content: 'Early' }))).toEqual([
      400,
      expect.stringMatching(/^Grades of this gradeable are not released yet/),
    ]);
    expect(failed(await open('closed', { content: 'Late' }))).toEqual([
      400,
      expect.stringMatching(/^Grade inquiries on this gradeable closed at /),
    ]);
    expect(failed(await open('no_inquiries', { content: 'Hm' }))).toEqual([
      400,
      'This gradeable takes no grade inquiries (grade_inquiries is false).',
    ]);
    expect(failed(await open('whole', { content: 'As TA' }, 'ta'))).toEqual([
      403,
      'Only a student opens a grade inquiry, about their own grade.',
    ]);
    expect(await list('instructor', '?gradeable_id=closed')).toEqual([]);
  });

  it('takes one open inquiry per grade, or per component when the gradeable takes them per component', async () => {
    expect(failed(await open('whole', { content: 'Again' }))).toEqual([
      409,
      'A grade inquiry about this grade is open already: post to it instead.',
    ]);
    expect(failed(await open('whole', { content: 'Component', component_id: 0 }))).toEqual([
      400,
      expect.stringMatching(/^This gradeable takes grade inquiries about the whole grade/),
    ]);
    expect(failed(await open('per_component', { content: 'Which?' }))).toEqual([
      400,
      'This gradeable takes grade inquiries per rubric component: the field component_id is required.',
    ]);
    expect(failed(await open('per_component', { content: 'Third', component_id: 2 }))).toEqual([
      400,
      'This gradeable has no rubric component 2.',
    ]);
    const first = await open('per_component', { content: 'Style', component_id: 0 });
    const second = await open('per_component', { content: 'Design', component_id: 1 });
    expect([first.json.status, second.json.status]).toEqual(['success', 'success']);
    expect(failed(await open('per_component', { content: 'Style again', component_id: 0 }))).toEqual([
      409,
      'A grade inquiry about rubric component 0 is open already: post to it instead.',
    ]);
  });

  it('bounds and checks its content', async () => {
    expect(failed(await open('whole', { content: '   ' }))).toEqual([400, 'The field content is required.']);
    expect(failed(await open('whole', { content: 'x'.repeat(2001) }))).toEqual([400, expect.stringMatching(/^The field content /)]);
    expect(failed(await open('per_component', { content: 'bell\u0007', component_id: 1 }, 'student2'))).toEqual([
      400,
      'The field content must be text: no control characters but tabs and line breaks.',
    ]);
  });
});

describe('who sees and changes an inquiry', () => {
  it('lists students’ own, limited access graders’ sections’ and every one to full access graders', async () => {
    const theirs = await open('per_component', { content: 'Student 2 asks', component_id: 0 }, 'student2');
    expect(theirs.json.status, theirs.text).toBe('success');
    const own = await list('student');
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((inquiry) => inquiry.owner_id === world.users.student.userId)).toBe(true);
    expect((await list('student2')).map((inquiry) => inquiry.inquiry_id)).toEqual([theirs.json.data.inquiry_id]);
    // The mentor grades section 1 only.
    expect((await list('mentor')).some((inquiry) => inquiry.inquiry_id === theirs.json.data.inquiry_id)).toBe(false);
    expect((await list('ta')).map((inquiry) => inquiry.inquiry_id)).toContain(theirs.json.data.inquiry_id);
    expect((await list('ta', '?status=resolved')).length).toBe(0);
    expect(failed(await api.get(`${base()}/inquiries?status=closed`, H('ta')))).toEqual([400, 'The status must be open, resolved or all.']);
    const paged = await api.get(`${base()}/inquiries?page_size=1`, H('ta'));
    expect(paged.json.data).toHaveLength(1);
    expect(paged.headers.get('link')).toMatch(/cursor=/);

    const id = theirs.json.data.inquiry_id as string;
    expect(failed(await post('per_component', id, 'Not mine', 'student'))).toEqual([404, 'Grade inquiry not found.']);
    expect(failed(await post('per_component', id, 'Not my section', 'mentor'))).toEqual([403, 'You do not grade section 2.']);
    expect(failed(await patch('per_component', id, { status: 'resolved' }, 'mentor'))).toEqual([403, 'You do not grade section 2.']);
    expect(failed(await patch('per_component', id, { status: 'resolved' }, 'student2'))).toEqual([
      403,
      'Only graders resolve a grade inquiry.',
    ]);
    const answered = await post('per_component', id, 'The design lost points for globals.', 'ta');
    expect(answered.json.data).toMatchObject({
      revision: 2,
      posts: [{ role: 'student' }, { role: 'staff', author: world.users.ta.userId }],
    });
    const reply = await post('per_component', id, 'Thanks', 'student2');
    expect(reply.json.data).toMatchObject({ revision: 3 });
    expect(failed(await patch('per_component', id, { status: 'resolved', revision: 2 }, 'ta'))).toEqual([
      409,
      'The grade inquiry changed since revision 2: it is at revision 3. Reload it and try again.',
    ]);
    const resolved = await patch('per_component', id, { status: 'resolved', revision: 3 }, 'ta');
    expect(resolved.json.data).toMatchObject({ status: 'resolved', revision: 4 });
    expect(failed(await post('per_component', id, 'One more', 'student2'))).toEqual([
      409,
      'The grade inquiry is resolved: reopen it to post.',
    ]);
    expect(failed(await patch('per_component', id, { status: 'resolved' }, 'ta'))).toEqual([409, 'The grade inquiry is resolved already.']);
    // Its student reopens it within the window.
    const reopened = await patch('per_component', id, { status: 'open' }, 'student2');
    expect(reopened.json.data).toMatchObject({ status: 'open', revision: 5 });
    expect(await auditActions(id)).toEqual(['inquiry.opened', 'inquiry.posted', 'inquiry.posted', 'inquiry.resolved', 'inquiry.reopened']);
  });

  it('is reopened by its student only within the window, and then only while no other is open about the same grade', async () => {
    const first = (await list('ta', '?gradeable_id=whole&status=open'))[0]!;
    expect((await patch('whole', first.inquiry_id, { status: 'resolved' }, 'ta')).json.status).toBe('success');
    const second = await open('whole', { content: 'Another question' });
    expect(second.json.status, second.text).toBe('success');
    expect(failed(await patch('whole', first.inquiry_id, { status: 'open' }, 'student'))).toEqual([
      409,
      'A grade inquiry about this grade is open already: post to it instead.',
    ]);
  });

  it('is reopened by graders after the window, by its student no longer', async () => {
    const opened = await open('closing', { content: 'Before the window closes' });
    const id = opened.json.data.inquiry_id as string;
    expect((await patch('closing', id, { status: 'resolved' }, 'ta')).json.status).toBe('success');
    // The window closed since (the instructor moved its due date to yesterday).
    await editStoredGradeable(world.course, 'closing', (document) => {
      document.dates.grade_inquiry_due_date = iso(-0.5);
    });
    expect(failed(await patch('closing', id, { status: 'open' }, 'student'))).toEqual([
      400,
      expect.stringMatching(/^Grade inquiries on this gradeable closed at /),
    ]);
    expect(failed(await open('closing', { content: 'Too late' }))).toEqual([
      400,
      expect.stringMatching(/^Grade inquiries on this gradeable closed at /),
    ]);
    const reopened = await patch('closing', id, { status: 'open' }, 'ta');
    expect(reopened.json.data).toMatchObject({ status: 'open', revision: 3 });
  });

  it('sends inquiry.opened and inquiry.resolved to the course’s webhooks', async () => {
    const received = await receiver.waitFor('/inquiries', 3, 30_000);
    const types = received.map((request) => (JSON.parse(request.body) as { type: string }).type);
    expect(types).toContain('inquiry.opened');
    expect(types).toContain('inquiry.resolved');
    const resolved = received
      .map((request) => JSON.parse(request.body) as { type: string; data: Record<string, unknown> })
      .find((event) => event.type === 'inquiry.resolved');
    expect(resolved?.data).toMatchObject({ gradeable_id: expect.any(String), by: world.users.ta.userId });
  }, 60_000);
});

describe('a team’s inquiry', () => {
  it('is about the team’s grade: any member opens it, every member sees it and posts to it; a student on no team is told so', async () => {
    const opened = await open('team_hw', { content: 'Our tests lost points' }, 'student2');
    expect(opened.json.data).toMatchObject({
      owner_id: 'pair',
      members: [world.users.student.userId, world.users.student2.userId],
      section: '2',
    });
    const id = opened.json.data.inquiry_id as string;
    expect(failed(await open('team_hw', { content: 'Same grade' }, 'student'))).toEqual([
      409,
      'A grade inquiry about this grade is open already: post to it instead.',
    ]);
    expect((await list('student', '?gradeable_id=team_hw')).map((inquiry) => inquiry.inquiry_id)).toEqual([id]);
    const posted = await post('team_hw', id, 'My part was the parser', 'student');
    expect(posted.json.data).toMatchObject({
      posts: [{ author: world.users.student2.userId }, { author: world.users.student.userId, role: 'student' }],
    });
    // Opened by a student of section 2: not the mentor's.
    expect(failed(await post('team_hw', id, 'Mentor', 'mentor'))).toEqual([403, 'You do not grade section 2.']);
    expect(failed(await open('teamless_hw', { content: 'No team' }))).toEqual([
      400,
      `${world.users.student.userId} is not on a team for this gradeable.`,
    ]);
  });
});

describe('a resolve racing a post or a reopen', () => {
  it('never loses either silently: exactly one lands, the state and trail show it, in every round', async () => {
    const rounds = 30;
    let inquiryId = '';
    const opened = await open('race', { content: 'Race' });
    expect(opened.json.status, opened.text).toBe('success');
    inquiryId = opened.json.data.inquiry_id;
    const outcomes = { resolveWon: 0, otherWon: 0 };
    const raced = new Set([inquiryId]);
    const expected = { resolved: 0, reopened: 0, posted: 0 };
    for (let round = 0; round < rounds; round++) {
      const before = (await list('ta', '?gradeable_id=race')).find((inquiry) => inquiry.inquiry_id === inquiryId)!;
      expect(before.status).toBe('open');
      // Even rounds: the student posts while the TA resolves; odd rounds: another TA post.
      const [resolve, other] = await Promise.all([
        patch('race', inquiryId, { status: 'resolved', revision: before.revision }, 'ta'),
        post('race', inquiryId, `Round ${round}`, round % 2 === 0 ? 'student' : 'instructor'),
      ]);
      const after = (await list('ta', '?gradeable_id=race')).find((inquiry) => inquiry.inquiry_id === inquiryId)!;
      const resolved = resolve.json.status === 'success';
      const posted = other.json.status === 'success';
      // Whichever lost was told so, never succeeded unseen.
      expect([resolved, posted].filter(Boolean), `${resolve.text} ${other.text}`).toHaveLength(1);
      expect(after.status).toBe(resolved ? 'resolved' : 'open');
      expect(after.posts).toHaveLength(before.posts.length + (posted ? 1 : 0));
      expect(after.revision).toBe(before.revision + 1);
      if (!resolved) expect(resolve.json.message).toMatch(/^The grade inquiry changed/);
      if (!posted) expect(other.json.message).toMatch(/^The grade inquiry (is resolved|changed at the same moment)/);
      if (resolved) {
        outcomes.resolveWon++;
        expected.resolved++;
        expected.reopened++;
        const reopened = await patch('race', inquiryId, { status: 'open' }, 'ta');
        expect(reopened.json.status, reopened.text).toBe('success');
      } else {
        outcomes.otherWon++;
        expected.posted++;
      }
      // The inquiry fills up: a new one (the old resolved) every few rounds.
      if (after.posts.length >= 25) {
        expect((await patch('race', inquiryId, { status: 'resolved' }, 'ta')).json.status).toBe('success');
        expected.resolved++;
        const next = await open('race', { content: 'Race again' });
        inquiryId = next.json.data.inquiry_id;
        raced.add(inquiryId);
      }
    }
    const trail = await api.get(`${base()}/audit?page_size=500`, H('instructor'));
    const entries = (trail.json.data as { action: string; target: string }[]).filter((entry) => raced.has(entry.target));
    const count = (action: string) => entries.filter((entry) => entry.action === action).length;
    // The trail records exactly the changes that held.
    expect({
      opened: count('inquiry.opened'),
      resolved: count('inquiry.resolved'),
      reopened: count('inquiry.reopened'),
      posted: count('inquiry.posted'),
    }).toEqual({ opened: raced.size, ...expected });
    console.info(`inquiry race: ${rounds} rounds, the resolve won ${outcomes.resolveWon}, the post won ${outcomes.otherWon}`);
  }, 120_000);
});
