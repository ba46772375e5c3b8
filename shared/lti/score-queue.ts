/**
 * The LTI score queue's messages and how they are written and sent. A `grade` message says a
 * student's (or team's) grade of a gradeable changed at `gradedAt`: it is written, as an outbox
 * entry, in the transaction of that change, and the outbox relay puts it on the queue; the
 * lti-score function then sends the grade the gradebook shows to every linked LMS course that
 * takes scores. An `attempt` message is one more try of one delivery, made once the delivery has
 * `after` attempts recorded (a copy of a message already acted on is recognised by that count).
 */
import { randomUUID } from 'node:crypto';
import type { Course } from '#shared/data/courses.ts';
import type { ScoreDelivery } from '#shared/data/lti-scores.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { outboxPut, type OutboxEntry } from '#shared/data/webhook-outbox.ts';
import type { TransactItem } from '#shared/data/transactions.ts';
import { describeRunningFunction, setting } from '#shared/environment.ts';
import { sendSqsMessage } from '#shared/sqs-send.ts';
import { replacedTotalsReach } from './scores.ts';

export type LtiScoreMessage =
  | {
      readonly kind: 'grade';
      readonly term: string;
      readonly course: string;
      readonly gradeableId: string;
      /** The student, or the team whose members' grades changed. */
      readonly ownerId: string;
      readonly gradedAt: string;
      /** The change's own id: two changes of one grade in the same millisecond are two messages (absent: one written before ids). */
      readonly changeId?: string;
    }
  | {
      readonly kind: 'attempt';
      readonly term: string;
      readonly course: string;
      readonly deliveryId: string;
      readonly after: number;
      /** Not before this time: a wait longer than the queue can delay a message goes round again. */
      readonly notBefore?: string;
    }
  | LtiPublishMessage
  | TotalsMessage;

/**
 * A `publish` message sends every current grade of a gradeable again (`POST …/lti/publish`): the
 * lti-score function expands it into one message per owner with a grade (`ownerId` set), each of
 * which claims that owner's deliveries for this publish (`publishId`), so a copy sends nothing twice.
 */
export interface LtiPublishMessage {
  readonly kind: 'publish';
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly publishId: string;
  /** When it was asked: the score's timestamp for a student no grade was sent for yet. */
  readonly requestedAt: string;
  /** One student or team: the expanded message's. */
  readonly ownerId?: string;
}

/**
 * The totals the gradebook shows may have changed at `changedAt` without a grade: through late
 * penalties (late days granted to `userId`, or, without it, the course's default), or a
 * gradeable's replacement (its points: `gradeableId`, that gradeable alone; its due date or late
 * days allowed: every gradeable). Every score sent to the linked LMS courses in scope is compared
 * with the total shown now and sent again, timestamped with the change, where it differs. A
 * course's deliveries are gone through a page per message, `after` the last entry of the page before.
 */
export interface TotalsMessage {
  /** `late-days`: the kind such a message had while late days were its only cause (one may still be queued). */
  readonly kind: 'totals' | 'late-days';
  /** What changed them, for the record (a `late-days` message has none: late days). */
  readonly cause?: TotalsCause;
  readonly term: string;
  readonly course: string;
  readonly userId?: string;
  readonly gradeableId?: string;
  readonly changedAt: string;
  /** The change's own id, as a grade message's. */
  readonly changeId?: string;
  readonly after?: string;
}

export type TotalsCause = 'late-days' | 'gradeable';

/** The outbox entries' queue name for LTI score messages (the others are the webhook queue's). */
export const LTI_SCORE_QUEUE = 'lti-scores';

/** The longest delay SQS can hold a message back; longer waits hop through the queue. */
const MAX_QUEUE_DELAY_SECONDS = 900;

type Sender = (message: LtiScoreMessage, delaySeconds: number) => Promise<void>;

let localSender: Sender | undefined;

export function useLocalLtiScoreQueue(sender: Sender | undefined): void {
  localSender = sender;
}

/** Queues a message, visible after `delaySeconds`, at most 15 minutes (SQS rounds up to whole seconds). */
export async function sendLtiScoreMessage(message: LtiScoreMessage, delaySeconds = 0): Promise<void> {
  const delay = Math.min(MAX_QUEUE_DELAY_SECONDS, delaySeconds);
  const queueUrl = setting('LTI_SCORE_QUEUE_URL');
  if (!queueUrl)
    throw new Error(`The LTI score queue is not in the environment of ${describeRunningFunction()}: LTI_SCORE_QUEUE_URL is not set.`);
  if (queueUrl.startsWith('local:')) {
    await localSender?.(message, delay);
    return;
  }
  await sendSqsMessage(queueUrl, JSON.stringify(message), Math.ceil(delay));
}

/** The outbox entry of a message, to write with the change that causes it, under `messageId` (writing it twice keeps one). */
export const ltiScoreEntry = (messageId: string, message: LtiScoreMessage, now: Date): OutboxEntry => ({
  messageId: `lti#${messageId}`,
  body: JSON.stringify(message),
  recordedAt: now.toISOString(),
  queue: LTI_SCORE_QUEUE,
});

/** Sends an outbox entry's message (the relay removes the entry once this returns). */
export const sendLtiScoreEntry = (entry: OutboxEntry): Promise<void> => sendLtiScoreMessage(JSON.parse(entry.body) as LtiScoreMessage);

/**
 * The outbox entry telling the LMS courses linked to `course` that totals changed at `changedAt`
 * (`cause`; of `userId` alone, or of `gradeableId` alone, when given), for the transaction of that
 * change; none while no linked LMS course takes scores.
 */
