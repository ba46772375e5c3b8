/**
 * Reading the audit trail: a course's (roster, teams, gradeables, settings) or a user's account,
 * newest first, paged with `page_size` and `cursor` (shared/paging.ts).
 */
import { AUDIT_ENTRY, auditEntries, type AuditScope, type StoredAuditEntry } from '#shared/data/audit.ts';
import { encodeCursor, readPageRequest, takeWithin } from '#shared/paging.ts';

import { AUDIT_PAGE } from './limits.ts';

/** An entry as the API answers it: `before`/`after` hold the fields that changed (null when created or removed). */
export interface AuditRecord {
  readonly at: string;
  readonly actor: string;
  readonly action: string;
  readonly target: string;
  readonly before: Readonly<Record<string, unknown>> | null;
  readonly after: Readonly<Record<string, unknown>> | null;
}

export const auditRecord = (entry: StoredAuditEntry): AuditRecord => ({
  at: entry.at,
  actor: entry.actor,
  action: entry.action,
  target: entry.target,
  before: entry.before ?? null,
  after: entry.after ?? null,
});

type PageQuery = { readonly page_size?: string | undefined; readonly cursor?: string | undefined };

/** The page a query asks of a trail; a page size or cursor not of its kind is refused. */
export const auditPageRequest = (query: PageQuery) =>
  readPageRequest(query, {
    list: 'audit trail',
    defaultSize: AUDIT_PAGE,
    keys: 1,
    accepts: ([entry]) => entry !== undefined && AUDIT_ENTRY.test(entry),
  });

/** One page of a trail, and the cursor of the next (null on the last). */
export async function auditPage(scope: AuditScope, query: PageQuery): Promise<{ items: AuditRecord[]; next: string | null }> {
  const request = auditPageRequest(query);
  const { entries, more } = await auditEntries(scope, request.size, request.after?.[0]);
  const shown = takeWithin(entries.map((entry) => ({ entry: entry.entry, record: auditRecord(entry) })));
  const last = shown.at(-1);
  const cut = shown.length < entries.length;
  return { items: shown.map(({ record }) => record), next: (more || cut) && last ? encodeCursor([last.entry]) : null };
}
