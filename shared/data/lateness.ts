import { getAttributes, type Item } from './items.ts';
import { gradeableKey } from './submissions.ts';
import { tables } from './tables.ts';

/** The days late of a student's active version on a gradeable; undefined when none is active. */
export type ActiveDaysLateOf = (gradeableId: string, userId: string) => number | undefined;

/**
 * The active version's days late of each of `userIds` on each of `gradeables`, as late days
 * read them: a student's own submission, or on team gradeables the copy their member entry
 * carries of their team's (teams.ts). One key per student and gradeable, read in batches of 100
 * with only the attributes late days need: what it reads grows with the students asked about,
 * never with the class.
 */
export async function activeDaysLateOf(
  term: string,
  course: string,
  gradeables: readonly { readonly id: string; readonly team: boolean }[],
  userIds: readonly string[],
): Promise<ActiveDaysLateOf> {
  const pairs = gradeables.flatMap((gradeable) => userIds.map((userId) => ({ gradeable, userId })));
  const own = pairs.filter(({ gradeable }) => !gradeable.team);
  const team = pairs.filter(({ gradeable }) => gradeable.team);
  const attributes = ['activeVersion', 'activeDaysLate'];
  const [ownItems, teamItems] = await Promise.all([
    own.length === 0
      ? []
      : getAttributes(
          tables.submissions,
          own.map(({ gradeable, userId }) => ({ gradeableKey: gradeableKey(term, course, gradeable.id), ownerId: userId })),
          attributes,
        ),
    team.length === 0
      ? []
      : getAttributes(
          tables.teams,
          team.map(({ gradeable, userId }) => ({ gradeableKey: gradeableKey(term, course, gradeable.id), entry: `member#${userId}` })),
          attributes,
        ),
  ]);
  const found = new Map<string, number | undefined>();
  const keep = (list: typeof pairs, items: readonly (Item | undefined)[]) =>
    list.forEach(({ gradeable, userId }, index) => found.set(`${gradeable.id}\n${userId}`, daysLateOf(items[index])));
  keep(own, ownItems);
  keep(team, teamItems);
  return (gradeableId, userId) => found.get(`${gradeableId}\n${userId}`);
}

const daysLateOf = (item: Item | undefined): number | undefined =>
  ((item?.activeVersion as number | undefined) ?? 0) > 0 ? (item?.activeDaysLate as number | undefined) : undefined;
