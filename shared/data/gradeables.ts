import { courseId } from '#shared/courses/course.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.gradeables;

/** The document is kept as its JSON text, so a download gives back exactly what was stored. */
const decode = (item: Item): GradeableDocument => JSON.parse(item.document as string) as GradeableDocument;

export const gradeableRef = (term: string, course: string, gradeableId: string): ItemRef<GradeableDocument> => ({
  table,
  key: { courseId: courseId(term, course), gradeableId },
  decode,
});

/** Creates a gradeable; the transaction fails if the id is taken in the course. */
export const createGradeableItem = (term: string, course: string, document: GradeableDocument): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: {
      courseId: courseId(term, course),
      gradeableId: document.id,
      type: document.type,
      document: JSON.stringify(document),
      createdAt: new Date().toISOString(),
    },
    ConditionExpression: 'attribute_not_exists(gradeableId)',
  },
});

export async function gradeablesOfCourse(term: string, course: string): Promise<GradeableDocument[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'courseId = :courseId',
    ExpressionAttributeValues: { ':courseId': courseId(term, course) },
    ConsistentRead: true,
  });
  return items.map(decode);
}
