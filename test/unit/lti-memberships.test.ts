import { describe, expect, it } from 'vitest';
import {
  bindingKey,
  identifyMembers,
  membersOfPage,
  nextPageUrl,
  rosterClassList,
  type RosterEntry,
  type RosterMember,
} from '#shared/lti/memberships.ts';

const MEMBERSHIP = 'http://purl.imsglobal.org/vocab/lis/v2/membership';
const page = new URL('https://lms.example.edu/api/lti/courses/7/names_and_roles?limit=2');
const registration = {
  issuer: 'https://lms.example.edu',
  userIdClaim: 'email',
  userIdSuffix: '@example.edu',
  createUsers: true,
};
const member = (userId: string, fields: Partial<RosterMember> = {}): RosterMember => ({
  user_id: `lms-${userId}`,
  roles: [`${MEMBERSHIP}#Learner`],
  status: 'Active',
  name: 'Ada Lovelace',
  email: `${userId}@example.edu`,
  email_verified: true,
  ...fields,
});
const entries = (...members: RosterMember[]): RosterEntry[] =>
  members.map((one, index) => ({ line: index + 1, member: one, section: '7', registration }));

describe('NRPS paging', () => {
  it("follows rel=next among a Link header's links, relative ones against the page, and stops without one", () => {
    expect(nextPageUrl(undefined, page)).toBeUndefined();
    expect(nextPageUrl('<https://lms.example.edu/p?page=1>; rel="first"', page)).toBeUndefined();
    const next = nextPageUrl(
      '<https://lms.example.edu/p?page=1>; rel="first", <https://lms.example.edu/p?page=2&x=a,b>; rel="next", <https://lms.example.edu/p?page=9>; rel="last"',
      page,
    );
    expect(next).toEqual(new URL('https://lms.example.edu/p?page=2&x=a,b'));
    expect(nextPageUrl('</api/lti/courses/7/names_and_roles?page=2>; rel=next', page)).toEqual(
      new URL('https://lms.example.edu/api/lti/courses/7/names_and_roles?page=2'),
    );
    expect(nextPageUrl('<https://lms.example.edu/p?page=3>; title="x"; rel="prev next"', page)).toEqual(
      new URL('https://lms.example.edu/p?page=3'),
    );
  });

  it('refuses a next page on another origin: another host, port or scheme', () => {
    for (const target of ['https://evil.example/p', 'https://lms.example.edu:8443/p', 'http://lms.example.edu/p', '//evil.example/p']) {
      expect(nextPageUrl(`<${target}>; rel="next"`, page)).toMatch(/^a next page on another origin/);
    }
  });

  it('reads the members of a page, skipping entries without a user id, and says what a page that is none is', () => {
    const read = membersOfPage(
      JSON.stringify({
        id: page.href,
        members: [
          { user_id: 'u1', roles: ['Learner', 7], email: 'a@x.edu', status: 'Inactive' },
          { roles: ['Learner'] },
          'junk',
          {
            user_id: 'u2',
            message: [{ 'https://purl.imsglobal.org/spec/lti/claim/custom': { user_username: 'ada' } }],
          },
        ],
      }),
    );
    expect(read).toEqual({
      skipped: 2,
      members: [
        { user_id: 'u1', roles: ['Learner'], status: 'Inactive', email: 'a@x.edu' },
        { user_id: 'u2', roles: [], status: 'Active', custom: { user_username: 'ada' } },
      ],
    });
    expect(membersOfPage('<html>')).toBe('something other than JSON');
    expect(membersOfPage('{"id":"x"}')).toBe('a page without a members list');
  });
});

describe('NRPS members', () => {
  it("knows a member by their binding first, else by the registration's rule, and maps roles as a launch does", () => {
    const roster = identifyMembers(
      entries(
        member('ada', { email: 'changed@example.edu' }),
        member('bob', { roles: [`${MEMBERSHIP}/Instructor#TeachingAssistant`, `${MEMBERSHIP}#Learner`] }),
        member('cy', { roles: ['Instructor'] }),
      ),
      new Map([[bindingKey(registration.issuer, 'lms-ada'), 'ada']]),
    );
    expect(roster.members.map(({ userId, group }) => [userId, group])).toEqual([
      ['ada', 4],
      ['bob', 2],
      ['cy', 1],
    ]);
    expect(roster.rejected).toEqual([]);
  });

  it('leaves out Inactive and Deleted members, names no one by an address not marked verified, and refuses duplicates and role-less members', () => {
    const roster = identifyMembers(
      entries(
        member('gone', { status: 'Inactive' }),
        member('del', { status: 'Deleted' }),
        member('unverified', { email_verified: 'true' }),
        member('twin'),
        member('twin2', { email: 'twin@example.edu' }),
        member('mentor', { roles: [`${MEMBERSHIP}#Mentor`] }),
      ),
      new Map(),
    );
    expect(roster.members).toEqual([]);
    expect(roster.rejected).toEqual([
      { line: 3, reason: 'LMS user lms-unverified is bound to no user here and has no verified email.' },
      { line: 6, reason: 'LMS user lms-mentor (mentor) has no LMS role that is a course role here; left as is.' },
      { line: 4, reason: 'Several LMS users (lines 4, 5) are twin here; none is taken until one is.' },
      { line: 5, reason: 'Several LMS users (lines 4, 5) are twin here; none is taken until one is.' },
    ]);
    // The role-less and the duplicated are named: a drop of students missing from the roster spares them.
    expect([...roster.named].sort()).toEqual(['mentor', 'twin']);
  });

  it("gives students the link's section and staff none, and creates accounts only where the registration does and the roster names them", () => {
    const roster = identifyMembers(entries(member('ada'), member('bob', { roles: ['Instructor'] }), member('cy', { name: '' })), new Map());
    const list = rosterClassList(roster, new Set(['bob']));
    expect(
      list.rows.map(({ userId, givenName, familyName, registrationSection, group }) => [
        userId,
        givenName,
        familyName,
        registrationSection,
        group,
      ]),
    ).toEqual([
      ['ada', 'Ada', 'Lovelace', '7', 4],
      ['bob', 'Ada', 'Lovelace', null, 1],
    ]);
    expect(list.rejected).toEqual([
      { line: 3, reason: 'No account here for cy, and the roster does not give its name and e-mail address.' },
    ]);
    const noAccounts = entries(member('ada')).map((entry) => ({ ...entry, registration: { ...registration, createUsers: false } }));
    expect(rosterClassList(identifyMembers(noAccounts, new Map()), new Set()).rejected).toEqual([
      { line: 1, reason: "No account here for ada; this platform's registration does not create accounts." },
    ]);
  });
});
