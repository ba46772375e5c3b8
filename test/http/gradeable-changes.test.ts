import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryAll } from '#shared/data/paging.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { vcsGradeableJson } from '../support/gradeables.ts';
import { createCourseWorld, type CourseWorld, type Persona } from '../support/courses.ts';

/**
 * Changing a course's gradeables and settings over HTTP: PUT and DELETE of a gradeable, dry runs,
 * the course's config, archiving; each change with its audit entry.
 */
let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;
const coursePath = () => `/courses/${world.course.term}/${world.course.course}`;
const H = (persona: Persona) => ({ ...world.tokens[persona], Prefer: 'http-status' });
const json = (persona: Persona, extra: Record<string, string> = {}) => ({ 'Content-Type': 'application/json', ...H(persona), ...extra });
const put = (id: string, body: unknown, extra: Record<string, string> = {}, query = '') =>
  api.call('PUT', `${base()}/gradeable/${id}${query}`, { headers: json('instructor', extra), body: JSON.stringify(body) });
const remove = (id: string, persona: Persona = 'instructor') => api.call('DELETE', `${base()}/gradeable/${id}`, { headers: H(persona) });
const download = (id: string) => api.get(`${base()}/${id}/download`, H('instructor'));
const audit = async () =>
  queryAll({
    TableName: tableName(tables.audit),
    KeyConditionExpression: '#scope = :scope',
    ExpressionAttributeNames: { '#scope': 'scope' },
    ExpressionAttributeValues: { ':scope': `course#${world.course.term}/${world.course.course}` },
    ConsistentRead: true,
  });

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
});
afterAll(() => api.close());

describe('gradeable changes', () => {
  it('upload with dry_run=true answers the stored form and writes nothing', async () => {
    const dry = await api.postJson(
      `${base()}/upload?dry_run=true`,
      vcsGradeableJson('hw_dry', { dueInDays: 3, lateDays: 0 }),
      H('instructor'),
    );
    expect(dry.json.status, dry.text).toBe('success');
    expect((dry.json.data as { id: string }).id).toBe('hw_dry');
    expect((await download('hw_dry')).httpStatus).toBe(404);
  });

  it('download → PUT → download gives the same document; a stale If-Match is refused with 412', async () => {
    const created = await api.postJson(`${base()}/upload`, vcsGradeableJson('hw_round', { dueInDays: 3, lateDays: 1 }), H('instructor'));
    expect(created.json.status, created.text).toBe('success');
    const first = await download('hw_round');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"/);
    const same = await put('hw_round', first.json.data, { 'If-Match': etag });
    expect(same.json.status, same.text).toBe('success');
    const second = await download('hw_round');
    expect(second.json.data).toEqual(first.json.data);
    expect(second.headers.get('etag')).toBe(etag);

    const changed = { ...(first.json.data as Record<string, unknown>), title: 'Renamed' };
    const dry = await put('hw_round', changed, { 'If-Match': etag }, '?dry_run=true');
    expect(dry.json.status, dry.text).toBe('success');
    expect((await download('hw_round')).json.data).toEqual(first.json.data);

    const renamed = await put('hw_round', changed, { 'If-Match': etag });
    expect(renamed.json.status, renamed.text).toBe('success');
    expect(renamed.headers.get('etag')).toBe((await download('hw_round')).headers.get('etag'));
    const stale = await put('hw_round', { ...changed, title: 'Again' }, { 'If-Match': etag });
    expect(stale.httpStatus, stale.text).toBe(412);
    expect((await download('hw_round')).json.data).toMatchObject({ title: 'Renamed' });
    expect((await audit()).filter((entry) => entry.target === 'hw_round').map((entry) => entry.action)).toEqual([
      'gradeable.created',
      'gradeable.replaced',
      'gradeable.replaced',
    ]);
  });

  it('the id in the path and in the document must agree; an unknown gradeable is not found', async () => {
    const mismatch = await put('hw_round', vcsGradeableJson('hw_other', { dueInDays: 3, lateDays: 0 }));
    expect(mismatch.httpStatus, mismatch.text).toBe(400);
    expect(mismatch.json.message).toContain('must be the id in the path');
    expect((await put('hw_nothing', vcsGradeableJson('hw_nothing', { dueInDays: 3, lateDays: 0 }))).httpStatus).toBe(404);
  });

  it('a gradeable with a submission keeps its type and version control, and cannot be deleted; one without can', async () => {
    await api.postJson(`${base()}/upload`, vcsGradeableJson('hw_taken', { dueInDays: 3, lateDays: 0 }), H('instructor'));
    const submitted = await api.postJson(
      `${base()}/gradeable/hw_taken/upload`,
      { user_id: world.users.student.userId, vcs_checkout: true, git_repo_id: 'x' },
      H('student'),
    );
    expect(submitted.json.status, submitted.text).toBe('success');
    const form = (await download('hw_taken')).json.data as Record<string, unknown>;
    const { vcs: _vcs, ...withoutVcs } = form;
    const strand = await put('hw_taken', withoutVcs);
    expect(strand.httpStatus, strand.text).toBe(409);
    expect(strand.json.message).toBe('vcs cannot change: the gradeable has submissions or grades that the change would strand.');
    const points = await put('hw_taken', { ...form, title: 'New title' });
    expect(points.json.status, points.text).toBe('success');
    const refused = await remove('hw_taken');
    expect(refused.httpStatus, refused.text).toBe(409);
    expect(refused.json.message).toContain('it has submissions or grades');
    expect((await download('hw_taken')).httpStatus).toBe(200);

    await api.postJson(`${base()}/upload`, vcsGradeableJson('hw_gone', { dueInDays: 3, lateDays: 0 }), H('instructor'));
    expect((await remove('hw_gone', 'ta')).httpStatus).toBe(403);
    const deleted = await remove('hw_gone');
    expect(deleted.json.status, deleted.text).toBe('success');
    expect((await download('hw_gone')).httpStatus).toBe(404);
    expect((await api.get(`${base()}/gradeables`, H('instructor'))).json.data).not.toHaveProperty('hw_gone');
  });
});

