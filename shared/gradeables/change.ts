/**
 * Changing and deleting gradeables: the rules (pure, unit-tested) and the writes, each with its
 * audit entry in the same transaction.
 */
import { randomUUID } from 'node:crypto';
import type { Course } from '#shared/courses/course.ts';
import { auditEntry } from '#shared/data/audit.ts';
import { courseId } from '#shared/data/keys.ts';
import {
  closeGates,
  deletedGeneration,
  deleteGradeableItem,
  gradeableHolds,
  gradeableRecordRef,
  openGates,
  replaceGradeableItem,
  type GradeableRecord,
} from '#shared/data/gradeables.ts';
import { getItems } from '#shared/data/items.ts';
import { failedConditions, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import { Refusal } from '#shared/errors.ts';
import {
  deleteHasSubmissions,
  deleteHasTeams,
  gradeableBusy,
  gradeableChangedSince,
  gradeableNotFound,
  idMismatch,
  wouldStrand,
} from './failures.ts';
import { downloadForm } from './listing.ts';
import type { GradeableDocument } from './gradeable.ts';
import { REQUIRES_ID_TITLE_TYPE, validateGradeable } from './validate.ts';

/**
 * The fields whose change would strand existing submissions and grades: the type (versions and
 * grades of one type mean nothing to another), version control taken away (versions are commits
 * of its repository), and teams added or taken away (versions belong to teams or to students).
 * Test cases, points, dates, rubric and limits may change: a regrade applies new test cases.
 */
export function strandingFields(before: GradeableDocument, after: GradeableDocument): string[] {
  const fields: string[] = [];
  if (before.type !== after.type) fields.push('type');
  if (before.vcs && !after.vcs) fields.push('vcs');
  if (Boolean(before.team_gradeable) !== Boolean(after.team_gradeable)) fields.push('team_gradeable');
  return fields;
}

/** A field's value as the audit trail keeps it: whole up to a size, else its size alone (an entry has a size limit). */
const MAX_AUDITED_FIELD_BYTES = 8 * 1024;
const audited = (value: unknown): unknown => {
  const bytes = JSON.stringify(value ?? null).length;
  return bytes <= MAX_AUDITED_FIELD_BYTES ? (value ?? null) : { omitted: true, bytes };
};

/** The top-level fields that differ, before and after, as the audit trail keeps them. */
export function changedFields(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const changed = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[name]) === JSON.stringify(after[name])) continue;
    if (name in before) changed.before[name] = audited(before[name]);
    if (name in after) changed.after[name] = audited(after[name]);
  }
  return changed;
}

export interface ChangeOptions {
  /** Who changes it (a user id, or `(command line)` for the operator's command line). */
  readonly actor: string;
  /** Validate and answer what would be stored, writing nothing. */
  readonly dryRun?: boolean;
  /** The caller's If-Match: whether it names the current gradeable (absent: no precondition). */
  readonly ifMatch?: (current: GradeableDocument) => boolean;
  readonly now?: Date;
  /**
   * What a higher domain writes with a replacement, given the document it replaces and the new one
   * (the linked LMS courses' check of the totals it changes): in the same transaction, so written
   * exactly when the replacement is.
   */
  readonly followUp?: (before: GradeableDocument, after: GradeableDocument, at: Date) => readonly TransactItem[];
}

/** A gradeable document checked against its schema, or the refusal upload gives. */
export function checkedDocument(course: Pick<Course, 'timeZone'>, input: unknown, now: Date): GradeableDocument {
  const result = validateGradeable(input, { timeZone: course.timeZone, now });
  if (result.document) return result.document;
  const message = result.errors[0]?.message ?? 'The gradeable JSON is not valid.';
  throw new Refusal(message === REQUIRES_ID_TITLE_TYPE ? 'invalid' : 'unprocessable', message, { data: result.errors });
}

const ATTEMPTS = 4;

/**
 * Replaces a gradeable with a document in the form of download and upload; answers the stored
 * document in download form. Written only if the gradeable is still as read (If-Match, the
 * stranding check), so two changes never overwrite each other unseen: without If-Match a change
 * that lost the race is checked again against the winner's document.
 */
