import { courseId } from './keys.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.gradeables;

/**
 * What the data layer reads of a gradeable document: its id and type (kept as attributes beside
 * it). The document's format is the domain's (GradeableDocument, shared/gradeables/gradeable.ts);
 * readers name it as `D`, and shared/gradeables/stored.ts does so for the domain.
 */
export interface StoredGradeable {
  readonly id: string;
  readonly type: string;
}

/** The document is kept as its JSON text, so a download gives back exactly what was stored. */
const decode = <D extends StoredGradeable>(item: Item): D => JSON.parse(item.document as string) as D;

export const gradeableRef = <D extends StoredGradeable = StoredGradeable>(
  term: string,
  course: string,
  gradeableId: string,
): ItemRef<D> => ({
  table,
  key: { courseId: courseId(term, course), gradeableId },
  decode: (item) => decode<D>(item),
});

/** Creates a gradeable; the transaction fails if the id is taken in the course. */
export const createGradeableItem = (term: string, course: string, document: StoredGradeable): TransactItem => ({
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

export async function gradeablesOfCourse<D extends StoredGradeable = StoredGradeable>(term: string, course: string): Promise<D[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'courseId = :courseId',
    ExpressionAttributeValues: { ':courseId': courseId(term, course) },
    ConsistentRead: true,
  });
  return items.map((item) => decode<D>(item));
}
