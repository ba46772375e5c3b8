/**
 * Forming teams of a team gradeable: what setting a team's members changes, as a pure function of
 * what was read, or the refusal. Submissions belong to the team, so a change never takes a team's
 * submissions away from one of its members, nor moves a student whose team has submissions (which
 * would merge two teams' submissions); students move freely between teams without submissions.
 */
import { auditEntry } from '#shared/data/audit.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems, type ItemRef } from '#shared/data/items.ts';
import { submissionRef, type Submission } from '#shared/data/submissions.ts';
import {
  deleteTeamItems,
  teamMembershipRef,
  teamMembersItems,
  teamRef,
  teamsOfGradeableList,
  type TeamSubmissionState,
} from '#shared/data/teams.ts';
import { MAX_TEAM_MEMBERS, MAX_TRANSACTION_ITEMS } from '#shared/data/transaction-limits.ts';
import { failedConditions, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import { Refusal } from '#shared/errors.ts';
import type { GradeableDocument } from './gradeable.ts';
import { gradeableNotFound } from './failures.ts';
import { isValidTeamId, isValidUserId } from '#shared/ids.ts';
import { courseGroups, courseId, isActiveMember, type Course } from '#shared/courses/course.ts';
import {
  badTeamId,
  noTeamMembers,
  notAStudent,
  notTeamGradeable,
  teamChangedMeanwhile,
  teamHasSubmissions,
  teamMemberTwice,
  teamNotFound,
  teamSubmissionsMerged,
  teamSubmissionsTakenAway,
  teamTooBig,
  tooManyTeamChanges,
} from '#shared/courses/failures.ts';

/** A team as read: its members and whether anything was submitted for it. */
export interface TeamState {
  readonly members: readonly string[];
  readonly hasSubmission: boolean;
}

export interface TeamChangeRequest {
  readonly gradeableId: string;
  readonly teamSizeMax: number;
  readonly teamId: string;
  /** The members asked for, in the request's order. */
  readonly members: readonly string[];
  /** A new team only: refused when the team exists or a member is on another team (nobody moves). */
  readonly createOnly?: boolean;
}

/** What was read for a request: the team (absent: to be created), who of the requested members are students, their teams and those teams. */
export interface TeamsRead {
  readonly team: TeamState | undefined;
  readonly students: ReadonlySet<string>;
  /** user id → team id, for the requested members who are on a team. */
  readonly teamOf: ReadonlyMap<string, string>;
  /** The other teams the requested members are on. */
  readonly others: ReadonlyMap<string, TeamState>;
}

export interface TeamChange {
  readonly members: readonly string[];
  /** Members who leave the team (it has no submission). */
  readonly removed: readonly string[];
  /** Other teams that lose members to this one: their remaining members (none: the team is deleted). */
  readonly shrunk: ReadonlyMap<string, readonly string[]>;
}

/** The first problem of a team id and member list alone, in the order they are checked. */
export function memberListRefusal(request: TeamChangeRequest): Refusal | undefined {
  if (!isValidTeamId(request.teamId)) return badTeamId();
  if (request.members.length === 0) return noTeamMembers();
  const seen = new Set<string>();
  for (const userId of request.members) {
    if (seen.has(userId)) return teamMemberTwice({ user_id: userId });
    seen.add(userId);
  }
  if (request.members.length > request.teamSizeMax) {
    return teamTooBig({ gradeable_id: request.gradeableId, team_size_max: request.teamSizeMax });
  }
  return undefined;
}

/** What setting the team's members changes, or why it is refused. */
export function planTeamChange(request: TeamChangeRequest, read: TeamsRead): TeamChange | Refusal {
  const refusal = memberListRefusal(request);
  if (refusal) return refusal;
  const stranger = request.members.find((userId) => !read.students.has(userId));
  if (stranger !== undefined) return notAStudent({ user_id: stranger });
  if (request.createOnly) {
    // Only the admin command line creates this way; no route answers these, so the API's catalogue of fails has neither.
    if (read.team) return new Refusal('conflict', `The team ${request.teamId} exists already.`);
    const taken = request.members.find((userId) => read.teamOf.has(userId));
    if (taken !== undefined) return new Refusal('conflict', `${taken} is on another team (${read.teamOf.get(taken) ?? ''}).`);
  }
  const wanted = new Set(request.members);
  const removed = (read.team?.members ?? []).filter((userId) => !wanted.has(userId));
  const leaving = removed[0];
  if (read.team?.hasSubmission && leaving !== undefined) return teamSubmissionsTakenAway({ team_id: request.teamId, user_id: leaving });
  const shrunk = new Map<string, string[]>();
  for (const userId of request.members) {
    const otherId = read.teamOf.get(userId);
    if (otherId === undefined || otherId === request.teamId) continue;
    const other = read.others.get(otherId);
    if (!other) throw new Error(`The team ${otherId} of ${userId} was not read`);
    if (other.hasSubmission) return teamSubmissionsMerged({ user_id: userId, other_team_id: otherId });
    if (!shrunk.has(otherId))
      shrunk.set(
        otherId,
        other.members.filter((member) => !wanted.has(member)),
      );
  }
  return { members: [...request.members], removed, shrunk };
}

/** Teams as lists show them: by team id. */
export const teamOrder = {
  keys: 1,
  position: (team: { readonly team_id: string }) => [team.team_id],
  compare: (team: { readonly team_id: string }, [teamId = '']: readonly string[]) =>
    team.team_id < teamId ? -1 : team.team_id > teamId ? 1 : 0,
};

/** A team as the API shows it. */
export interface TeamRecord {
  readonly team_id: string;
  readonly members: readonly string[];
}

/** Tries of a change whose conditions failed (another change of the same teams meanwhile), each on a fresh read. */
const ATTEMPTS = 5;

/** The team gradeable a path names, or the refusal: none, or not a team gradeable. */
export function teamGradeable(gradeable: GradeableDocument | undefined, gradeableId: string): { teamSizeMax: number } {
  if (!gradeable) throw gradeableNotFound();
  if (!gradeable.team_gradeable) throw notTeamGradeable({ gradeable_id: gradeableId });
  // A gradeable stored before its teams were bounded by what a version's transaction holds: bounded now.
  return { teamSizeMax: Math.min(gradeable.team_gradeable.team_size_max, MAX_TEAM_MEMBERS) };
}

/** Every team of a team gradeable with its members, by team id. */
export async function listTeams(course: Course, gradeable: GradeableDocument | undefined, gradeableId: string): Promise<TeamRecord[]> {
  teamGradeable(gradeable, gradeableId);
  const teams = await teamsOfGradeableList(course.term, course.course, gradeableId);
  return teams.map(({ teamId, members }) => ({ team_id: teamId, members }));
}

const submissionState = (submission: Submission | undefined): TeamSubmissionState | undefined =>
  submission && {
    highestVersion: submission.highestVersion,
    activeVersion: submission.activeVersion,
    activeDaysLate: submission.versions[submission.activeVersion - 1]?.daysLate,
  };

/**
 * Sets a team's members (creating the team when it does not exist; with `createOnly`, only that),
 * in one transaction with its audit entry; a change that raced another is tried again on a fresh read.
 */
export async function setTeamMembers(
  course: Course,
  gradeable: GradeableDocument | undefined,
  request: { gradeableId: string; teamId: string; members: readonly string[]; actor: string; createOnly?: boolean },
): Promise<TeamRecord> {
  return (await changeTeam(course, gradeable, request)).team;
}

/** What a team change did (or, in a dry run, would do). */
export type TeamOutcome = 'created' | 'updated' | 'unchanged';

/**
 * setTeamMembers, saying whether the team was created, changed or left as it was. `dryRun`: only
 * read and plan; `skipUnchanged`: a team that already has exactly these members is not written
 * (no audit entry for nothing).
 */
export async function changeTeam(
  course: Course,
  gradeable: GradeableDocument | undefined,
  request: {
    gradeableId: string;
    teamId: string;
    members: readonly string[];
    actor: string;
    createOnly?: boolean;
    dryRun?: boolean;
    skipUnchanged?: boolean;
  },
): Promise<{ team: TeamRecord; outcome: TeamOutcome }> {
  const { teamSizeMax } = teamGradeable(gradeable, request.gradeableId);
  const asked: TeamChangeRequest = {
    gradeableId: request.gradeableId,
    teamSizeMax,
    teamId: request.teamId,
    members: request.members,
    ...(request.createOnly ? { createOnly: true } : {}),
  };
  const early = memberListRefusal(asked);
  if (early) throw early;
  const stranger = request.members.find((userId) => !isValidUserId(userId));
  if (stranger !== undefined) throw notAStudent({ user_id: stranger });
  const { term, course: code } = course;
  const where = { term, course: code, gradeableId: request.gradeableId };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const first = await getItems({
      team: teamRef(term, code, request.gradeableId, request.teamId),
      submission: submissionRef(term, code, request.gradeableId, request.teamId),
      ...Object.fromEntries(
        request.members.flatMap((userId) => [
          [`enrollment:${userId}`, enrollmentRef(term, code, userId)],
          [`membership:${userId}`, teamMembershipRef(term, code, request.gradeableId, userId)],
        ]),
      ),
    } as Record<string, ItemRef<unknown>>);
    const loaded = first as Record<string, unknown>;
    const team = first.team as { members: readonly string[] } | undefined;
    const submission = submissionState(first.submission as Submission | undefined);
    const students = new Set(
      request.members.filter((userId) => {
        const enrollment = loaded[`enrollment:${userId}`] as Parameters<typeof isActiveMember>[0] | undefined;
        return enrollment !== undefined && enrollment.group === courseGroups.student && isActiveMember(enrollment);
      }),
    );
    const teamOf = new Map<string, string>();
    for (const userId of request.members) {
      const membership = loaded[`membership:${userId}`] as { teamId: string } | undefined;
      if (membership) teamOf.set(userId, membership.teamId);
    }
    const otherIds = [...new Set([...teamOf.values()].filter((teamId) => teamId !== request.teamId))];
    const second = await getItems(
      Object.fromEntries(
        otherIds.flatMap((teamId) => [
          [`team:${teamId}`, teamRef(term, code, request.gradeableId, teamId)],
          [`submission:${teamId}`, submissionRef(term, code, request.gradeableId, teamId)],
        ]),
      ) as Record<string, ItemRef<unknown>>,
    );
    const others = new Map<string, TeamState>(
      otherIds.map((teamId) => [
        teamId,
        {
          members: (second[`team:${teamId}`] as { members: readonly string[] } | undefined)?.members ?? [],
          hasSubmission: second[`submission:${teamId}`] !== undefined,
        },
      ]),
    );
    const plan = planTeamChange(asked, {
      team: team && { members: team.members, hasSubmission: submission !== undefined },
      students,
      teamOf,
      others,
    });
    if (plan instanceof Refusal) throw plan;
    const record = { team_id: request.teamId, members: plan.members };
    const unchanged = team !== undefined && plan.removed.length === 0 && plan.members.length === team.members.length;
    const outcome: TeamOutcome = !team ? 'created' : unchanged ? 'unchanged' : 'updated';
    if (request.dryRun || (request.skipUnchanged && unchanged)) return { team: record, outcome };
    const shrunk = [...plan.shrunk].map(([teamId, remaining]) => ({ teamId, before: others.get(teamId)?.members ?? [], remaining }));
    const items: TransactItem[] = [
      ...teamMembersItems(where, {
        teamId: request.teamId,
        members: plan.members,
        before: team?.members,
        entryTeams: new Map(request.members.map((userId) => [userId, teamOf.get(userId)])),
        removed: plan.removed,
        submission,
        shrunk,
      }),
      auditEntry(
        { courseId: courseId(term, code) },
        {
          actor: request.actor,
          action: team ? 'team.members-set' : 'team.created',
          target: `${request.gradeableId}/${request.teamId}`,
          ...(team ? { before: { members: team.members } } : {}),
          after: { members: plan.members },
        },
      ),
      ...shrunk.map(({ teamId, before, remaining }) =>
        auditEntry(
          { courseId: courseId(term, code) },
          {
            actor: request.actor,
            action: remaining.length === 0 ? 'team.deleted' : 'team.members-set',
            target: `${request.gradeableId}/${teamId}`,
            before: { members: before },
            ...(remaining.length === 0 ? {} : { after: { members: remaining } }),
          },
        ),
      ),
    ];
    if (items.length > MAX_TRANSACTION_ITEMS) throw tooManyTeamChanges({ count: items.length, limit: MAX_TRANSACTION_ITEMS });
    try {
      await transactWrite(items);
      return { team: record, outcome };
    } catch (error) {
      if (failedConditions(error).length === 0) throw error;
    }
  }
  throw teamChangedMeanwhile();
}

/** Deletes a team with no submission, its members' entries and nothing else, with its audit entry. */
export async function deleteTeam(
  course: Course,
  gradeable: GradeableDocument | undefined,
  request: { gradeableId: string; teamId: string; actor: string },
): Promise<null> {
  teamGradeable(gradeable, request.gradeableId);
  const { term, course: code } = course;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const { team, submission } = await getItems({
      team: teamRef(term, code, request.gradeableId, request.teamId),
      submission: submissionRef(term, code, request.gradeableId, request.teamId),
    });
    if (!team) throw teamNotFound({ team_id: request.teamId });
    if (submission) throw teamHasSubmissions({ team_id: request.teamId });
    try {
      await transactWrite([
        ...deleteTeamItems({ term, course: code, gradeableId: request.gradeableId }, { teamId: request.teamId, members: team.members }),
        auditEntry(
          { courseId: courseId(term, code) },
          {
            actor: request.actor,
            action: 'team.deleted',
            target: `${request.gradeableId}/${request.teamId}`,
            before: { members: team.members },
          },
        ),
      ]);
      return null;
    } catch (error) {
      if (failedConditions(error).length === 0) throw error;
    }
  }
  throw teamChangedMeanwhile();
}
