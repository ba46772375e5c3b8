import { describe, expect, it } from 'vitest';
import { listCourses, type Enrollment } from '#shared/courses/course.ts';
import { listingsFrom, membersFrom } from '#shared/courses/members.ts';
import {
  decodeListingCopy,
  decodeMemberCopy,
  listingCopyOf,
  memberCopyOf,
  sourceUnchanged,
  storableCopy,
} from '#shared/data/enrollment-copies.ts';
import { enrollment as member } from '../support/enrollments.ts';

// Copies of profiles, courses and terms on enrollment items: what is stored, what is
// read back, and how the lists combine copied items with items read from the sources.

const enrollment = (userId: string, course = 'cs1', fields: Partial<Enrollment> = {}): Enrollment => member(userId, { course, ...fields });

describe('stored copies', () => {
  it('round-trip through their stored form, which carries the copy version', () => {
    const member = memberCopyOf({ givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.edu' });
    expect(storableCopy(member)).toEqual({ v: 1, givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.edu' });
    expect(decodeMemberCopy(storableCopy(member))).toEqual(member);
    const listing = listingCopyOf({ displayName: 'Intro', archived: true }, { name: 'Fall 2026', startDate: '2026-08-24' });
    expect(decodeListingCopy(storableCopy(listing))).toEqual({
      displayName: 'Intro',
      archived: true,
      termName: 'Fall 2026',
      termStart: '2026-08-24',
    });
  });

  it('are not used when absent or of another copy version', () => {
    expect(decodeMemberCopy(undefined)).toBeUndefined();
    expect(decodeMemberCopy({ givenName: 'Ada', familyName: 'L', email: 'a@x.edu' })).toBeUndefined();
    expect(decodeListingCopy({ v: 2, displayName: 'Intro', archived: false })).toBeUndefined();
  });

  it('keep only the profile fields the lists print', () => {
    const user = { userId: 'ada', givenName: 'Ada', familyName: 'L', email: 'a@x.edu', accessLevel: 'superuser' };
    expect(memberCopyOf(user)).toEqual({ givenName: 'Ada', familyName: 'L', email: 'a@x.edu' });
  });
});

describe('guards on filling copies', () => {
  it('check the source revision copied and that no change is in progress', () => {
    expect(sourceUnchanged({ tableName: 'Users', key: { userId: 'ada' }, rev: 3 }, true).ConditionCheck).toEqual({
      TableName: 'Users',
      Key: { userId: 'ada' },
      ConditionExpression: 'copyRev = :rev AND attribute_not_exists(copyPending)',
      ExpressionAttributeValues: { ':rev': 3 },
    });
    expect(sourceUnchanged({ tableName: 'Terms', key: { termId: 'f26' }, rev: 0 }, true).ConditionCheck?.ConditionExpression).toBe(
      'attribute_exists(#key) AND attribute_not_exists(copyRev) AND attribute_not_exists(copyPending)',
    );
  });
});

describe('members and listings from copies and sources', () => {
  it('takes the copied profile, else the one read, and leaves out members with neither', () => {
    const members = membersFrom(
      [
        { enrollment: enrollment('copied'), member: { givenName: 'Copy', familyName: 'C', email: 'c@x.edu' } },
        { enrollment: enrollment('old') },
        { enrollment: enrollment('ghost') },
      ],
      { old: { userId: 'old', givenName: 'Read', familyName: 'R', email: 'r@x.edu' } },
    );
    expect(members.map(({ person }) => [person.userId, person.givenName])).toEqual([
      ['copied', 'Copy'],
      ['old', 'Read'],
    ]);
  });

  it('lists copied and read courses alike, ordered and filtered on the copied archive flag and term start', () => {
    const listings = listingsFrom(
      [
        {
          enrollment: enrollment('ada', 'newer'),
          listing: { displayName: 'Newer', archived: false, termName: 'Spring', termStart: '2027-01-10' },
        },
        {
          enrollment: enrollment('ada', 'gone'),
          listing: { displayName: 'Gone', archived: true, termName: 'Fall', termStart: '2026-08-24' },
        },
        { enrollment: enrollment('ada', 'read') },
        { enrollment: enrollment('ada', 'missing') },
      ],
      {
        'course:f26/read': { term: 'f26', course: 'read', displayName: 'Read', archived: false, timeZone: 'UTC', accessGroup: 'g' },
        'term:f26': { termId: 'f26', name: 'Fall 2026', startDate: '2026-08-24', endDate: '2026-12-20' },
      },
    );
    expect(listCourses(listings)).toEqual({
      unarchived_courses: [
        { semester: 'f26', title: 'newer', display_name: 'Newer', display_semester: 'Spring', user_group: 4, registration_section: '1' },
        { semester: 'f26', title: 'read', display_name: 'Read', display_semester: 'Fall 2026', user_group: 4, registration_section: '1' },
      ],
      archived_courses: [],
    });
  });
});
