/**
 * Grade passback items of the `lti` table (shared/lti/scores.ts has the rules): each student's
 * `sub` at an issuer (the reverse of the people binding, written with it at every launch), each
 * delivery of a grade to one LMS line item for one student, and the line item found or created
 * for a gradeable in a linked LMS course.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { dynamo } from './client.ts';
import { getItems, type Item, type ItemRef } from './items.ts';
import { scanAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.lti;

const SUBJECTS = 'subject';

/** The `sub` a user launched with from an issuer (the latest launch's, when several bound them). */
export const ltiSubjectRef = (issuer: string, userId: string): ItemRef<{ subject: string }> => ({
  table,
  key: { key: `${SUBJECTS}#${issuer}`, entry: userId },
  decode: (item) => ({ subject: item.subject as string }),
});

/** Records the user's `sub` at the issuer, in the launch's transaction that binds them. */
export const recordLtiSubject = (person: { issuer: string; subject: string; userId: string }): TransactItem => ({
  Put: { TableName: tableName(table), Item: { key: `${SUBJECTS}#${person.issuer}`, entry: person.userId, subject: person.subject } },
});

export type ScoreDeliveryState = 'pending' | 'sent' | 'failed' | 'skipped';

/** One try of a score delivery: the platform's HTTP status (null: no answer) and what it said. */
export interface ScoreAttempt {
  readonly at: string;
  readonly status: number | null;
  readonly error?: string;
  /** The wait before the next try, when one follows: the schedule's, or the platform's Retry-After when longer. */
  readonly retryInSeconds?: number;
}

/** The score body as last sent (application/vnd.ims.lis.v1.score+json). */
export interface SentScore {
  readonly userId: string;
  /** Absent (with `scoreMaximum`) when the grading failed: no score, which the platform clears. */
  readonly scoreGiven?: number;
  readonly scoreMaximum?: number;
  readonly activityProgress: string;
  readonly gradingProgress: string;
  readonly timestamp: string;
}

/** A student's grade of a gradeable on its way to one linked LMS course. */
export interface ScoreDelivery {
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly userId: string;
  /** Whose submission the grade is of: the student, or their team. */
  readonly ownerId: string;
  readonly registrationId: string;
  readonly contextId: string;
  /** `ls_` and the entry, base64url: stable for the delivery's whole life. */
  readonly deliveryId: string;
  readonly state: ScoreDeliveryState;
  /** The time of the grade this delivery carries: the score's `timestamp`. */
  readonly gradedAt: string;
  /** The changes at `gradedAt` it carries (shared/lti/scores.ts's gradeStanding): a copy of one is not sent again. */
  readonly changeIds: readonly string[];
  /** Why it was skipped or failed. */
  readonly reason: string | null;
  readonly attempts: readonly ScoreAttempt[];
  /** Attempts made before the current round (a new grade or a replay starts a new round). */
  readonly roundStart: number;
  readonly lastSent: SentScore | null;
  readonly nextAttemptAt: string | null;
  readonly updatedAt: string;
  /** The last publish of the gradeable (`POST …/lti/publish`) that claimed it: a copy of that publish's message sends nothing again. */
  readonly publishId?: string;
}

const SCORES = 'scores';
const scoresKey = (term: string, course: string) => `${SCORES}#${term}#${course}`;
const deliveryEntry = (delivery: Pick<ScoreDelivery, 'gradeableId' | 'userId' | 'registrationId' | 'contextId'>) =>
  JSON.stringify([delivery.gradeableId, delivery.userId, delivery.registrationId, delivery.contextId]);

/** A delivery's id: its entry, so that an id names exactly one (link, gradeable, student). */
export const scoreDeliveryId = (delivery: Pick<ScoreDelivery, 'gradeableId' | 'userId' | 'registrationId' | 'contextId'>): string =>
  `ls_${Buffer.from(deliveryEntry(delivery)).toString('base64url')}`;