describe('course settings', () => {
  it('shows and sets one setting at a time; unknown names and bad values are a fail', async () => {
    const shown = await api.get(`${coursePath()}/config`, H('instructor'));
    expect(shown.json.data).toMatchObject({ config: { course_status: 1, archived: false, default_student_late_days: 0 } });
    expect((await api.get(`${coursePath()}/config`, H('ta'))).httpStatus).toBe(403);

    const set = await api.postForm(`${coursePath()}/config`, { name: 'default_student_late_days', entry: '3' }, H('instructor'));
    expect(set.json.data).toMatchObject({ config: { default_student_late_days: 3 } });
    const zone = await api.postJson(`${coursePath()}/config`, { name: 'timezone', entry: 'europe/paris' }, H('instructor'));
    expect(zone.json.data).toMatchObject({ config: { timezone: 'Europe/Paris' } });
    const named = await api.postJson(`${coursePath()}/config`, { name: 'course_name', entry: 'Renamed course' }, H('instructor'));
    expect(named.json.status, named.text).toBe('success');
    const listed = await api.get('/courses', H('student'));
    expect(JSON.stringify(listed.json.data)).toContain('Renamed course');

    for (const [body, message] of [
      [{ entry: '1' }, 'Name of config value not provided'],
      [{ name: 'default_student_late_days' }, 'Name of config entry not provided'],
      [{ name: 'no_such_setting', entry: '1' }, 'Not a valid config name'],
      [{ name: 'default_student_late_days', entry: 'many' }, 'Must enter a number for this field'],
      [{ name: 'default_student_late_days', entry: '100000' }, 'Value must be less than or equal to 1000'],
      [
        { name: 'timezone', entry: 'Mars/Olympus' },
        'timezone must be an IANA time zone such as America/New_York; Mars/Olympus is not one.',
      ],
    ] as const) {
      const refused = await api.postJson(`${coursePath()}/config`, body, H('instructor'));
      expect(refused.json, JSON.stringify(body)).toMatchObject({ status: 'fail', message });
    }
    expect((await api.get(`${coursePath()}/config`, H('instructor'))).json.data).toMatchObject({
      config: { default_student_late_days: 3, timezone: 'Europe/Paris', course_name: 'Renamed course' },
    });
    expect((await audit()).filter((entry) => entry.action === 'course.setting-changed').map((entry) => entry.target)).toEqual([
      'default_student_late_days',
      'timezone',
      'course_name',
    ]);
  });

  it('archiving takes the course out of its students’ lists; instructors and superusers may, others not', async () => {
    expect((await api.postJson(`${coursePath()}/config/archive`, {}, H('ta'))).httpStatus).toBe(403);
    expect((await api.postJson(`${coursePath()}/config/archive`, {}, H('faculty'))).httpStatus).toBe(403);
    const archived = await api.postJson(`${coursePath()}/config/archive`, {}, H('instructor'));
    expect(archived.json.data).toEqual({ message: 'Course archived successfully' });
    const studentList = (await api.get('/courses', H('student'))).json.data as { unarchived_courses: { title: string }[] };
    expect(studentList.unarchived_courses.map((course) => course.title)).not.toContain(world.course.course);
    const instructorList = (await api.get('/courses', H('instructor'))).json.data as { archived_courses: { title: string }[] };
    expect(instructorList.archived_courses.map((course) => course.title)).toContain(world.course.course);
    const unarchived = await api.postJson(`${coursePath()}/config/unarchive`, {}, H('superuser'));
    expect(unarchived.json.data).toEqual({ message: 'Course unarchived successfully' });
    expect((await api.get(`${coursePath()}/config`, H('instructor'))).json.data).toMatchObject({ config: { archived: false } });
  });
});
