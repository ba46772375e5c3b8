import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { tableName, tables } from './tables.ts';
import type { Item, ItemRef } from './items.ts';
import type { TransactItem } from './transactions.ts';
import type { GradingResults } from './submissions.ts';

const table = tables.results;

/** What a graded version's record adds to its results: when they were stored, and the signed record of them. */
export interface ResultsRecord {
  readonly gradedAt: Date;
  /** The compact JWS of the version's grading record (shared/grading/grading-record.ts). */
  readonly record: string;
}

const resultsItem = (gradeableKey: string, ownerId: string, results: GradingResults & { points: number }, signed?: ResultsRecord) => ({
  TableName: tableName(table),
  Item: {
    submissionKey: `${gradeableKey}/${ownerId}`,
    version: String(results.version).padStart(6, '0'),
    testCases: results.testCases,
    points: results.points,
    gradedAt: (signed?.gradedAt ?? new Date()).toISOString(),
    ...(signed ? { record: signed.record } : {}),
  },
});

/** Keeps a version's full results (the submission item keeps only the active version's). */
export async function putResults(gradeableKey: string, ownerId: string, results: GradingResults & { points: number }) {
  await dynamo().send(new PutCommand(resultsItem(gradeableKey, ownerId, results)));
}

/** The same with its signed record, as part of the transaction that finishes the grading job. */
export const putResultsItem = (
  gradeableKey: string,
  ownerId: string,
  results: GradingResults & { points: number },
  signed: ResultsRecord,
): TransactItem => ({
  Put: resultsItem(gradeableKey, ownerId, results, signed),
});

/** A version's full results (test cases and points), as the worker kept them. */
export const resultsRef = (gradeableKey: string, ownerId: string, version: number): ItemRef<GradingResults & { points: number }> => ({
  table,
  key: { submissionKey: `${gradeableKey}/${ownerId}`, version: String(version).padStart(6, '0') },
  decode: (item: Item) => ({ version, testCases: item.testCases as GradingResults['testCases'], points: item.points as number }),
});

/** A version's results exactly as stored (what its record's `result_sha256` is the hash of), with its signed record if any. */
export interface RecordedResults {
  readonly result: { readonly version: number; readonly testCases: readonly unknown[]; readonly points: number };
  readonly gradedAt?: string;
  readonly record?: string;
}

export const recordedResultsRef = (gradeableKey: string, ownerId: string, version: number): ItemRef<RecordedResults> => ({
  table,
  key: { submissionKey: `${gradeableKey}/${ownerId}`, version: String(version).padStart(6, '0') },
  decode: (item: Item) => ({
    result: { version, testCases: item.testCases as unknown[], points: item.points as number },
    ...(typeof item.gradedAt === 'string' ? { gradedAt: item.gradedAt } : {}),
    ...(typeof item.record === 'string' ? { record: item.record } : {}),
  }),
});
