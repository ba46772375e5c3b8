import { createHash } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { courseId } from './keys.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { gradeableKey } from './submissions.ts';
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

/** A gradeable with the revision it was read at (0: never replaced), for a write conditional on it. */
export interface GradeableRecord<D extends StoredGradeable = StoredGradeable> {
  readonly document: D;
  readonly revision: number;
}

/** The document is kept as its JSON text, so a download gives back exactly what was stored. */
const decode = <D extends StoredGradeable>(item: Item): D => JSON.parse(item.document as string) as D;

const key = (term: string, course: string, gradeableId: string) => ({ courseId: courseId(term, course), gradeableId });

export const gradeableRef = <D extends StoredGradeable = StoredGradeable>(
  term: string,
  course: string,
  gradeableId: string,
): ItemRef<D> => ({
  table,
  key: key(term, course, gradeableId),
  decode: (item) => decode<D>(item),
});

/** The gradeable with its revision (what replacing or deleting it is conditional on). */
export const gradeableRecordRef = <D extends StoredGradeable = StoredGradeable>(
  term: string,
  course: string,
  gradeableId: string,
): ItemRef<GradeableRecord<D>> => ({
  table,
  key: key(term, course, gradeableId),
  decode: (item) => ({ document: decode<D>(item), revision: (item.revision as number | undefined) ?? 0 }),
});

/** Creates a gradeable; the transaction fails if the id is taken in the course. */
export const createGradeableItem = (term: string, course: string, document: StoredGradeable): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: {
      ...key(term, course, document.id),
      type: document.type,
      document: JSON.stringify(document),
      createdAt: new Date().toISOString(),
    },
    ConditionExpression: 'attribute_not_exists(gradeableId)',
  },
});

/** Passes while the gradeable is still at the revision read (an item never replaced has none). */
const atRevision = (revision: number) =>
  revision === 0
    ? { ConditionExpression: 'attribute_exists(document) AND attribute_not_exists(revision)' }
    : { ConditionExpression: 'revision = :revision', ExpressionAttributeValues: { ':revision': revision } };

/** Replaces a gradeable's document, provided it is still at the revision read; its revision goes up by one. */
export function replaceGradeableItem(term: string, course: string, document: StoredGradeable, revision: number): TransactItem {
  const condition = atRevision(revision);
  return {
    Update: {
      TableName: tableName(table),
      Key: key(term, course, document.id),
      UpdateExpression: 'SET #type = :type, document = :document, revision = :next, replacedAt = :now',
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ...condition.ExpressionAttributeValues,
        ':type': document.type,
        ':document': JSON.stringify(document),
        ':next': revision + 1,
        ':now': new Date().toISOString(),
      },
    },
  };
}

/** Deletes a gradeable, provided it is still at the revision read. */
export function deleteGradeableItem(term: string, course: string, gradeableId: string, revision: number): TransactItem {
  return { Delete: { TableName: tableName(table), Key: key(term, course, gradeableId), ...atRevision(revision) } };
}

/**
 * Gates against a gradeable's first submissions and grades. A change that needs the gradeable to
 * have none (deleting it, changing its type) closes every gate, looks, and then writes or gives
 * up; the first submission or TA grade of an owner checks its owner's gate in its own transaction.
 * So either the change sees the submission or the submission is refused: never both written. The
 * gates are spread over a few items so that a deadline's first submissions do not all touch one
 * item (concurrent transactions on one item conflict); items that do not exist pass the check.
 */
export const GRADEABLE_GATES = 8;

const gateId = (gradeableId: string, gate: number) => `${gradeableId}#gate#${gate}`;

export const gateOf = (ownerId: string): number => createHash('sha256').update(ownerId).digest().readUInt8(0) % GRADEABLE_GATES;

/** How long a closed gate holds when its change never finishes (a crash between its steps). */
const GATE_HOLD_MS = 60_000;

/** The check a first submission or grade of `ownerId` adds to its transaction: its gate is open. */
export function gateOpen(term: string, course: string, gradeableId: string, ownerId: string, now: Date): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(table),
      Key: key(term, course, gateId(gradeableId, gateOf(ownerId))),
      ConditionExpression: 'attribute_not_exists(closedUntil) OR closedUntil < :now',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    },
  };
}

/** Closes every gate of a gradeable for the change `token` (fails while another change holds them). */
export function closeGates(term: string, course: string, gradeableId: string, token: string, now: Date): TransactItem[] {
  return Array.from({ length: GRADEABLE_GATES }, (_, gate) => ({
    Put: {
      TableName: tableName(table),
      Item: { ...key(term, course, gateId(gradeableId, gate)), token, closedUntil: new Date(now.getTime() + GATE_HOLD_MS).toISOString() },
      ConditionExpression: 'attribute_not_exists(closedUntil) OR closedUntil < :now',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    },
  }));
}

/** Opens the gates the change `token` closed (to go with its write, or alone when it gives up). */
export function openGates(term: string, course: string, gradeableId: string, token: string): TransactItem[] {
  return Array.from({ length: GRADEABLE_GATES }, (_, gate) => ({
    Delete: {
      TableName: tableName(table),
      Key: key(term, course, gateId(gradeableId, gate)),
      ConditionExpression: '#token = :token',
      ExpressionAttributeNames: { '#token': 'token' },
      ExpressionAttributeValues: { ':token': token },
    },
  }));
}

/** What a gradeable has that a change could strand: any submission or TA grade (one item is enough), and any team. */
export async function gradeableHolds(term: string, course: string, gradeableId: string): Promise<{ submissions: boolean; teams: boolean }> {
  const first = (tableDefinition: typeof tables.submissions | typeof tables.teams) =>
    dynamo()
      .send(
        new QueryCommand({
          TableName: tableName(tableDefinition),
          KeyConditionExpression: 'gradeableKey = :key',
          ExpressionAttributeValues: { ':key': gradeableKey(term, course, gradeableId) },
          ConsistentRead: true,
          Limit: 1,
        }),
      )
      .then(({ Items }) => (Items ?? []).length > 0);
  const [submissions, teams] = await Promise.all([first(tables.submissions), first(tables.teams)]);
  return { submissions, teams };
}

export async function gradeablesOfCourse<D extends StoredGradeable = StoredGradeable>(term: string, course: string): Promise<D[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'courseId = :courseId',
    // The gates (above) live beside the gradeables.
    FilterExpression: 'attribute_exists(document)',
    ExpressionAttributeValues: { ':courseId': courseId(term, course) },
    ConsistentRead: true,
  });
  return items.map((item) => decode<D>(item));
}
