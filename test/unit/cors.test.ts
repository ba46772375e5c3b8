import { describe, expect, it } from 'vitest';
import { apiCorsRules, bucketCorsRules, corsAnswer } from '#infra/cors.ts';
import { parseSetting } from '#shared/config.ts';

const api = apiCorsRules(['https://app.example.edu']);

describe('corsAnswer', () => {
  it('answers a preflight of an allowed origin and method with the rules, and of any other with nothing', () => {
    const preflight = corsAnswer(api, { method: 'OPTIONS', origin: 'https://app.example.edu', requestMethod: 'POST' });
    expect(preflight).toMatchObject({ kind: 'preflight', allowed: true });
    expect(preflight.kind === 'preflight' && preflight.headers['Access-Control-Allow-Origin']).toBe('https://app.example.edu');
    expect(corsAnswer(api, { method: 'OPTIONS', origin: 'https://evil.example', requestMethod: 'POST' })).toEqual({
      kind: 'preflight',
      allowed: false,
      headers: {},
    });
    expect(corsAnswer(api, { method: 'OPTIONS', origin: 'https://app.example.edu', requestMethod: 'TRACE' })).toMatchObject({
      allowed: false,
    });
  });

  it('is no CORS without origins, or for a request that names none', () => {
    expect(corsAnswer(apiCorsRules([]), { method: 'OPTIONS', origin: 'https://app.example.edu', requestMethod: 'POST' })).toEqual({
      kind: 'none',
    });
    expect(corsAnswer(api, { method: 'GET' })).toEqual({ kind: 'none' });
  });

  it('allows every origin with *, answering * without Vary', () => {
    const answer = corsAnswer(apiCorsRules(['*']), { method: 'GET', origin: 'https://any.example' });
    expect(answer).toEqual({
      kind: 'actual',
      headers: { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'preference-applied,retry-after,etag,link' },
    });
  });

  it('echoes the asked-for headers where any header is allowed (the bucket)', () => {
    const answer = corsAnswer(bucketCorsRules(['https://app.example.edu']), {
      method: 'OPTIONS',
      origin: 'https://app.example.edu',
      requestMethod: 'POST',
      requestHeaders: 'x-amz-meta-a, content-type',
    });
    expect(answer.kind === 'preflight' && answer.headers['Access-Control-Allow-Headers']).toBe('x-amz-meta-a, content-type');
  });
});

describe('CORS_ORIGINS', () => {
  it('takes a comma list of origins as the stack’s corsOrigins does, and refuses anything else', () => {
    expect(parseSetting('CORS_ORIGINS', undefined)).toEqual([]);
    expect(parseSetting('CORS_ORIGINS', ' http://localhost:5173, https://app.example.edu ,')).toEqual([
      'http://localhost:5173',
      'https://app.example.edu',
    ]);
    expect(() => parseSetting('CORS_ORIGINS', 'http://localhost:5173/app')).toThrow(
      'CORS_ORIGINS takes origins like https://app.example.edu (or *), not "http://localhost:5173/app"',
    );
  });
});
