import { randomUUID } from 'node:crypto';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.audit;

/** Whose trail an entry belongs to: a course's (roster, teams, gradeables, settings) or a user's account. */
export type AuditScope = { readonly courseId: string } | { readonly userId: string };

/** One change as the trail keeps it. `before`/`after` hold only the fields that changed (absent when created or removed). */
export interface AuditChange {
  /** Who made the change (a user id), or `admin` for the operator's command line. */
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
