import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { GradingResults } from '#shared/submissions/submission.ts';
import { dynamo } from './client.ts';
import { tableName, tables } from './tables.ts';

const table = tables.results;

/** Keeps a version's full results (the submission item keeps only the active version's). */
export async function putResults(gradeableKey: string, ownerId: string, results: GradingResults & { points: number }) {
  await dynamo().send(
    new PutCommand({
      TableName: tableName(table),
      Item: {
        submissionKey: `${gradeableKey}/${ownerId}`,
        version: String(results.version).padStart(6, '0'),
        testCases: results.testCases,
        points: results.points,
        gradedAt: new Date().toISOString(),
      },
    }),
  );
}
