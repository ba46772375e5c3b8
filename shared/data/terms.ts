import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { tableName, tables } from './tables.ts';

const table = tables.terms;

export interface Term {
  readonly termId: string;
  readonly name: string;
  /** `YYYY-MM-DD` */
  readonly startDate: string;
  readonly endDate: string;
}

const decode = (item: Item): Term => ({
  termId: item.termId as string,
  name: item.name as string,
  startDate: item.startDate as string,
  endDate: item.endDate as string,
});

export const termRef = (termId: string): ItemRef<Term> => ({ table, key: { termId }, decode });

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

export async function putTerm(term: Term): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: tableName(table), Item: { ...term } }));
}
