import { describe, expect, it } from 'vitest';
import { listingCopyOf, memberCopyOf } from '#shared/data/enrollment-copies.ts';
import { staleCopies, type CopySources } from '#shared/data/settle-copies.ts';

const profile = { userId: 'ada', givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.edu', accessLevel: 'user' };
const term = { termId: 'f26', name: 'Fall 2026', startDate: '2026-08-24', endDate: '2026-12-20' };
const course = { term: 'f26', course: 'cs1', displayName: 'Intro', archived: false, timeZone: 'UTC', accessGroup: 'g' };
const written = {
  enrollment: { term: 'f26', course: 'cs1', userId: 'ada' },
  copies: { member: memberCopyOf(profile), listing: listingCopyOf(course, term) },
};
const sources = (changes: { user?: object; term?: object; course?: object } = {}): CopySources => ({
  users: new Map([['ada', { ...profile, ...changes.user }]]),
  terms: new Map([['f26', { ...term, ...changes.term }]]),
  courses: new Map([['f26/cs1', { ...course, ...changes.course }]]),
});
const attributes = (from: CopySources) => staleCopies([written], from).map((stale) => stale.attribute);

describe('settling copies written from sources read before', () => {
  it('keeps copies their sources still bear out, whatever else the sources hold', () => {
    expect(attributes(sources({ user: { copyRev: 3, accessLevel: 'faculty' }, course: { summaries: {} } }))).toEqual([]);
  });

  it('removes a copy whose source changed, has a change in progress, or is gone', () => {
    expect(attributes(sources({ user: { givenName: 'Augusta' } }))).toEqual(['memberCopy']);
    expect(attributes(sources({ term: { name: 'Autumn 2026' } }))).toEqual(['listingCopy']);
    expect(attributes(sources({ course: { archived: true } }))).toEqual(['listingCopy']);
    expect(attributes(sources({ user: { copyPending: 'token' }, course: { copyPending: 'token' } }))).toEqual([
      'memberCopy',
      'listingCopy',
    ]);
    expect(attributes({ users: new Map(), terms: new Map(), courses: new Map() })).toEqual(['memberCopy', 'listingCopy']);
  });

  it('looks only at the copies an enrollment was written with', () => {
    const withoutCopies = { ...written, copies: {} };
    expect(staleCopies([withoutCopies], sources({ user: { givenName: 'Augusta' } }))).toEqual([]);
  });
});
