/**
 * Teams in bulk: a team list (CSV, a row a member) read into teams, each set as setting its
 * members one by one would (changeTeam), with the class list's rules and answer shape.
 */
import { csvRecords, type RejectedRow } from '#shared/courses/class-list.ts';
import type { Course } from '#shared/courses/course.ts';
import { teamListHeader, teamListTooLong, teamListUnreadable } from '#shared/courses/failures.ts';
import { Refusal } from '#shared/errors.ts';
import { isValidTeamId } from '#shared/ids.ts';
import { isValidUserId } from '#shared/users/user.ts';
import type { GradeableDocument } from './gradeable.ts';
import { changeTeam, teamGradeable, type TeamOutcome } from './teams.ts';

export const TEAM_LIST_COLUMNS = ['team_id', 'user_id'] as const;

/**
 * The most teams one list may set: each is read, planned and written on its own (three round trips
 * at most), so a whole list stays well inside what one request may take.
 */
export const MAX_TEAM_LIST_TEAMS = 300;

export interface TeamListEntry {
  readonly teamId: string;
  /** In the order of the list's rows. */
  readonly members: readonly string[];
  /** The lines of its rows. */
  readonly lines: readonly number[];
}

export interface TeamList {
  /** In the order each first appears. */
  readonly teams: readonly TeamListEntry[];
  readonly rejected: readonly RejectedRow[];
}

/**
 * Pure. Reads a team list (`team_id, user_id` with a header row, columns in any order, a row a
 * member). Bad rows are rejected with their line and reason; a student listed twice counts on the
 * first row's team. A file that is not CSV, lacks a column or sets more than MAX_TEAM_LIST_TEAMS
 * teams is refused as a whole.
 */
export function readTeamList(text: string): TeamList {
  const [header, ...records] = csvRecords(text, (reason) => teamListUnreadable({ reason }));
  if (!header) throw teamListHeader({ columns: TEAM_LIST_COLUMNS.join(', ') });
  const names = header.fields.map((name) => name.trim().toLowerCase());
  const missing = TEAM_LIST_COLUMNS.filter((column) => !names.includes(column));
  if (missing.length > 0) throw teamListHeader({ columns: missing.join(', ') });
  const teams = new Map<string, { members: string[]; lines: number[] }>();
  const rejected: RejectedRow[] = [];
  const seen = new Set<string>();
  for (const { line, fields } of records) {
    const value = (column: (typeof TEAM_LIST_COLUMNS)[number]) => (fields[names.indexOf(column)] ?? '').trim();
    const [teamId, userId] = [value('team_id'), value('user_id')];
    const reject = (reason: string) => rejected.push({ line, reason });
    if (fields.length !== names.length) reject(`Expected ${names.length} fields, found ${fields.length}.`);
    else if (!isValidTeamId(teamId)) reject(`Invalid team id "${teamId.slice(0, 80)}": 1 to 64 letters, digits, _ or -.`);
    else if (!isValidUserId(userId)) reject(`Invalid user id "${userId.slice(0, 80)}".`);
    else if (seen.has(userId)) reject(`User ${userId} appears more than once; the first row counts.`);
    else {
      seen.add(userId);
      const team = teams.get(teamId) ?? { members: [], lines: [] };
      team.members.push(userId);
      team.lines.push(line);
      teams.set(teamId, team);
    }
  }
  if (teams.size > MAX_TEAM_LIST_TEAMS) throw teamListTooLong({ limit: MAX_TEAM_LIST_TEAMS });
  return { teams: [...teams].map(([teamId, team]) => ({ teamId, ...team })), rejected };
}

/** What a team list did (or, in a dry run, would do). */
export interface TeamListImport {
  readonly dry_run: boolean;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly rejected: readonly RejectedRow[];
}

/**
 * Sets every team of a team list, one after another, each as `PUT …/teams/{team_id}` would (its
 * own conditioned transaction and audit entry); a team refused (too big, a member who is no
 * student, submissions it would take away or merge) rejects each of its lines with the reason,
 * and the others are set all the same. A team already with exactly these members is not written.
 * In a dry run each team is checked against the teams as they are, and nothing is written.
 */
export async function importTeamList(
  course: Course,
  gradeable: GradeableDocument | undefined,
  gradeableId: string,
  text: string,
  options: { actor: string; dryRun: boolean },
): Promise<TeamListImport> {
  teamGradeable(gradeable, gradeableId);
  const list = readTeamList(text);
  const counts: Record<TeamOutcome, number> = { created: 0, updated: 0, unchanged: 0 };
  const rejected = [...list.rejected];
  for (const team of list.teams) {
    try {
      const { outcome } = await changeTeam(course, gradeable, {
        gradeableId,
        teamId: team.teamId,
        members: team.members,
        actor: options.actor,
        dryRun: options.dryRun,
        skipUnchanged: true,
      });
      counts[outcome]++;
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      rejected.push(...team.lines.map((line) => ({ line, reason: `Team ${team.teamId}: ${error.message}` })));
    }
  }
  return { dry_run: options.dryRun, ...counts, rejected: rejected.sort((a, b) => a.line - b.line) };
}
