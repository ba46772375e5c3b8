/**
 * What an instructor sees and does of grade passback (shared/gradebook/lti-scores.ts sends the
 * grades): the course's score deliveries listed a page at a time, one delivery replayed, and every
 * current grade of a gradeable published again. A replay or a publish is written as an outbox
 * entry (with the delivery it restarts, for a replay) and queued at once; the outbox relay queues
 * it later when the queue refuses it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Course } from '#shared/data/courses.ts';
import { getItems } from '#shared/data/items.ts';
import { ltiLinksOfCourse } from '#shared/data/lti.ts';
import {
  parseScoreDeliveryId,
  scoreDeliveriesPage,
  scoreDeliveryPut,
  scoreDeliveryRef,
  type ScoreDelivery,
  type ScoreDeliveryState,
} from '#shared/data/lti-scores.ts';
import { submissionsOfGradeable } from '#shared/data/submissions.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { outboxPut } from '#shared/data/webhook-outbox.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import { isValidGradeableId } from '#shared/ids.ts';
import { encodeCursor, readPageRequest, takeWithin } from '#shared/paging.ts';
import { sendEntry } from '#shared/webhooks/publish.ts';
import { badScoreDeliveryState, scoreDeliveryChanged, scoreDeliveryNotFound, scoreDeliveryPending, scoresNotLinked } from './failures.ts';
import { ltiScoreEntry, sendLtiScoreEntry, type LtiScoreMessage } from './score-queue.ts';
import { hasGradeToPublish, replayedDelivery, replayRefusal, SCORE_DELIVERIES_PAGE, SCORE_DELIVERY_STATES, takesScores } from './scores.ts';

/** A delivery as the API answers it: never the LMS's token, nor the student's id at the LMS. */
export const scoreDeliveryRecord = (delivery: ScoreDelivery) => {
  const last = delivery.attempts.at(-1);
  const sent = delivery.lastSent;
  return {
    delivery_id: delivery.deliveryId,
    gradeable_id: delivery.gradeableId,
    user_id: delivery.userId,
    owner_id: delivery.ownerId,
    registration_id: delivery.registrationId,
    context_id: delivery.contextId,
    state: delivery.state,
    reason: delivery.reason,
    graded_at: delivery.gradedAt,
    attempts: delivery.attempts.length,
    last_attempt: last ? { at: last.at, status: last.status, message: last.error ?? null } : null,
    next_attempt_at: delivery.nextAttemptAt,
    sent: sent
      ? {
          score_given: sent.scoreGiven ?? null,
          score_maximum: sent.scoreMaximum ?? null,
          activity_progress: sent.activityProgress,
          grading_progress: sent.gradingProgress,
          timestamp: sent.timestamp,
        }
      : null,
    updated_at: delivery.updatedAt,
  };
};

/** `GET …/lti/scores`: one page of the course's deliveries, of one gradeable and in one state when asked. */
export async function listScoreDeliveries(
  course: Pick<Course, 'term' | 'course'>,
  query: {
    readonly state?: string | undefined;
    readonly gradeable_id?: string | undefined;
    readonly page_size?: string | undefined;
    readonly cursor?: string | undefined;
  },
) {
  const { state, gradeable_id: gradeableId } = query;
  if (state !== undefined && !(SCORE_DELIVERY_STATES as readonly string[]).includes(state)) throw badScoreDeliveryState();
  if (gradeableId !== undefined && !isValidGradeableId(gradeableId)) throw invalidGradeableId({ gradeable_id: gradeableId });
  const request = readPageRequest(query, {
    list: 'score delivery list',
    defaultSize: SCORE_DELIVERIES_PAGE,
    keys: 1,
    // A cursor names a delivery of the list it came from: of the gradeable asked for, if any.
    accepts: ([deliveryId]) => {
      const id = deliveryId === undefined ? undefined : parseScoreDeliveryId(deliveryId);
      return id !== undefined && (gradeableId === undefined || id.gradeableId === gradeableId);
    },
  });
  const { deliveries, more } = await scoreDeliveriesPage(course.term, course.course, {
    size: request.size,
    ...(request.after ? { after: request.after[0] } : {}),
    ...(gradeableId === undefined ? {} : { gradeableId }),
    ...(state === undefined ? {} : { state: state as ScoreDeliveryState }),
  });
  const shown = takeWithin(deliveries.map(scoreDeliveryRecord));
  const last = shown.at(-1);
  const cut = shown.length < deliveries.length;
  return { items: shown, next: (more || cut) && last ? encodeCursor([last.delivery_id]) : null };
}

/**
 * `POST …/lti/scores/{delivery_id}/replay`: the delivery, pending again in a new round, with its
 * next try's message in the same transaction, both only while it is as read (a try ending
 * meanwhile makes the replay a clear conflict, never an undone result).
 */
export async function replayScoreDelivery(course: Pick<Course, 'term' | 'course'>, deliveryId: string, now = new Date()) {
  const id = parseScoreDeliveryId(deliveryId);
  const { delivery } = id ? await getItems({ delivery: scoreDeliveryRef(course.term, course.course, id) }) : { delivery: undefined };
  if (!delivery) throw scoreDeliveryNotFound({ delivery_id: deliveryId });
  if (replayRefusal(delivery, now)) throw scoreDeliveryPending();
  const next = replayedDelivery(delivery, now);
  const message: LtiScoreMessage = {
    kind: 'attempt',
    term: next.term,
    course: next.course,
    deliveryId: next.deliveryId,
    after: next.attempts.length,
  };
  // A delivery id may be long: the entry is named by its digest and the tries it had.
  const digest = createHash('sha256').update(next.deliveryId).digest('base64url');
  const entry = ltiScoreEntry(`replay#${course.term}#${course.course}#${digest}#${next.attempts.length}`, message, now);
  try {
    await transactWrite([scoreDeliveryPut(next, delivery), outboxPut(entry)]);
  } catch (error) {
    if (failedConditions(error).includes(0)) throw scoreDeliveryChanged();
    throw error;
  }
  await sendEntry(entry, sendLtiScoreEntry);
  return scoreDeliveryRecord(next);
}

/**
 * `POST …/gradeable/{gradeable_id}/lti/publish`: every current grade of the gradeable sent again to
 * every linked LMS course taking scores, as one message the lti-score function expands per
 * student or team. Answers how many were queued; writes nothing while no linked course takes scores.
 */
export async function publishGradeable(
  course: Pick<Course, 'term' | 'course'>,
  gradeableId: string,
  gradeable: GradeableDocument | undefined,
  now = new Date(),
) {
  if (!gradeable) throw invalidGradeableId({ gradeable_id: gradeableId });
  const links = (await ltiLinksOfCourse(course.term, course.course)).filter(takesScores);
  if (links.length === 0) throw scoresNotLinked();
  const owners = (await submissionsOfGradeable(course.term, course.course, gradeableId)).filter(hasGradeToPublish).length;
  const answer = {
    gradeable_id: gradeableId,
    team_gradeable: Boolean(gradeable.team_gradeable),
    queued: owners,
    lms_courses: links.length,
  };
  if (owners === 0) return answer;
  const publishId = `lp_${randomBytes(16).toString('base64url')}`;
  const message: LtiScoreMessage = {
    kind: 'publish',
    term: course.term,
    course: course.course,
    gradeableId,
    publishId,
    requestedAt: now.toISOString(),
  };
  const entry = ltiScoreEntry(`publish#${publishId}`, message, now);
  await transactWrite([outboxPut(entry)]);
  await sendEntry(entry, sendLtiScoreEntry);
  return answer;
}
