import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { changeCopiedSource, listingCopyOf, revisionOf, sourceUnchanged, type CopyFill } from './enrollment-copies.ts';
import { decodeCourse } from './courses.ts';
import { copyHolder, enrollmentsOfCourse } from './enrollments.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll, scanAll } from './paging.ts';
import { tableName, tables } from './tables.ts';

const table = tables.terms;

export interface Term {
  readonly termId: string;
  readonly name: string;
  /** `YYYY-MM-DD` */
  readonly startDate: string;
  readonly endDate: string;
}

export const decodeTerm = (item: Item): Term => ({
  termId: item.termId as string,
  name: item.name as string,
  startDate: item.startDate as string,
  endDate: item.endDate as string,
});

export const termRef = (termId: string): ItemRef<Term> => ({ table, key: { termId }, decode: decodeTerm });

/** Creates a term; false when one with that id exists already. */
export async function createTerm(term: Term): Promise<boolean> {
  try {
    await dynamo().send(
      new PutCommand({ TableName: tableName(table), Item: { ...term }, ConditionExpression: 'attribute_not_exists(termId)' }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Changes an existing term, with the copies of its name and start on the enrollment items of its
 * courses (enrollment-copies.ts); false when there is no such term.
 */
export async function changeTerm(term: Term): Promise<boolean> {
  const coursesTable = tableName(tables.courses);
  const written = await changeCopiedSource({
    tableName: tableName(table),
    key: { termId: term.termId },
    set: '#name = :name, startDate = :startDate, endDate = :endDate',
    names: { '#name': 'name' },
    values: { ':name': term.name, ':startDate': term.startDate, ':endDate': term.endDate },
    attribute: 'listingCopy',
    holders: async () => {
      const courses = await coursesOfTerm(term.termId);
      return (await Promise.all(courses.map((course) => enrollmentsOfCourse(term.termId, course.course as string)))).flat().map(copyHolder);
    },
    fills: async (item, _holders, self): Promise<CopyFill[]> => {
      const written = decodeTerm(item);
      // Read after this term's change: any course changed since fails its check below.
      const courses = await coursesOfTerm(term.termId);
      return Promise.all(
        courses.map(async (course) => {
          const courseKey = { term: term.termId, course: course.course as string };
          const copy = listingCopyOf(decodeCourse(course), written);
          const members = await enrollmentsOfCourse(term.termId, courseKey.course);
          return {
            checks: [sourceUnchanged(self, true), sourceUnchanged(revisionOf(coursesTable, courseKey, course), true)],
            holders: members.map((member) => ({ holder: copyHolder(member), copy })),
          };
        }),
      );
    },
  });
  return written !== undefined;
}

const coursesOfTerm = (termId: string): Promise<Item[]> =>
  queryAll({
    TableName: tableName(tables.courses),
    KeyConditionExpression: '#term = :term',
    ExpressionAttributeNames: { '#term': 'term' },
    ExpressionAttributeValues: { ':term': termId },
    ConsistentRead: true,
  });

/** Creates the term, or changes it (and the copies of it) when it exists. */
export async function putTerm(term: Term): Promise<void> {
  while (!(await changeTerm(term)) && !(await createTerm(term)));
}

/** Every term (a handful a year: one Scan). */
export const allTerms = async (): Promise<Term[]> => (await scanAll({ TableName: tableName(table) })).map(decodeTerm);