/** The delivery an id names, when it is one this API gave out. */
export function parseScoreDeliveryId(
  deliveryId: string,
): Pick<ScoreDelivery, 'gradeableId' | 'userId' | 'registrationId' | 'contextId'> | undefined {
  if (!deliveryId.startsWith('ls_')) return undefined;
  try {
    const parts = JSON.parse(Buffer.from(deliveryId.slice(3), 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(parts) || parts.length !== 4 || parts.some((part) => typeof part !== 'string')) return undefined;
    const [gradeableId = '', userId = '', registrationId = '', contextId = ''] = parts as string[];
    return { gradeableId, userId, registrationId, contextId };
  } catch {
    return undefined;
  }
}

const decodeDelivery = (item: Item): ScoreDelivery => ({
  term: item.term as string,
  course: item.course as string,
  gradeableId: item.gradeableId as string,
  userId: item.userId as string,
  ownerId: (item.ownerId as string | undefined) ?? (item.userId as string),
  registrationId: item.registrationId as string,
  contextId: item.contextId as string,
  deliveryId: item.deliveryId as string,
  state: item.state as ScoreDeliveryState,
  gradedAt: item.gradedAt as string,
  changeIds: (item.changeIds as string[] | undefined) ?? [],
  reason: (item.reason as string | null | undefined) ?? null,
  attempts: (item.attempts as ScoreAttempt[] | undefined) ?? [],
  roundStart: (item.roundStart as number | undefined) ?? 0,
  lastSent: (item.lastSent as SentScore | null | undefined) ?? null,
  nextAttemptAt: (item.nextAttemptAt as string | null | undefined) ?? null,
  updatedAt: item.updatedAt as string,
  ...(typeof item.publishId === 'string' ? { publishId: item.publishId } : {}),
});

export const scoreDeliveryRef = (
  term: string,
  course: string,
  delivery: Pick<ScoreDelivery, 'gradeableId' | 'userId' | 'registrationId' | 'contextId'>,
): ItemRef<ScoreDelivery> => ({
  table,
  key: { key: scoresKey(term, course), entry: deliveryEntry(delivery) },
  decode: decodeDelivery,
});

/**
 * Writes the delivery as `next`, only while the stored one is as `seen` was read (its attempts,
 * grade time, state and changes: its revision), or, `seen` being undefined, while none is stored. False when another
 * writer changed it first: that one acts on it.
 */
export async function putScoreDelivery(next: ScoreDelivery, seen: ScoreDelivery | undefined): Promise<boolean> {
  try {
    await dynamo().send(new PutCommand(deliveryPut(next, seen)));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

const deliveryPut = (next: ScoreDelivery, seen: ScoreDelivery | undefined) => ({
  TableName: tableName(table),
  Item: { key: scoresKey(next.term, next.course), entry: deliveryEntry(next), ...next },
  ...(seen
    ? {
        ConditionExpression:
          'size(attempts) = :attempts AND gradedAt = :gradedAt AND #state = :state AND ' +
          (seen.changeIds.length === 0 ? '(attribute_not_exists(changeIds) OR size(changeIds) = :changes)' : 'size(changeIds) = :changes'),
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':attempts': seen.attempts.length,
          ':gradedAt': seen.gradedAt,
          ':state': seen.state,
          ':changes': seen.changeIds.length,
        },
      }
    : { ConditionExpression: 'attribute_not_exists(entry)' }),
});

/** `putScoreDelivery`'s write, for a transaction (a replay writes its try's outbox entry with it). */
export const scoreDeliveryPut = (next: ScoreDelivery, seen: ScoreDelivery | undefined): TransactItem => ({ Put: deliveryPut(next, seen) });

/** The course's deliveries, in the order of their entries (gradeable, then student), every page. */
export async function scoreDeliveriesOf(term: string, course: string): Promise<ScoreDelivery[]> {
  const deliveries: ScoreDelivery[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(table),
        KeyConditionExpression: '#key = :key',
        ExpressionAttributeNames: { '#key': 'key' },
        ExpressionAttributeValues: { ':key': scoresKey(term, course) },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    deliveries.push(...(page.Items ?? []).map(decodeDelivery));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return deliveries;
}

/**
 * One page of the course's deliveries, in the order of their entries (gradeable, then student),
 * after the delivery `after` (an id), of one gradeable and in one state when asked; `more` when
 * another page may follow.
 */
export async function scoreDeliveriesPage(
  term: string,
  course: string,
  options: { size: number; after?: string; gradeableId?: string; state?: ScoreDeliveryState },
): Promise<{ deliveries: ScoreDelivery[]; more: boolean }> {
  const key = scoresKey(term, course);
  const after = options.after === undefined ? undefined : parseScoreDeliveryId(options.after);
  const found: ScoreDelivery[] = [];
  let startKey: Record<string, unknown> | undefined = after ? { key, entry: deliveryEntry(after) } : undefined;
  const names: Record<string, string> = { '#key': 'key' };
  const values: Record<string, unknown> = { ':key': key };
  let condition = '#key = :key';
  if (options.gradeableId !== undefined) {
    // An entry is a JSON list whose first string is the gradeable id.
    condition += ' AND begins_with(#entry, :gradeable)';
    names['#entry'] = 'entry';
    values[':gradeable'] = `${JSON.stringify([options.gradeableId]).slice(0, -1)},`;
  }
  if (options.state !== undefined) {
    names['#state'] = 'state';
    values[':state'] = options.state;
  }
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(table),
        KeyConditionExpression: condition,
        ...(options.state !== undefined ? { FilterExpression: '#state = :state' } : {}),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        // One more than the page, to know whether another follows.
        Limit: options.size + 1 - found.length,
        ExclusiveStartKey: startKey,
      }),
    );
    found.push(...(page.Items ?? []).map(decodeDelivery));
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length <= options.size);
  return { deliveries: found.slice(0, options.size), more: found.length > options.size };
}

