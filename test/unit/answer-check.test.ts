import { describe, expect, it } from 'vitest';
import { checkAnswer, routeOf } from '#infra/answer-check.ts';

const answer = (body: unknown, httpStatus = 200) => ({ httpStatus, contentType: 'application/json', body: JSON.stringify(body) });
const course = {
  semester: 'f26',
  title: 'sample',
  display_name: 'Sample',
  display_semester: 'Fall 2026',
  user_group: 1,
  registration_section: null,
};
const courses = { method: 'GET', path: '/api/courses' };

describe('routeOf', () => {
  it('finds the route by the route table’s paths, ignoring the query', () => {
    expect(routeOf('GET', '/api/f26/sample/users?page_size=2')).toEqual({
      name: 'course-users',
      routeKey: 'GET /api/{semester}/{course}/users',
    });
    expect(routeOf('DELETE', '/api/courses')).toBeUndefined();
  });
});

describe('checkAnswer', () => {
  it('passes a success whose data keeps its route’s schema', () => {
    expect(
      checkAnswer(courses, answer({ status: 'success', data: { unarchived_courses: [course], archived_courses: [] } })),
    ).toBeUndefined();
  });

  it('names the route, the path into the answer and the value found', () => {
    const data = { unarchived_courses: [{ ...course, user_group: 7 }], archived_courses: [], extra: true };
    expect(checkAnswer(courses, answer({ status: 'success', data }))).toEqual({
      route: 'GET /api/courses (list-courses)',
      problems: [
        'data.unarchived_courses[0].user_group: Invalid option: expected one of 1|2|3|4 (found 7)',
        'data: Unrecognized key: "extra" (found extra: true)',
      ],
    });
  });

  it('checks the envelope’s keys and their order', () => {
    const data = { unarchived_courses: [], archived_courses: [] };
    expect(checkAnswer(courses, answer({ data, status: 'success' }))?.problems).toEqual([
      "the envelope's keys are data, status, not status, data",
    ]);
    expect(checkAnswer(courses, answer({ status: 'error', message: 'x', code: 'OOPS' }))?.problems).toEqual([
      'code: not one of the error codes: "OOPS"',
    ]);
    expect(
      checkAnswer(courses, answer({ status: 'fail', data: [], message: "You don't have access to this endpoint." }))?.problems,
    ).toEqual(['data: present but empty: []']);
  });

  it('takes the fail messages the route declares, templates filled in, with their status', () => {
    const login = { method: 'POST', path: '/api/token' };
    expect(checkAnswer(login, answer({ status: 'fail', message: 'Could not login using that user id or password.' }))).toBeUndefined();
    expect(
      checkAnswer(login, answer({ status: 'fail', message: 'Too many failed logins for this user id. Try again in 12 seconds.' }, 429)),
    ).toBeUndefined();
    expect(
      checkAnswer(login, answer({ status: 'fail', message: 'Could not login using that user id or password.' }, 404))?.problems,
    ).toEqual(['HTTP 404 for "Could not login using that user id or password.", declared with 401']);
    expect(checkAnswer(login, answer({ status: 'fail', message: 'Gradeable does not exist' }))?.problems).toEqual([
      'message: not one the route declares: "Gradeable does not exist"',
    ]);
    expect(
      checkAnswer({ method: 'GET', path: '/api/nowhere' }, answer({ status: 'fail', message: 'Endpoint not found.' }, 404)),
    ).toBeUndefined();
  });

  it('leaves out answers without a body and the reference page', () => {
    expect(checkAnswer(courses, { httpStatus: 304, body: '' })).toBeUndefined();
    expect(
      checkAnswer({ method: 'GET', path: '/api/docs' }, { httpStatus: 200, contentType: 'text/html', body: '<html>' }),
    ).toBeUndefined();
  });

  it('holds a platform-facing route to its redirects and to HTML pages titled with a fail it declares, at its status', () => {
    const login = { method: 'GET', path: '/api/lti/login' };
    const page = (httpStatus: number, title: string) => ({
      httpStatus,
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><title>${title}</title>`,
    });
    expect(checkAnswer(login, { httpStatus: 302, body: '', location: 'https://lms.example.edu/auth' })).toBeUndefined();
    expect(checkAnswer(login, { httpStatus: 302, body: '', location: null })?.problems).toEqual([
      'a redirect (HTTP 302) without a Location',
    ]);
    expect(checkAnswer(login, { httpStatus: 303, body: '', location: 'https://x' })?.problems).toEqual([
      'the answer is undefined, not an HTML page (HTTP 303)',
    ]);
    expect(checkAnswer(login, page(400, 'An LTI login needs iss, login_hint and target_link_uri.'))).toBeUndefined();
    expect(checkAnswer(login, page(404, 'No LTI registration for the issuer https://a with client id b.'))).toBeUndefined();
    expect(checkAnswer(login, page(503, 'The service could not finish this request for a moment; try again.'))).toBeUndefined();
    expect(checkAnswer(login, page(404, 'An LTI login needs iss, login_hint and target_link_uri.'))?.problems).toEqual([
      'HTTP 404 for "An LTI login needs iss, login_hint and target_link_uri.", declared with 400',
    ]);
    expect(checkAnswer(login, page(400, 'Something else'))?.problems).toEqual([
      'the page\'s title is not a fail the route declares: "Something else"',
    ]);
    expect(checkAnswer(login, page(200, 'Launched'))?.problems).toEqual(['an HTML page with HTTP 200 from a route that answers none']);
    expect(checkAnswer(login, answer({ status: 'fail', message: 'Endpoint not found.' }, 404))?.problems).toEqual([
      'the answer is application/json, not an HTML page (HTTP 404)',
    ]);
  });
});
