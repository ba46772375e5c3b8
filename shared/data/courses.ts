import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { changeCopiedSource, listingCopyOf, revisionOf, sourceUnchanged } from './enrollment-copies.ts';
import { copyHolder, enrollmentsOfCourse } from './enrollments.ts';
import { scanAll } from './paging.ts';
import { getItems, type Item, type ItemRef } from './items.ts';
import { tableName, tables } from './tables.ts';
import { failedConditions, transactWrite, type TransactItem } from './transactions.ts';

const table = tables.courses;

export interface Course {
  readonly term: string;
  readonly course: string;
  readonly displayName: string;
  readonly archived: boolean;
  /** IANA time zone the course's dates are shown in. */
  readonly timeZone: string;
  readonly accessGroup: string;
  /** The late-day budget every student starts with (the reference's `default_student_late_days`); 0 when unset. */
  readonly defaultStudentLateDays?: number;
  /** Whether the course takes submissions and uploads while archived (`archived_accepts_submissions`); false when unset. */
  readonly archivedAcceptsSubmissions?: boolean;
  /** The grade summaries readers see: the last complete generation. */
  readonly summaries?: SummaryGeneration;
  /** How many linked LMS courses take scores (AGS `score` scope): a grade is sent back only while some do; 0 when unset. */
  readonly ltiScoreLinks?: number;
}

export interface SummaryGeneration {
  readonly generation: string;
  readonly generatedAt: string;
  readonly count: number;
}

/** A course as stored (also for code that reads items raw, to keep their revision: enrollment-copies.ts). */
export const decodeCourse = (item: Item): Course => ({
  term: item.term as string,
  course: item.course as string,
  displayName: (item.displayName as string | undefined) ?? '',
  archived: item.archived === true,
  timeZone: (item.timeZone as string | undefined) ?? 'UTC',
  accessGroup: item.accessGroup as string,
  defaultStudentLateDays: (item.defaultStudentLateDays as number | undefined) ?? 0,
  archivedAcceptsSubmissions: item.archivedAcceptsSubmissions === true,
  ...(item.summaries ? { summaries: item.summaries as Course['summaries'] } : {}),
  ...(typeof item.ltiScoreLinks === 'number' && item.ltiScoreLinks > 0 ? { ltiScoreLinks: item.ltiScoreLinks } : {}),
});

export const courseRef = (term: string, course: string): ItemRef<Course> => ({ table, key: { term, course }, decode: decodeCourse });

/** Creates the course; the transaction fails if it exists already. */
export const createCourseItem = (course: Course): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: { ...course, createdAt: new Date().toISOString() },
    ConditionExpression: 'attribute_not_exists(term)',
  },
});

/** Counts a link of an LMS course that takes scores (`by` 1) or its removal (-1), in the link's own transaction. */
export const countLtiScoreLinks = (term: string, course: string, by: 1 | -1): TransactItem => ({
  Update: {
    TableName: tableName(table),
    Key: { term, course },
    UpdateExpression: 'ADD ltiScoreLinks :by',
    ConditionExpression: 'attribute_exists(term)',
    ExpressionAttributeValues: { ':by': by },
  },
});

/** Guards a transaction on the course still existing. */
export const courseExists = (term: string, course: string): TransactItem => ({
  ConditionCheck: { TableName: tableName(table), Key: { term, course }, ConditionExpression: 'attribute_exists(term)' },
});

/** Moves the course to another access group, provided it is still in the group read (`from`). */
export const setCourseAccessGroup = (term: string, course: string, accessGroup: string, from: string): TransactItem => ({
  Update: {
    TableName: tableName(table),
    Key: { term, course },
    UpdateExpression: 'SET accessGroup = :accessGroup',
    ConditionExpression: 'accessGroup = :from',
    ExpressionAttributeValues: { ':accessGroup': accessGroup, ':from': from },
  },
});

/** Points readers at a complete generation of summaries; the previous one is returned for clean-up. */
export async function switchSummaries(
  term: string,
  course: string,
  generation: NonNullable<Course['summaries']>,
  alongside: readonly TransactItem[] = [],
): Promise<Course['summaries'] | undefined> {
  if (alongside.length === 0) {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: { term, course },
        UpdateExpression: 'SET summaries = :generation',
        ConditionExpression: 'attribute_exists(term)',
        ExpressionAttributeValues: { ':generation': generation },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    return Attributes?.summaries as Course['summaries'] | undefined;
  }
  // A transaction answers no old values: the generation it replaces is read first, and the switch
  // made only while it is still the current one (read again when another switch came between).
  for (let attempt = 0; ; attempt++) {
    const { current } = await getItems({ current: courseRef(term, course) });
    if (!current) throw new Error(`The course ${term}/${course} no longer exists: its summaries were not switched`);
    const previous = current.summaries;
    try {
      await transactWrite([
        {
          Update: {
            TableName: tableName(table),
            Key: { term, course },
            UpdateExpression: 'SET summaries = :generation',
            ConditionExpression: previous
              ? 'attribute_exists(term) AND summaries.generation = :previous'
              : 'attribute_exists(term) AND attribute_not_exists(summaries)',
            ExpressionAttributeValues: { ':generation': generation, ...(previous ? { ':previous': previous.generation } : {}) },
          },
        },
        ...alongside,
      ]);
      return previous;
    } catch (error) {
      if (attempt >= 4 || !failedConditions(error).includes(0)) throw error;
    }
  }
}

