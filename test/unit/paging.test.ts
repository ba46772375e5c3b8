import { describe, expect, it } from 'vitest';
import { nextPageUrl, paged, WithHeaders, wholeOrPaged } from '#shared/http/paging.ts';
import { encodeCursor, pageOf, readPageRequest, takeWithin } from '#shared/paging.ts';
import { attemptsOrder } from '#shared/submissions/submission.ts';

const numbers = Array.from({ length: 10 }, (_, index) => index + 1);
const order = { position: (n: number) => [String(n)], compare: (n: number, [p = '']: readonly string[]) => n - Number(p) };
const options = { list: 'test list', defaultSize: 4, keys: 1 };

describe('paging (shared/paging.ts)', () => {
  it('follows cursors to every item exactly once', () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = pageOf(numbers, readPageRequest(cursor === undefined ? {} : { cursor }, options), order);
      seen.push(...page.items);
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(numbers);
  });

  it('refuses sizes and cursors it did not give out, naming the field and the list', () => {
    for (const size of ['0', '501', '-1', '1.5', 'x', '99999'])
      expect(() => readPageRequest({ page_size: size }, options)).toThrow('The page_size must be a whole number from 1 to 500.');
    expect(() => readPageRequest({ limit: '0' }, options)).toThrow('The limit must be a whole number from 1 to 500.');
    for (const cursor of ['!', 'e30', encodeCursor(['a', 'b']), 'x'.repeat(401), Buffer.from('[1]').toString('base64url')])
      expect(() => readPageRequest({ cursor }, options)).toThrow('The cursor is not one this test list gave out.');
    expect(() => readPageRequest({ cursor: encodeCursor(['x']) }, { ...options, accepts: ([p = '']) => /^\d+$/.test(p) })).toThrow(
      'The cursor is not one this test list gave out.',
    );
  });

  it('ends a page early once its JSON reaches the byte budget, taking at least one item', () => {
    const big = ['a'.repeat(100), 'b'.repeat(100), 'c'.repeat(100)];
    expect(takeWithin(big, 150)).toEqual([big[0]]);
    expect(takeWithin(big, 10)).toEqual([big[0]]);
    expect(takeWithin(big, 10_000)).toEqual(big);
    const page = pageOf(big, { size: 10, after: undefined }, { position: (s) => [s], compare: (s, [p = '']) => s.localeCompare(p) }, 250);
    expect(page.items).toHaveLength(2);
    expect(page.next).not.toBeNull();
  });

  it('pages a submission’s versions newest first by version number', () => {
    const attempts = [5, 4, 3, 2, 1].map((version) => ({ version }));
    const first = pageOf(attempts, readPageRequest({ page_size: '2' }, { ...attemptsOrder, defaultSize: 100 }), attemptsOrder);
    expect(first.items.map((a) => a.version)).toEqual([5, 4]);
    const second = pageOf(
      attempts,
      readPageRequest({ page_size: '2', cursor: first.next ?? '' }, { ...attemptsOrder, defaultSize: 100 }),
      attemptsOrder,
    );
    expect(second.items.map((a) => a.version)).toEqual([3, 2]);
  });
});

describe('paged answers (shared/http/paging.ts)', () => {
  const event = { rawPath: '/prod/api/f26/sample/users', rawQueryString: 'page_size=2&cursor=old&x=%20y' };

  it('links the next page by the request’s own path and query, the cursor replaced', () => {
    expect(nextPageUrl(event, 'abc')).toBe('/prod/api/f26/sample/users?page_size=2&cursor=abc&x=+y');
    expect(paged(event, [1], null)).toEqual([1]);
    const answer = paged(event, [1], 'abc');
    expect(answer).toBeInstanceOf(WithHeaders);
    expect((answer as WithHeaders).headers).toEqual({ Link: '</prod/api/f26/sample/users?page_size=2&cursor=abc&x=+y>; rel="next"' });
  });

  it('answers a list whole unless a page is asked for', () => {
    const whole = { url: { rawPath: '/api/x', rawQueryString: '' }, query: {} };
    expect(wholeOrPaged(whole, numbers, { ...order, list: 'test list', keys: 1 })).toEqual(numbers);
    const first = wholeOrPaged({ ...whole, query: { page_size: '3' } }, numbers, { ...order, list: 'test list', keys: 1 });
    expect(first).toBeInstanceOf(WithHeaders);
    expect((first as WithHeaders).data).toEqual([1, 2, 3]);
  });
});