export function ltiTotalsOutbox(
  course: Pick<Course, 'term' | 'course' | 'ltiScoreLinks'> | undefined,
  change: { readonly cause: TotalsCause; readonly userId?: string; readonly gradeableId?: string; readonly changedAt: Date },
): TransactItem[] {
  if (!course || (course.ltiScoreLinks ?? 0) <= 0) return [];
  const message: TotalsMessage = {
    kind: 'totals',
    cause: change.cause,
    term: course.term,
    course: course.course,
    ...(change.userId === undefined ? {} : { userId: change.userId }),
    ...(change.gradeableId === undefined ? {} : { gradeableId: change.gradeableId }),
    changedAt: change.changedAt.toISOString(),
    changeId: randomUUID(),
  };
  return [
    outboxPut({ messageId: ltiMessageId(message), body: JSON.stringify(message), recordedAt: message.changedAt, queue: LTI_SCORE_QUEUE }),
  ];
}

/** Late days of `userId` (or, without it, the course's default) changed: ltiTotalsOutbox's entry. */
export const ltiLateDaysOutbox = (
  course: Pick<Course, 'term' | 'course' | 'ltiScoreLinks'> | undefined,
  change: { readonly userId?: string; readonly changedAt: Date },
): TransactItem[] => ltiTotalsOutbox(course, { cause: 'late-days', ...change });

/**
 * A course setting's change (shared/courses/settings.ts): the course's late days, checked again.
 * The time zone changes no total: every date is kept as an instant and days late are whole
 * 24-hour days past the due instant, so only how dates are shown moves.
 */
export const ltiSettingFollowUp = (name: string, current: Pick<Course, 'term' | 'course' | 'ltiScoreLinks'>, at: Date): TransactItem[] =>
  name === 'default_student_late_days' ? ltiLateDaysOutbox(current, { changedAt: at }) : [];

/**
 * A gradeable's replacement (shared/gradeables/change.ts), `before` and `after`: the totals it may
 * change (replacedTotalsReach) checked again, of that gradeable or of every gradeable.
 */
export function ltiGradeableFollowUp(
  course: Pick<Course, 'term' | 'course' | 'ltiScoreLinks'>,
  before: GradeableDocument,
  after: GradeableDocument,
  at: Date,
): TransactItem[] {
  const reach = replacedTotalsReach(before, after);
  if (reach === 'none') return [];
  return ltiTotalsOutbox(course, { cause: 'gradeable', ...(reach === 'gradeable' ? { gradeableId: after.id } : {}), changedAt: at });
}

/**
 * The outbox entry telling the LMS courses linked to `course` that the grade of `ownerId` (a
 * student or a team) changed at `gradedAt`, for the transaction of that change; none while no
 * linked LMS course takes scores (the course item counts them, so the writer needs no other read).
 */
export function ltiScoreOutbox(
  course: Pick<Course, 'term' | 'course' | 'ltiScoreLinks'> | undefined,
  grade: { readonly gradeableId: string; readonly ownerId: string; readonly gradedAt: Date },
): TransactItem[] {
  if (!course || (course.ltiScoreLinks ?? 0) <= 0) return [];
  const message: LtiScoreMessage = {
    kind: 'grade',
    term: course.term,
    course: course.course,
    gradeableId: grade.gradeableId,
    ownerId: grade.ownerId,
    gradedAt: grade.gradedAt.toISOString(),
    changeId: randomUUID(),
  };
  return [
    outboxPut({ messageId: ltiMessageId(message), body: JSON.stringify(message), recordedAt: message.gradedAt, queue: LTI_SCORE_QUEUE }),
  ];
}

/**
 * An outbox entry's id, unique per change: two changes of one owner's grade in the same millisecond
 * are two entries (built from the time alone, the second would overwrite the first, or come after
 * it was relayed and be taken for its copy, and its total never be sent). The relay still sends an
 * entry it failed to remove as the same message, which the lti-score function knows by its change id.
 */
export function ltiMessageId(message: Extract<LtiScoreMessage, { kind: 'grade' | 'totals' | 'late-days' }>): string {
  const parts =
    message.kind === 'grade'
      ? [message.term, message.course, message.gradeableId, message.ownerId, message.gradedAt]
      : message.kind === 'late-days'
        ? ['late-days', message.term, message.course, message.userId ?? null, message.changedAt]
        : ['totals', message.term, message.course, message.userId ?? null, message.gradeableId ?? null, message.changedAt];
  return `lti#${JSON.stringify([...parts, message.changeId ?? null])}`;
}

/**
 * The message of a pending delivery's next attempt (claimed and not tried yet, or waiting for its
 * retry), held back until its `nextAttemptAt`: how long, from `now`, as `delaySeconds`.
 */
export function scoreAttemptMessage(delivery: ScoreDelivery, now: Date): { message: LtiScoreMessage; delaySeconds: number } {
  return {
    message: {
      kind: 'attempt',
      term: delivery.term,
      course: delivery.course,
      deliveryId: delivery.deliveryId,
      after: delivery.attempts.length,
      ...(delivery.nextAttemptAt ? { notBefore: delivery.nextAttemptAt } : {}),
    },
    delaySeconds: Math.min(
      MAX_QUEUE_DELAY_SECONDS,
      delivery.nextAttemptAt ? Math.max(0, (Date.parse(delivery.nextAttemptAt) - now.getTime()) / 1000) : 0,
    ),
  };
}