/**
 * Archives or unarchives an existing course, with the copies of the flag on its enrollment items
 * (enrollment-copies.ts); false when there is no such course. `alongside` (an audit entry) goes in
 * the same transaction, made from the course as stored when the change began.
 */
export async function setArchived(
  term: string,
  course: string,
  archived: boolean,
  alongside?: (before: Course) => readonly TransactItem[],
): Promise<boolean> {
  return setListedField(term, course, { archived }, alongside);
}

/** Renames an existing course (its display name), with the copies on its enrollment items; false when there is no such course. */
export const setDisplayName = (
  term: string,
  course: string,
  displayName: string,
  alongside?: (before: Course) => readonly TransactItem[],
) => setListedField(term, course, { displayName }, alongside);

/**
 * Changes a course field the courses list copies (listingCopyOf), and the copies; `alongside`,
 * made from the course as it was before (no other change of such a field comes between: see
 * changeCopiedSource), goes in the same transaction.
 */
async function setListedField(
  term: string,
  course: string,
  field: { archived: boolean } | { displayName: string },
  alongside: ((before: Course) => readonly TransactItem[]) | undefined,
): Promise<boolean> {
  const [name, value] = Object.entries(field)[0] as [string, unknown];
  const written = await changeCopiedSource({
    tableName: tableName(table),
    key: { term, course },
    set: '#field = :value',
    names: { '#field': name },
    values: { ':value': value },
    ...(alongside ? { alongside: (before: Item) => alongside(decodeCourse(before)) } : {}),
    attribute: 'listingCopy',
    holders: async () => (await enrollmentsOfCourse(term, course)).map(copyHolder),
    fills: async (item, _holders, self) => {
      const termsTable = tableName(tables.terms);
      const { Item: termItem } = await dynamo().send(
        new GetCommand({ TableName: termsTable, Key: { termId: term }, ConsistentRead: true }),
      );
      // Without its term a listing is not copied: creating the term later changes no copy.
      if (!termItem) return [];
      const copy = listingCopyOf(decodeCourse(item), termItem as { name: string; startDate: string });
      const members = await enrollmentsOfCourse(term, course);
      return [
        {
          checks: [sourceUnchanged(self, true), sourceUnchanged(revisionOf(termsTable, { termId: term }, termItem), true)],
          holders: members.map((member) => ({ holder: copyHolder(member), copy })),
        },
      ];
    },
  });
  return written !== undefined;
}

export async function allCourses(): Promise<Course[]> {
  return (await scanAll({ TableName: tableName(table) })).map(decodeCourse);
}

/** What a course field reads as when the item has none (decodeCourse). */
const fieldDefaults = { timeZone: 'UTC', defaultStudentLateDays: 0, archivedAcceptsSubmissions: false } as const;

/**
 * Sets a course setting no list copies (time zone, default late days, archived submissions) with `alongside` in one
 * transaction, provided the course still holds `before`, the value read; false when it does not (or
 * the course is gone).
 */
export async function setCourseField(
  term: string,
  course: string,
  field: 'timeZone' | 'defaultStudentLateDays' | 'archivedAcceptsSubmissions',
  change: { readonly before: string | number | boolean; readonly value: string | number | boolean },
  alongside: readonly TransactItem[] = [],
): Promise<boolean> {
  const asRead = change.before === fieldDefaults[field] ? '(attribute_not_exists(#field) OR #field = :before)' : '#field = :before';
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName(table),
          Key: { term, course },
          UpdateExpression: 'SET #field = :value',
          ConditionExpression: `attribute_exists(term) AND ${asRead}`,
          ExpressionAttributeNames: { '#field': field },
          ExpressionAttributeValues: { ':value': change.value, ':before': change.before },
        },
      },
      ...alongside,
    ]);
    return true;
  } catch (error) {
    if (failedConditions(error).includes(0)) return false;
    throw error;
  }
}
