import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.audit;

/** Whose trail an entry belongs to: a course's (roster, teams, gradeables, settings) or a user's account. */
export type AuditScope = { readonly courseId: string } | { readonly userId: string };

/** One change as the trail keeps it. `before`/`after` hold only the fields that changed (absent when created or removed). */
export interface AuditChange {
  /** Who made the change (a user id), or `(command line)` for the operator's command line. */
  readonly actor: string;
  /** What was done, as `<thing>.<verb>`: `member.enrolled`, `gradeable.replaced`, `user.password-set`, … */
  readonly action: string;
  /** What it was done to: a user id, a gradeable id, a team id, a setting's name. */
  readonly target: string;
  readonly before?: Readonly<Record<string, unknown>>;
  readonly after?: Readonly<Record<string, unknown>>;
}

export const auditScopeKey = (scope: AuditScope): string => ('courseId' in scope ? `course#${scope.courseId}` : `user#${scope.userId}`);

/**
 * The Put of one audit entry, to go into the change's own transaction, so that a change is never
 * written without its entry nor an entry without its change. Entries sort by time; the random
 * suffix keeps two changes in the same millisecond apart. Never secrets: a password change records
 * that it happened, not the password.
 */
export function auditEntry(scope: AuditScope, change: AuditChange, at: Date = new Date()): TransactItem {
  return {
    Put: {
      TableName: tableName(table),
      Item: {
        scope: auditScopeKey(scope),
        entry: `${at.toISOString()}#${randomUUID()}`,
        at: at.toISOString(),
        ...change,
      },
      ConditionExpression: 'attribute_not_exists(entry)',
    },
  };
}

/** An entry as read back: its sort key (the position paging resumes after) and what it records. */
export interface StoredAuditEntry extends AuditChange {
  readonly entry: string;
  readonly at: string;
}

/** An entry's sort key: the ISO time of the change, `#`, a UUID. */
export const AUDIT_ENTRY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9a-f-]{36}$/;

const decodeEntry = (item: Record<string, unknown>): StoredAuditEntry => ({
  entry: item.entry as string,
  at: item.at as string,
  actor: item.actor as string,
  action: item.action as string,
  target: item.target as string,
  ...(item.before !== undefined ? { before: item.before as Record<string, unknown> } : {}),
  ...(item.after !== undefined ? { after: item.after as Record<string, unknown> } : {}),
});

/**
 * Up to `size` entries of a trail, newest first, after the entry `after` (its sort key); `more`
 * when older entries follow. Reads one entry beyond the page to know.
 */
export async function auditEntries(
  scope: AuditScope,
  size: number,
  after: string | undefined,
): Promise<{ entries: StoredAuditEntry[]; more: boolean }> {
  const entries: StoredAuditEntry[] = [];
  let startKey: Record<string, unknown> | undefined = after === undefined ? undefined : { scope: auditScopeKey(scope), entry: after };
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(table),
        KeyConditionExpression: '#scope = :scope',
        ExpressionAttributeNames: { '#scope': 'scope' },
        ExpressionAttributeValues: { ':scope': auditScopeKey(scope) },
        ScanIndexForward: false,
        Limit: size + 1 - entries.length,
        ExclusiveStartKey: startKey,
      }),
    );
    entries.push(...(page.Items ?? []).map(decodeEntry));
    startKey = page.LastEvaluatedKey;
  } while (startKey && entries.length <= size);
  return { entries: entries.slice(0, size), more: entries.length > size };
}