/**
 * One page of the course's deliveries (of `userId` alone, of `gradeableId` alone, when given), in
 * the order of their entries from after the entry `after`; `next`, the last entry read, when more may follow.
 */
export async function scoreDeliveriesFrom(
  term: string,
  course: string,
  page: {
    readonly userId?: string | undefined;
    readonly gradeableId?: string | undefined;
    readonly after?: string | undefined;
    readonly limit: number;
  },
): Promise<{ deliveries: ScoreDelivery[]; next?: string }> {
  const names: Record<string, string> = { '#key': 'key' };
  const values: Record<string, unknown> = { ':key': scoresKey(term, course) };
  let condition = '#key = :key';
  if (page.gradeableId !== undefined) {
    // An entry is a JSON list whose first string is the gradeable id.
    condition += ' AND begins_with(#entry, :gradeable)';
    names['#entry'] = 'entry';
    values[':gradeable'] = `${JSON.stringify([page.gradeableId]).slice(0, -1)},`;
  }
  if (page.userId !== undefined) values[':userId'] = page.userId;
  const read = await dynamo().send(
    new QueryCommand({
      TableName: tableName(table),
      KeyConditionExpression: condition,
      ...(page.userId === undefined ? {} : { FilterExpression: 'userId = :userId' }),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ConsistentRead: true,
      Limit: page.limit,
      ...(page.after === undefined ? {} : { ExclusiveStartKey: { key: scoresKey(term, course), entry: page.after } }),
    }),
  );
  const last = read.LastEvaluatedKey?.entry;
  return { deliveries: (read.Items ?? []).map(decodeDelivery), ...(typeof last === 'string' ? { next: last } : {}) };
}

/** Every course's deliveries still `pending` (the local API's restart requeues their next attempts; one paged scan). */
export async function pendingScoreDeliveries(): Promise<ScoreDelivery[]> {
  const items = await scanAll({
    TableName: tableName(table),
    ConsistentRead: true,
    FilterExpression: 'begins_with(#key, :scores) AND #state = :pending',
    ExpressionAttributeNames: { '#key': 'key', '#state': 'state' },
    ExpressionAttributeValues: { ':scores': `${SCORES}#`, ':pending': 'pending' },
  });
  return items.map(decodeDelivery);
}

const LINE_ITEMS = 'lineitem';

