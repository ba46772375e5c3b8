import { describe, expect, it } from 'vitest';
import { Refusal } from '#shared/errors.ts';
import { memberListRefusal, planTeamChange, type TeamChangeRequest, type TeamsRead } from '#shared/gradeables/teams.ts';

const request = (members: string[], teamId = 't1'): TeamChangeRequest => ({ gradeableId: 'hw', teamSizeMax: 3, teamId, members });
const read = (overrides: Partial<TeamsRead> = {}): TeamsRead => ({
  team: undefined,
  students: new Set(['a', 'b', 'c', 'd']),
  teamOf: new Map(),
  others: new Map(),
  ...overrides,
});
const message = (result: unknown) => (result instanceof Refusal ? result.message : result);

describe('a team member list', () => {
  it('is refused for a bad team id, no members, a member twice, or more members than the limit, in that order', () => {
    expect(memberListRefusal(request(['a'], 'a b'))?.message).toBe('A team id is 1 to 64 letters, digits, _ or -.');
    expect(memberListRefusal(request(['a'], 'x'.repeat(65)))?.message).toBe('A team id is 1 to 64 letters, digits, _ or -.');
    expect(memberListRefusal(request([]))?.message).toBe('A team needs at least one member: delete the team instead.');
    expect(memberListRefusal(request(['a', 'b', 'a', 'c', 'd']))?.message).toBe('a is listed twice.');
    expect(memberListRefusal(request(['a', 'b', 'c', 'd']))?.message).toBe('Teams of hw have at most 3 members.');
    expect(memberListRefusal(request(['a', 'b', 'c']))).toBeUndefined();
  });
});

describe('a team change', () => {
  it('creates a team of students on no team', () => {
    expect(planTeamChange(request(['a', 'b']), read())).toEqual({ members: ['a', 'b'], removed: [], shrunk: new Map() });
  });

  it('refuses anyone who is not a student of the course', () => {
    expect(message(planTeamChange(request(['a', 'ta']), read()))).toBe('ta is not a student of this course.');
  });

  it('removes members from a team without submissions, never from one with submissions', () => {
    const team = { members: ['a', 'b', 'c'], hasSubmission: false };
    const teamOf = new Map([
      ['a', 't1'],
      ['b', 't1'],
      ['c', 't1'],
    ]);
    expect(planTeamChange(request(['a']), read({ team, teamOf }))).toMatchObject({ members: ['a'], removed: ['b', 'c'] });
    expect(message(planTeamChange(request(['a', 'c']), read({ team: { ...team, hasSubmission: true }, teamOf })))).toBe(
      'Team t1 has submissions: removing b would take them away from them.',
    );
    // Adding to a team with submissions takes nothing away.
    expect(planTeamChange(request(['a', 'b', 'c']), read({ team: { ...team, hasSubmission: true }, teamOf }))).toMatchObject({
      removed: [],
    });
  });

  it('moves students from teams without submissions (a team left empty has no one remaining), never from one with submissions', () => {
    const teamOf = new Map([
      ['b', 't2'],
      ['c', 't3'],
    ]);
    const others = new Map([
      ['t2', { members: ['b', 'd'], hasSubmission: false }],
      ['t3', { members: ['c'], hasSubmission: false }],
    ]);
    expect(planTeamChange(request(['a', 'b', 'c']), read({ teamOf, others }))).toEqual({
      members: ['a', 'b', 'c'],
      removed: [],
      shrunk: new Map([
        ['t2', ['d']],
        ['t3', []],
      ]),
    });
    const withSubmission = new Map([...others, ['t2', { members: ['b', 'd'], hasSubmission: true }]]);
    expect(message(planTeamChange(request(['a', 'b']), read({ teamOf, others: withSubmission })))).toBe(
      "b is on team t2, which has submissions: moving them would merge two teams' submissions.",
    );
  });

  it('makes a new team only when asked to create one: it neither changes a team nor moves a student', () => {
    const create = (members: string[]) => ({ ...request(members), createOnly: true });
    expect(planTeamChange(create(['a', 'b']), read())).toEqual({ members: ['a', 'b'], removed: [], shrunk: new Map() });
    expect(message(planTeamChange(create(['a']), read({ team: { members: ['a'], hasSubmission: false } })))).toBe(
      'The team t1 exists already.',
    );
    const others = new Map([['t2', { members: ['b'], hasSubmission: false }]]);
    expect(message(planTeamChange(create(['a', 'b']), read({ teamOf: new Map([['b', 't2']]), others })))).toBe(
      'b is on another team (t2).',
    );
  });
});
