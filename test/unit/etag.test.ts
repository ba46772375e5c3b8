import { describe, expect, it } from 'vitest';
import { conditionalAnswer, noneMatchHits, strongEtag } from '#shared/http/etag.ts';

const answer = (body: string) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Preference-Applied': 'http-status' },
  body,
});

describe('ETags', () => {
  it('are strong validators of the body: equal bodies, equal tags; any change, another tag', () => {
    expect(strongEtag('{"status":"success","data":1}')).toBe(strongEtag('{"status":"success","data":1}'));
    expect(strongEtag('{"status":"success","data":1}')).not.toBe(strongEtag('{"status":"success","data":2}'));
    expect(strongEtag('x')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  });

  it('match If-None-Match lists, weak forms and *', () => {
    const tag = strongEtag('x');
    expect(noneMatchHits(tag, tag)).toBe(true);
    expect(noneMatchHits(`"other", ${tag}`, tag)).toBe(true);
    expect(noneMatchHits(`W/${tag}`, tag)).toBe(true);
    expect(noneMatchHits('*', tag)).toBe(true);
    expect(noneMatchHits('"other"', tag)).toBe(false);
    expect(noneMatchHits(tag.slice(1, -1), tag)).toBe(false);
    expect(noneMatchHits(undefined, tag)).toBe(false);
  });

  it('turn a matching request into 304 without a body, keeping the other headers; others get the tag', () => {
    const body = '{"status":"success","data":{"is_queued":false}}';
    const tagged = conditionalAnswer(answer(body), undefined);
    expect(tagged).toEqual({ ...answer(body), headers: { ...answer(body).headers, ETag: strongEtag(body) } });
    expect(conditionalAnswer(answer(body), '"stale"')).toEqual(tagged);
    expect(conditionalAnswer(answer(body), strongEtag(body))).toEqual({
      statusCode: 304,
      headers: { 'Cache-Control': 'no-store', 'Preference-Applied': 'http-status', ETag: strongEtag(body) },
    });
  });

  it('leave anything but a 200 alone', () => {
    const failed = { statusCode: 404, headers: {}, body: '{"status":"fail","message":"Gradeable does not exist"}' };
    expect(conditionalAnswer(failed, '*')).toBe(failed);
  });
});
