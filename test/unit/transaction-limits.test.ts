import { beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_UPLOADS_CONFIRMED } from '../../functions/submit-files/definition.ts';
import type { VersionSummary } from '#shared/data/submissions.ts';
import { deleteTeamItems, teamMembersItems } from '#shared/data/teams.ts';
import { MAX_TEAM_MEMBERS, MAX_TRANSACTION_ITEMS, VERSION_OWN_ITEMS, versionClaimsBudget } from '#shared/data/transaction-limits.ts';
import { versionSizeRefusal } from '#shared/submissions/limits.ts';
import { queueShare, queueShareItems } from '#shared/queue/shares.ts';

// What one transaction holds: a version with its team's copies and its uploads, a team change.

const gradeable = { term: 'f26', course: 'cs1', gradeableId: 'hw' };
// The item builders name their tables (any name will do here).
beforeEach(() => {
  for (const table of ['TEAMS', 'SUBMISSIONS', 'JOBS']) vi.stubEnv(`${table}_TABLE`, table.toLowerCase());
});

const largest = Array.from({ length: MAX_TEAM_MEMBERS }, (_, index) => `s${index}`);

describe('the budget of a version', () => {
  it('leaves room for the uploads a version confirms beside its team’s copies, none below zero', () => {
    expect(MAX_TEAM_MEMBERS).toBe(92);
    expect(versionClaimsBudget(0)).toBe(92);
    expect(versionClaimsBudget(40)).toBe(52);
    expect(versionClaimsBudget(MAX_TEAM_MEMBERS)).toBe(0);
    expect(versionClaimsBudget(100)).toBe(0);
    // A student's own version confirms as many uploads as the route takes.
    expect(MAX_UPLOADS_CONFIRMED).toBeLessThanOrEqual(versionClaimsBudget(0));
  });

  it('refuses a team version that would not fit, with the team’s limit; never a student’s own', () => {
    expect(versionSizeRefusal(undefined, MAX_UPLOADS_CONFIRMED)).toBeUndefined();
    expect(versionSizeRefusal(40, 52)).toBeUndefined();
    expect(versionSizeRefusal(40, 53)?.message).toBe('A version of a team of 40 members can confirm at most 52 uploads at once.');
    expect(versionSizeRefusal(MAX_TEAM_MEMBERS, 0)).toBeUndefined();
    expect(versionSizeRefusal(MAX_TEAM_MEMBERS, 1)?.message).toBe(
      'A version of a team of 92 members can confirm at most 0 uploads at once.',
    );
    expect(versionSizeRefusal(97, 0)?.message).toBe(
      'A version of a team of 97 members cannot be saved: a team that submits has at most 92 members.',
    );
  });

  it('counts the queue’s most items among a version’s own', () => {
    const queued: VersionSummary = {
      version: 1,
      submittedAt: '2026-09-01T00:00:00Z',
      submittedBy: 'bob',
      daysLate: 0,
      ticket: 101,
      state: 'queued',
    };
    const items = Object.values(queueShareItems(queueShare([queued], { userId: 'ann', inFlight: 0 }, new Set())));
    expect(items).toHaveLength(4);
    // The version, its job, an answer, the queue's, the gate.
    expect(VERSION_OWN_ITEMS).toBe(3 + items.length + 1);
  });
});

describe('a change of the largest team', () => {
  it('fits one transaction with its audit entry: formed, changed, deleted', () => {
    const change = { teamId: 't', members: largest, entryTeams: new Map(), removed: [], submission: undefined, shrunk: [] };
    expect(teamMembersItems(gradeable, { ...change, before: undefined }).length + 1).toBeLessThanOrEqual(MAX_TRANSACTION_ITEMS);
    expect(teamMembersItems(gradeable, { ...change, before: largest }).length + 1).toBeLessThanOrEqual(MAX_TRANSACTION_ITEMS);
    expect(deleteTeamItems(gradeable, { teamId: 't', members: largest }).length + 1).toBeLessThanOrEqual(MAX_TRANSACTION_ITEMS);
  });
});
