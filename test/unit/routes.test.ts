import { describe, expect, it } from 'vitest';
import { matchRoute, routeKeys, routes } from '#functions/definitions.ts';
import { existsSync } from 'node:fs';

describe('route table', () => {
  it('names an existing handler module for every route', () => {
    for (const name of Object.keys(routes)) expect(existsSync(`functions/${name}/handler.ts`), name).toBe(true);
  });

  it('has no two routes with the same method and path', () => {
    const keys = routeKeys.map((key) => `${key.method} ${key.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('matchRoute', () => {
  it('matches by method and path', () => {
    expect(matchRoute('POST', '/api/token')).toMatchObject({ kind: 'route', name: 'issue-token' });
    expect(matchRoute('GET', '/api/token')).toMatchObject({ kind: 'route', name: 'token-info', routeKey: 'GET /api/token' });
    expect(matchRoute('post', '/api/token/invalidate')).toMatchObject({ kind: 'route', name: 'invalidate-token' });
  });

  it('matches HEAD to the GET route of its path, under a route key of its own', () => {
    expect(matchRoute('HEAD', '/api/me')).toMatchObject({ kind: 'route', name: 'me', routeKey: 'HEAD /api/me' });
    expect(matchRoute('HEAD', '/api/f26/sample/hw1/download')).toMatchObject({
      kind: 'route',
      name: 'download-gradeable',
      routeKey: 'HEAD /api/{semester}/{course}/{gradeable_id}/download',
    });
  });

  it('tells a known path with the wrong method from an unknown path', () => {
    expect(matchRoute('DELETE', '/api/token')).toEqual({ kind: 'method-not-allowed', allowed: ['POST', 'GET', 'HEAD'] });
    expect(matchRoute('HEAD', '/api/token/invalidate')).toEqual({ kind: 'method-not-allowed', allowed: ['POST'] });
    expect(matchRoute('GET', '/api/nothing')).toEqual({ kind: 'not-found' });
    expect(matchRoute('GET', '/api/me/')).toEqual({ kind: 'not-found' });
    expect(matchRoute('GET', '/')).toEqual({ kind: 'not-found' });
  });

  it('treats hostile segments as not found', () => {
    for (const path of ['/api/%E0%A4%A', '/api//me', '/api/../api/me', '/api/me%00']) {
      expect(matchRoute('GET', path), path).toEqual({ kind: 'not-found' });
    }
  });
});