export async function replaceGradeable(
  course: Course,
  gradeableId: string,
  input: unknown,
  options: ChangeOptions,
): Promise<GradeableDocument> {
  const now = options.now ?? new Date();
  const document = checkedDocument(course, input, now);
  if (document.id !== gradeableId) throw idMismatch({ document_id: document.id, gradeable_id: gradeableId });
  for (let attempt = 1; ; attempt++) {
    const current = await readGradeable(course, gradeableId);
    if (options.ifMatch && !options.ifMatch(current.document)) throw gradeableChangedSince();
    const stranding = strandingFields(current.document, document);
    if (options.dryRun) {
      if (stranding.length > 0 && (await gradeableHolds(course.term, course.course, gradeableId)).submissions) {
        throw wouldStrand({ field: stranding.join(', ') });
      }
      return downloadForm(document, course.timeZone);
    }
    const change = changedFields(current.document as unknown as Record<string, unknown>, document as unknown as Record<string, unknown>);
    // A stranding change starts a new generation: what was read before it no longer passes the gates.
    const generation = stranding.length > 0 ? randomUUID() : undefined;
    const writes = [
      replaceGradeableItem(course.term, course.course, document, current.revision, generation),
      auditEntry(
        { courseId: courseId(course.term, course.course) },
        { actor: options.actor, action: 'gradeable.replaced', target: gradeableId, ...change },
        now,
      ),
      ...(options.followUp?.(current.document, document, now) ?? []),
    ];
    const written = generation
      ? await gated(course, gradeableId, now, writes, generation, ({ submissions }) =>
          submissions ? wouldStrand({ field: stranding.join(', ') }) : undefined,
        )
      : await conditional(writes);
    if (written) return downloadForm(document, course.timeZone);
    // The gradeable changed between the read and the write.
    if (options.ifMatch) throw gradeableChangedSince();
    if (attempt >= ATTEMPTS) throw gradeableBusy();
  }
}

/**
 * Deletes a gradeable while nothing was submitted to it or graded on it, and it has no teams;
 * atomic against a first submission or grade arriving at the same moment (the gates of
 * data/gradeables.ts). Answers the deleted document in download form.
 */
export async function deleteGradeable(course: Course, gradeableId: string, options: ChangeOptions): Promise<GradeableDocument> {
  const now = options.now ?? new Date();
  for (let attempt = 1; ; attempt++) {
    const current = await readGradeable(course, gradeableId);
    if (options.ifMatch && !options.ifMatch(current.document)) throw gradeableChangedSince();
    const form = downloadForm(current.document, course.timeZone);
    const refusal = ({ submissions, teams }: { submissions: boolean; teams: boolean }) =>
      submissions ? deleteHasSubmissions() : teams ? deleteHasTeams() : undefined;
    if (options.dryRun) {
      const why = refusal(await gradeableHolds(course.term, course.course, gradeableId));
      if (why) throw why;
      return form;
    }
    const writes = [
      deleteGradeableItem(course.term, course.course, gradeableId, current.revision),
      auditEntry(
        { courseId: courseId(course.term, course.course) },
        { actor: options.actor, action: 'gradeable.deleted', target: gradeableId, ...changedFields(form as never, {}) },
        now,
      ),
    ];
    if (await gated(course, gradeableId, now, writes, deletedGeneration(), refusal)) return form;
    if (options.ifMatch) throw gradeableChangedSince();
    if (attempt >= ATTEMPTS) throw gradeableBusy();
  }
}

async function readGradeable(course: Course, gradeableId: string): Promise<GradeableRecord<GradeableDocument>> {
  const { record } = await getItems({ record: gradeableRecordRef<GradeableDocument>(course.term, course.course, gradeableId) });
  if (!record) throw gradeableNotFound();
  return record;
}

/** Writes conditional on the gradeable's revision (the first item): false when it changed since the read. */
async function conditional(writes: TransactItem[]): Promise<boolean> {
  try {
    await transactWrite(writes);
    return true;
  } catch (error) {
    if (failedConditions(error).includes(0)) return false;
    throw error;
  }
}

/**
 * Closes the gradeable's gates, looks at what it holds, then writes (opening the gates at the
 * gradeable's new `generation` in the same transaction) or opens them and refuses with what
 * `refuse` says. False when the gradeable changed since the read.
 */
async function gated(
  course: Course,
  gradeableId: string,
  now: Date,
  writes: TransactItem[],
  generation: string,
  refuse: (holds: { submissions: boolean; teams: boolean }) => Refusal | undefined,
): Promise<boolean> {
  const token = randomUUID();
  try {
    await transactWrite(closeGates(course.term, course.course, gradeableId, token, now));
  } catch (error) {
    if (failedConditions(error).length > 0) throw gradeableBusy();
    throw error;
  }
  let written = false;
  try {
    const why = refuse(await gradeableHolds(course.term, course.course, gradeableId));
    if (why) throw why;
    written = await conditional([...writes, ...openGates(course.term, course.course, gradeableId, token, generation)]);
    return written;
  } finally {
    if (!written) await transactWrite(openGates(course.term, course.course, gradeableId, token)).catch(() => undefined);
  }
}