/** Where a gradeable's line item in a linked LMS course stands: its URL once found or created, else who is creating it and until when. */
export interface LineItemRecord {
  readonly url?: string;
  /** The line item's `scoreMaximum` as last created, found or set by the tool (absent: not known). */
  readonly scoreMaximum?: number;
  readonly creatingUntil?: string;
}

const lineItemKey = (registrationId: string, contextId: string, gradeableId: string) => ({
  key: `${LINE_ITEMS}#${registrationId}#${contextId}`,
  entry: gradeableId,
});

/** The line item a gradeable has in a linked LMS course, once found or created (or being created). */
export const lineItemRef = (registrationId: string, contextId: string, gradeableId: string): ItemRef<LineItemRecord> => ({
  table,
  key: lineItemKey(registrationId, contextId, gradeableId),
  decode: (item) => ({
    ...(typeof item.url === 'string' ? { url: item.url } : {}),
    ...(typeof item.scoreMaximum === 'number' ? { scoreMaximum: item.scoreMaximum } : {}),
    ...(typeof item.creatingUntil === 'string' ? { creatingUntil: item.creatingUntil } : {}),
  }),
});

/**
 * Claims the creation of a gradeable's line item for `holder` until `until`: only while no URL is
 * recorded and nobody else's claim holds, so that sends for several students at once create one
 * line item in the LMS, not one each. False: another holds it (or the URL is recorded).
 */
export async function claimLineItemCreation(
  registrationId: string,
  contextId: string,
  gradeableId: string,
  claim: { holder: string; until: Date; now: Date },
): Promise<boolean> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(table),
        Item: {
          ...lineItemKey(registrationId, contextId, gradeableId),
          creatingHolder: claim.holder,
          creatingUntil: claim.until.toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(entry) OR (attribute_not_exists(#url) AND creatingUntil < :now)',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':now': claim.now.toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Gives up a creation claim that created nothing (the LMS refused), so the next try need not wait for it to run out. */
export async function releaseLineItemClaim(registrationId: string, contextId: string, gradeableId: string, holder: string): Promise<void> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(table),
        Item: { ...lineItemKey(registrationId, contextId, gradeableId), creatingHolder: holder, creatingUntil: new Date(0).toISOString() },
        ConditionExpression: 'creatingHolder = :holder AND attribute_not_exists(#url)',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':holder': holder },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** A gradeable's line item as recorded: its URL, and its `scoreMaximum` when known. */
export type RecordedLineItem = { readonly url: string } & Pick<LineItemRecord, 'scoreMaximum'>;

/**
 * Records a gradeable's line item (with its `scoreMaximum`, when known) and answers the one
 * recorded: the first found or created stays.
 */
export async function rememberLineItem(
  registrationId: string,
  contextId: string,
  gradeableId: string,
  url: string,
  scoreMaximum?: number,
): Promise<RecordedLineItem> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(table),
        Item: { ...lineItemKey(registrationId, contextId, gradeableId), url, ...(scoreMaximum === undefined ? {} : { scoreMaximum }) },
        ConditionExpression: 'attribute_not_exists(#url)',
        ExpressionAttributeNames: { '#url': 'url' },
      }),
    );
    return { url, ...(scoreMaximum === undefined ? {} : { scoreMaximum }) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const { recorded } = await getItems({ recorded: lineItemRef(registrationId, contextId, gradeableId) });
    if (!recorded?.url) return { url };
    return { url: recorded.url, ...(recorded.scoreMaximum === undefined ? {} : { scoreMaximum: recorded.scoreMaximum }) };
  }
}

/**
 * Records the `scoreMaximum` the tool set on the gradeable's recorded line item, provided the
 * record still names that line item (`url`).
 */
export async function rememberLineItemMaximum(
  registrationId: string,
  contextId: string,
  gradeableId: string,
  recorded: { readonly url: string; readonly scoreMaximum: number },
): Promise<void> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(table),
        Item: { ...lineItemKey(registrationId, contextId, gradeableId), url: recorded.url, scoreMaximum: recorded.scoreMaximum },
        ConditionExpression: '#url = :url',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':url': recorded.url },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
