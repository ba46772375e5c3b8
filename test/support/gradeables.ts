import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { courseId } from '#shared/courses/course.ts';
import { dynamo } from '#shared/data/client.ts';
import { tableName, tables } from '#shared/data/tables.ts';

/**
 * Changes a stored gradeable's JSON where the API keeps it: gradeables cannot be changed over HTTP
 * (an upload of an existing id is refused), but an instructor's fix or a moved date is what some
 * tests are about.
 */
export async function editStoredGradeable(
  course: { term: string; course: string },
  gradeableId: string,
  edit: (document: Record<string, any>) => void, // eslint-disable-line @typescript-eslint/no-explicit-any -- a test edits any field
): Promise<void> {
  const Key = { courseId: courseId(course.term, course.course), gradeableId };
  const TableName = tableName(tables.gradeables);
  const { Item } = await dynamo().send(new GetCommand({ TableName, Key }));
  if (!Item) throw new Error(`No stored gradeable ${gradeableId}`);
  const document = JSON.parse(Item.document as string) as Record<string, unknown>;
  edit(document);
  await dynamo().send(
    new UpdateCommand({
      TableName,
      Key,
      UpdateExpression: 'SET #document = :document',
      ExpressionAttributeNames: { '#document': 'document' },
      ExpressionAttributeValues: { ':document': JSON.stringify(document) },
    }),
  );
}
