import { describe, expect, it } from 'vitest';
import { routes, type RouteName } from '#functions/definitions.ts';
import { definition as taGrade } from '#functions/ta-grade/definition.ts';
import { failure } from '#shared/errors.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { parameterNamesOf, parsePath } from '#shared/http/request.ts';
import type { RouteDefinition } from '#shared/http/routes.ts';

const well = { semester: 'f26', course: 'sample', gradeable_id: 'hw1', user_id: 'student' };

describe('a request path read with its route', () => {
  it('gives every parameter of its kind to the view, and reports the first one that is not, as sent', () => {
    expect(parsePath(taGrade, well)).toEqual({ params: well });
    const long = 'x'.repeat(3000);
    expect(parsePath(taGrade, { ...well, user_id: long })).toEqual({
      params: { semester: 'f26', course: 'sample', gradeable_id: 'hw1' },
      malformed: { name: 'user_id', value: long },
    });
    expect(parsePath(taGrade, { ...well, gradeable_id: '../hw1', user_id: '' }).malformed).toEqual({
      name: 'gradeable_id',
      value: '../hw1',
    });
    expect(parsePath(taGrade, { ...well, course: 'Sample' }).malformed?.name).toBe('course');
    expect(parsePath(taGrade, { semester: 'f26', course: 'sample', gradeable_id: 'hw1' }).malformed).toEqual({
      name: 'user_id',
      value: '',
    });
  });

  it('knows every path parameter of every route, each by one schema for its name', () => {
    for (const name of Object.keys(routes) as RouteName[]) {
      const route: RouteDefinition = routes[name];
      for (const path of [route.path, ...(route.aliases ?? [])]) expect(parameterNamesOf(path), name).toEqual(parameterNamesOf(route.path));
      expect(() => parsePath(route, {}), name).not.toThrow();
      // The course check answers a malformed course: only a course route may name one.
      if (/\{(semester|course)\}/.test(route.path)) expect(route.access, name).toMatch(/^course:/);
    }
  });

  it('cannot leave out what a malformed parameter of its own answers', () => {
    // @ts-expect-error: ta-grade's gradeable_id and user_id each need an answer when malformed.
    endpoint(taGrade, { handle: () => null });
    // @ts-expect-error: and every one of them.
    endpoint(taGrade, { malformed: { gradeable_id: () => null }, handle: () => null });
    expect(endpoint(taGrade, { malformed: { gradeable_id: () => null, user_id: () => null }, handle: () => null })).toBeTypeOf('function');
  });
});

describe('a failure echoing what the caller sent', () => {
  it('shows at most the characters its declaration gives each echoed part, and every other part whole', () => {
    const echoing = failure('not-found', 'No {thing} among {known}.', { thing: 4 });
    expect(echoing({ thing: 'abcdefgh', known: 'a, b, c, d, e, f' }).message).toBe('No abcd among a, b, c, d, e, f.');
    expect(echoing.text({ thing: 'ab', known: 'x' })).toBe('No ab among x.');
  });
});
