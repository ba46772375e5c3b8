import { createHash, randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { courseId } from './keys.ts';
import { getItems, type Item, type ItemRef } from './items.ts';
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

/**
 * The generation each document read was at (see the gates below), kept beside the document rather
 * than in it, so that nothing that shows or copies a document carries it.
 */
const generations = new WeakMap<object, string>();
/** A gradeable written before generations were kept: it has never been through a gated change. */
const NO_GENERATION = 'none';

/** The document is kept as its JSON text, so a download gives back exactly what was stored. */
const decode = <D extends StoredGradeable>(item: Item): D => {
  const document = JSON.parse(item.document as string) as D;
  generations.set(document, (item.generation as string | undefined) ?? NO_GENERATION);
  return document;
};

/** The generation of a document read through this module (undefined for one built otherwise). */
export const generationOf = (document: StoredGradeable): string | undefined => generations.get(document);

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
export const createGradeableItem = (
  term: string,
  course: string,
  document: StoredGradeable,
  generation: string = randomUUID(),
): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: {
      ...key(term, course, document.id),
      type: document.type,
      document: JSON.stringify(document),
      generation,
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

/**
 * Replaces a gradeable's document, provided it is still at the revision read; its revision goes up
 * by one. A gated change (below) gives it a new `generation` too.
 */
export function replaceGradeableItem(
  term: string,
  course: string,
  document: StoredGradeable,
  revision: number,
  generation?: string,
): TransactItem {
  const condition = atRevision(revision);
  return {
    Update: {
      TableName: tableName(table),
      Key: key(term, course, document.id),
      UpdateExpression: `SET #type = :type, document = :document, revision = :next, replacedAt = :now${generation ? ', generation = :generation' : ''}`,
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ...condition.ExpressionAttributeValues,
        ':type': document.type,
        ':document': JSON.stringify(document),
        ':next': revision + 1,
        ':now': new Date().toISOString(),
        ...(generation ? { ':generation': generation } : {}),
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
 * So either the change sees the submission or the submission is refused: never both written.
 *
 * Closing is not enough on its own: a submission may have read the gradeable before the change
 * and write after it. So every gradeable has a generation (a random id, new at creation and at
 * every gated change), the gates keep the generation the last gated change wrote (`deleted` after
 * a deletion), and the check passes only for the generation the submission read. Gates never
 * written (no gated change yet) pass every generation; an upload of a new gradeable writes its
 * gates, so that nothing read from a deleted one of the same id passes.
 *
 * The gates are spread over a few items so that a deadline's first submissions do not all touch
 * one item (concurrent transactions on one item conflict). Gate items live beside the gradeables
 * under ids no gradeable can have (`#` is not allowed in one), without a document: every reader
 * of the table skips them (gradeablesOfCourse filters on the document).
 */
export const GRADEABLE_GATES = 8;

const gateId = (gradeableId: string, gate: number) => `${gradeableId}#gate#${gate}`;
const gateKeys = (term: string, course: string, gradeableId: string) =>
  Array.from({ length: GRADEABLE_GATES }, (_, gate) => key(term, course, gateId(gradeableId, gate)));

export const gateOf = (ownerId: string): number => createHash('sha256').update(ownerId).digest().readUInt8(0) % GRADEABLE_GATES;

/** How long a closed gate holds when its change never finishes (a crash between its steps). */
const GATE_HOLD_MS = 60_000;
/** What the gates of a deleted gradeable keep: no generation is this. */
const DELETED = 'deleted';

/**
 * The check a first submission or grade of `ownerId` adds to its transaction: its gate is open, and
 * the gradeable is still at the generation of `document` as read (read through this module).
 */
export function gateOpen(term: string, course: string, document: StoredGradeable, ownerId: string, now: Date): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(table),
      Key: key(term, course, gateId(document.id, gateOf(ownerId))),
      ConditionExpression:
        '(attribute_not_exists(closedUntil) OR closedUntil < :now) AND (attribute_not_exists(generation) OR generation = :generation)',
      ExpressionAttributeValues: { ':now': now.toISOString(), ':generation': generationOf(document) ?? NO_GENERATION },
    },
  };
}

/** A gate as a first submission or grade that failed at it finds it: a change holds it, or the gradeable moved on. */
export async function gateState<D extends StoredGradeable>(
  term: string,
  course: string,
  document: D,
  ownerId: string,
): Promise<{ closed: boolean; current: D | undefined }> {
  const { current, gate } = await getItems({
    current: gradeableRef<D>(term, course, document.id),
    gate: { table, key: key(term, course, gateId(document.id, gateOf(ownerId))), decode: (item) => item },
  });
  const closed = typeof gate?.closedUntil === 'string' && gate.closedUntil >= new Date().toISOString();
  return { closed, current };
}

/** Closes every gate of a gradeable for the change `token` (fails while another change holds them). */
export function closeGates(term: string, course: string, gradeableId: string, token: string, now: Date): TransactItem[] {
  return gateKeys(term, course, gradeableId).map((Key) => ({
    Update: {
      TableName: tableName(table),
      Key,
      UpdateExpression: 'SET closedUntil = :until, #token = :token',
      ConditionExpression: 'attribute_not_exists(closedUntil) OR closedUntil < :now',
      ExpressionAttributeNames: { '#token': 'token' },
      ExpressionAttributeValues: {
        ':now': now.toISOString(),
        ':until': new Date(now.getTime() + GATE_HOLD_MS).toISOString(),
        ':token': token,
      },
    },
  }));
}

/**
 * Opens the gates the change `token` closed: with the change's write, keeping the generation it
 * gives the gradeable (`deleted` for a deletion); alone, when it gives up, keeping theirs.
 */
export function openGates(term: string, course: string, gradeableId: string, token: string, generation?: string): TransactItem[] {
  return gateKeys(term, course, gradeableId).map((Key) => ({
    Update: {
      TableName: tableName(table),
      Key,
      UpdateExpression: `${generation ? 'SET generation = :generation ' : ''}REMOVE closedUntil, #token`,
      ConditionExpression: '#token = :token',
      ExpressionAttributeNames: { '#token': 'token' },
      ExpressionAttributeValues: { ':token': token, ...(generation ? { ':generation': generation } : {}) },
    },
  }));
}

/** The generation a deletion leaves on the gates. */
export const deletedGeneration = (): string => DELETED;

/** A new gradeable's gates, at its generation (whatever a deleted one of the same id left there). */
export function newGates(term: string, course: string, gradeableId: string, generation: string): TransactItem[] {
  return gateKeys(term, course, gradeableId).map((Key) => ({
    Put: { TableName: tableName(table), Item: { ...Key, generation } },
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
