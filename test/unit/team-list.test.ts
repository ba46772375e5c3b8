import { describe, expect, it } from 'vitest';
import { MAX_TEAM_LIST_TEAMS, readTeamList } from '#shared/gradeables/team-list.ts';

describe('a team list', () => {
  it('gathers each team’s members in row order, teams in the order they first appear, columns in any order', () => {
    const list = readTeamList('\uFEFFuser_id,team_id\r\ns1,b\r\ns2,a\r\n\r\ns3,b\r\n');
    expect(list).toEqual({
      teams: [
        { teamId: 'b', members: ['s1', 's3'], lines: [2, 5] },
        { teamId: 'a', members: ['s2'], lines: [3] },
      ],
      rejected: [],
    });
  });

  it('rejects bad rows by line and keeps the rest; a student listed twice counts on the first row’s team', () => {
    const list = readTeamList(['team_id,user_id', 't1,s1', 't 1,s2', 't2,=cmd()', 't2,s1', 't2', 't2,s3'].join('\n'));
    expect(list.teams).toEqual([
      { teamId: 't1', members: ['s1'], lines: [2] },
      { teamId: 't2', members: ['s3'], lines: [7] },
    ]);
    expect(list.rejected).toEqual([
      { line: 3, reason: 'Invalid team id "t 1": 1 to 64 letters, digits, _ or -.' },
      { line: 4, reason: 'Invalid user id "=cmd()".' },
      { line: 5, reason: 'User s1 appears more than once; the first row counts.' },
      { line: 6, reason: 'Expected 2 fields, found 1.' },
    ]);
  });

  it(`is refused as a whole without its columns, or with more than ${MAX_TEAM_LIST_TEAMS} teams`, () => {
    expect(() => readTeamList('')).toThrow('The team list header lacks the column(s) team_id, user_id.');
    expect(() => readTeamList('team,user_id\nt,s')).toThrow('The team list header lacks the column(s) team_id.');
    const many = ['team_id,user_id', ...Array.from({ length: MAX_TEAM_LIST_TEAMS + 1 }, (_, team) => `t${team},s${team}`)].join('\n');
    expect(() => readTeamList(many)).toThrow(`The team list has more than ${MAX_TEAM_LIST_TEAMS} teams; split it.`);
    const enough = ['team_id,user_id', ...Array.from({ length: MAX_TEAM_LIST_TEAMS }, (_, team) => `t${team},s${team}`)].join('\n');
    expect(readTeamList(enough).teams).toHaveLength(MAX_TEAM_LIST_TEAMS);
  });
});
