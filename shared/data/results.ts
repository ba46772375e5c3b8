import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { tableName, tables } from './tables.ts';
import type { Item, ItemRef } from './items.ts';
import type { TransactItem } from './transactions.ts';
import type { GradingResults } from './submissions.ts';

const table = tables.results;

const resultsItem = (gradeableKey: string, ownerId: string, results: GradingResults & { points: number }) => ({
  TableName: tableName(table),
  Item: {
    submissionKey: `${gradeableKey}/${ownerId}`,
    version: String(results.version).padStart(6, '0'),
    testCases: results.testCases,
    points: results.points,
    gradedAt: new Date().toISOString(),
  },
});

/** Keeps a version's full results (the submission item keeps only the active version's). */
export async function putResults(gradeableKey: string, ownerId: string, results: GradingResults & { points: number }) {
  await dynamo().send(new PutCommand(resultsItem(gradeableKey, ownerId, results)));
}

/** The same, as part of the transaction that finishes the grading job. */
export const putResultsItem = (gradeableKey: string, ownerId: string, results: GradingResults & { points: number }): TransactItem => ({
  Put: resultsItem(gradeableKey, ownerId, results),
});

/** A version's full results (test cases and points), as the worker kept them. */
export const resultsRef = (gradeableKey: string, ownerId: string, version: number): ItemRef<GradingResults & { points: number }> => ({
  table,
  key: { submissionKey: `${gradeableKey}/${ownerId}`, version: String(version).padStart(6, '0') },
  decode: (item: Item) => ({ version, testCases: item.testCases as GradingResults['testCases'], points: item.points as number }),
});
