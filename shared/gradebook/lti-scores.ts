/**
 * Grade passback to the linked LMS courses (LTI Assignment and Grade Services 2.0), the gradebook's
 * export to an LMS: per message of the LTI score queue, the grade the gradebook shows for a
 * student and gradeable is sent, as a score, to the gradeable's line item in each linked LMS course
 * that takes scores. One delivery per (link, gradeable, student) keeps its state, attempts and the
 * score last sent; what is sent is computed when it is sent, its `timestamp` the grade's own time.
 */
import { randomUUID } from 'node:crypto';
import { config } from '#shared/config.ts';
import { courseRef, type Course } from '#shared/data/courses.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems } from '#shared/data/items.ts';
import { ltiContextLinkRef, ltiLinksOfCourse, ltiRegistrationRef, type LtiContextLink } from '#shared/data/lti.ts';
import {
  claimLineItemCreation,
  lineItemRef,
  ltiSubjectRef,
  parseScoreDeliveryId,
  putScoreDelivery,
  releaseLineItemClaim,
  rememberLineItem,
  rememberLineItemMaximum,
  scoreDeliveriesFrom,
  scoreDeliveryId,
  scoreDeliveryRef,
  type ScoreAttempt,
  type ScoreDelivery,
  type SentScore,
} from '#shared/data/lti-scores.ts';
import { submissionRef, submissionsOfGradeable } from '#shared/data/submissions.ts';
import { teamRef } from '#shared/data/teams.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeableRef, gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { logger } from '#shared/logger.ts';
import type { PlatformAnswer, ScorePlatform as Platform, ScoreRequest } from '#shared/lti/score-platform.ts';
import { sendLtiScoreMessage, type LtiPublishMessage, type LtiScoreMessage, type TotalsMessage } from '#shared/lti/score-queue.ts';
import {
  answerMeaning,
  changeIdsWith,
  gradeStanding,
  LINE_ITEM_MEDIA_TYPE,
  LINE_ITEMS_MEDIA_TYPE,
  platformMessage,
  retryDelaySeconds,
  SCORE_MEDIA_TYPE,
  scoreDiffers,
  scoreOf,
  scoresUrl,
  hasGradeToPublish,
  lineItemMaximumStale,
  platformTook,
  takesScores,
  totalsTouch,
  type AnswerMeaning,
  type GradeShown,
} from '#shared/lti/scores.ts';
import { isTaGraded, taComplete } from '#shared/tagrading/grade.ts';
import { gradebookRowsOf, maxPoints } from './course-gradebook.ts';

type GradeMessage = Extract<LtiScoreMessage, { kind: 'grade' }>;
type AttemptMessage = Extract<LtiScoreMessage, { kind: 'attempt' }>;
type OwnerPublishMessage = LtiPublishMessage & { readonly ownerId: string };

/** How many messages a publish's expansion sends at once. */
const PUBLISH_SENDS_AT_ONCE = 10;

/** What became of a message. */
export type ScoreOutcome = 'no-links' | 'gone' | 'handled' | 'done-before' | 'waiting' | ScoreDelivery['state'];

/**
 * Acts on one message of the LTI score queue. `receiveCount` above 1: an earlier try of this very
 * message failed part-way, so a delivery it claimed without trying is tried now. Throws when the
 * data or the queue fails: the message then comes back.
 */
export async function handleLtiScoreMessage(
  message: LtiScoreMessage,
  receiveCount: number,
  platform: Platform,
  now = new Date(),
): Promise<ScoreOutcome> {
  switch (message.kind) {
    case 'grade':
      return fanOut(message, (link, userId) => claim(link, message, userId, receiveCount, now), platform);
    case 'attempt':
      return attemptAgain(message, platform, now);
    case 'publish': {
      const { ownerId } = message;
      if (ownerId === undefined) return expandPublish(message);
      return fanOut(
        { ...message, ownerId },
        (link, userId) => claimForPublish(link, { ...message, ownerId }, userId, receiveCount, now),
        platform,
      );
    }
    case 'totals':
    case 'late-days':
      return totalsChanged(message, receiveCount, platform, now);
  }
}

/**
 * A publish of a gradeable, expanded: one message per student or team holding a grade (a copy of
 * this message queues them again, and each recognises the deliveries it claimed already).
 */
async function expandPublish(message: LtiPublishMessage): Promise<ScoreOutcome> {
  const { term, course, gradeableId } = message;
  if ((await ltiLinksOfCourse(term, course)).filter(takesScores).length === 0) return 'no-links';
  const { gradeable } = await getItems({ gradeable: gradeableRef(term, course, gradeableId) });
  if (!gradeable) return 'gone';
  const owners = (await submissionsOfGradeable(term, course, gradeableId)).filter(hasGradeToPublish).map((item) => item.ownerId);
  // Several sends at a time, so that a class of thousands is queued well within the function's minute.
  for (let start = 0; start < owners.length; start += PUBLISH_SENDS_AT_ONCE) {
    const batch = owners.slice(start, start + PUBLISH_SENDS_AT_ONCE);
    await Promise.all(batch.map((ownerId) => sendLtiScoreMessage({ ...message, ownerId })));
  }
  return 'handled';
}

/**
 * One delivery per linked LMS course taking scores and student (each member of a team), each
 * claimed (for a grade, or for a publish) and tried.
 */
async function fanOut(
  message: Pick<GradeMessage, 'term' | 'course' | 'gradeableId' | 'ownerId'>,
  claimed: (link: LtiContextLink, userId: string) => Promise<ScoreDelivery | undefined>,
  platform: Platform,
): Promise<ScoreOutcome> {
  const { term, course, gradeableId, ownerId } = message;
  const links = (await ltiLinksOfCourse(term, course)).filter(takesScores);
  if (links.length === 0) return 'no-links';
  const { gradeable } = await getItems({ gradeable: gradeableRef(term, course, gradeableId) });
  if (!gradeable) return 'gone';
  const members = gradeable.team_gradeable
    ? ((await getItems({ team: teamRef(term, course, gradeableId, ownerId) })).team?.members ?? [])
    : [ownerId];
  for (const link of links) {
    for (const userId of members) {
      const delivery = await claimed(link, userId);
      if (delivery) await attempt(delivery, platform, new Date());
    }
  }
  return 'handled';
}

/** The deliveries a totals message looks at per message: the next page is a message of its own. */
export const TOTALS_PAGE = 25;

/**
 * A page of the deliveries a change of totals may have changed (totalsTouch): each whose score
 * the gradebook shows now differs from the one last sent is claimed for the change, with its time,
 * and tried; then the next page's message is queued. A copy of the message finds each claimed
 * already (or its score sent) and sends nothing.
 */
async function totalsChanged(message: TotalsMessage, receiveCount: number, platform: Platform, now: Date): Promise<ScoreOutcome> {
  const { term, course: code, changedAt } = message;
  const links = (await ltiLinksOfCourse(term, code)).filter(takesScores);
  if (links.length === 0) return 'no-links';
  const { course } = await getItems({ course: courseRef(term, code) });
  if (!course) return 'gone';
  const linked = new Set(links.map((link) => `${link.registrationId} ${link.contextId}`));
  const page = await scoreDeliveriesFrom(term, code, {
    userId: message.userId,
    gradeableId: message.gradeableId,
    after: message.after,
    limit: TOTALS_PAGE,
  });
  const touched = page.deliveries.filter((delivery) => totalsTouch(message, delivery, linked));
  const documents = touched.length > 0 ? await gradeablesOfCourse(term, code) : [];
  for (const delivery of touched) {
    const gradeable = documents.find((document) => document.id === delivery.gradeableId);
    if (!gradeable || !delivery.lastSent) continue;
    const { member } = await getItems({ member: enrollmentRef(term, code, delivery.userId) });
    const grade = await gradeShown(course, gradeable, delivery, member?.registrationSection ?? '', now, documents);
    if (!scoreDiffers(delivery.lastSent, scoreOf(grade, delivery.lastSent.userId, changedAt))) continue;
    const change: GradeMessage = {
      ...(message.changeId === undefined ? {} : { changeId: message.changeId }),
      kind: 'grade',
      term,
      course: code,
      gradeableId: delivery.gradeableId,
      ownerId: delivery.ownerId,
      gradedAt: changedAt,
    };
    const claimed = await claim(delivery, change, delivery.userId, receiveCount, now);
    if (claimed) await attempt(claimed, platform, new Date());
  }
  if (page.next !== undefined) await sendLtiScoreMessage({ ...message, after: page.next });
  return 'handled';
}

/**
 * The delivery of this grade, claimed for it: written `pending` with the grade's time and change,
 * only while the stored one carries an older grade (or none is stored), or another change of the
 * same millisecond. Undefined when it carries this change already (a copy of the message) or a
 * newer grade: that message sends the grade. When another writer changed it in between, it is read
 * again: the other may have computed its total before this change was written.
 */
async function claim(
  link: Pick<LtiContextLink, 'registrationId' | 'contextId'>,
  message: GradeMessage,
  userId: string,
  receiveCount: number,
  now: Date,
): Promise<ScoreDelivery | undefined> {
  const id = { gradeableId: message.gradeableId, userId, registrationId: link.registrationId, contextId: link.contextId };
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    const { seen } = await getItems({ seen: scoreDeliveryRef(message.term, message.course, id) });
    const standing = gradeStanding(seen, message);
    if (standing === 'older') return undefined;
    if (seen && standing === 'same') return untriedRetry(seen, receiveCount);
    const next = claimedRound(seen, message, id, now, {
      gradedAt: message.gradedAt,
      changeIds: changeIdsWith(seen, message),
      ...(seen?.publishId === undefined ? {} : { publishId: seen.publishId }),
    });
    if (await putScoreDelivery(next, seen)) return next;
  }
  throw new Error(`Could not claim the delivery of ${message.gradeableId} for ${userId}: too much contention`);
}

/**
 * The delivery claimed for a publish: written `pending` in a new round, carrying the grade it last
 * carried (a student none was sent for yet: the time of the publish), only while it is as read.
 * Undefined when this publish claimed it already (a copy of the message) or another writer changed it.
 */
async function claimForPublish(
  link: LtiContextLink,
  message: OwnerPublishMessage,
  userId: string,
  receiveCount: number,
  now: Date,
): Promise<ScoreDelivery | undefined> {
  const id = { gradeableId: message.gradeableId, userId, registrationId: link.registrationId, contextId: link.contextId };
  const { seen } = await getItems({ seen: scoreDeliveryRef(message.term, message.course, id) });
  if (seen?.publishId === message.publishId) return untriedRetry(seen, receiveCount);
  const next = claimedRound(seen, message, id, now, {
    gradedAt: seen?.gradedAt ?? message.requestedAt,
    changeIds: seen?.changeIds ?? [],
    publishId: message.publishId,
  });
  return (await putScoreDelivery(next, seen)) ? next : undefined;
}

/**
 * A delivery this very message claimed already: tried now when an earlier receive of the message
 * (`receiveCount` above 1) failed before trying it; otherwise nothing, as that receive acts on it.
 */
const untriedRetry = (seen: ScoreDelivery, receiveCount: number): ScoreDelivery | undefined =>
  receiveCount > 1 && seen.state === 'pending' && seen.attempts.length === seen.roundStart ? seen : undefined;

/**
 * The delivery as a claim writes it: `pending` in a new round for `claim`'s grade, keeping the
 * attempts and the score last sent of the one read (`seen`, or none).
 */
function claimedRound(
  seen: ScoreDelivery | undefined,
  message: Pick<GradeMessage, 'term' | 'course' | 'ownerId'>,
  id: Pick<ScoreDelivery, 'gradeableId' | 'userId' | 'registrationId' | 'contextId'>,
  now: Date,
  claim: Pick<ScoreDelivery, 'gradedAt' | 'changeIds' | 'publishId'>,
): ScoreDelivery {
  return {
    term: message.term,
    course: message.course,
    ...id,
    ownerId: message.ownerId,
    deliveryId: scoreDeliveryId(id),
    state: 'pending',
    ...claim,
    reason: null,
    attempts: seen?.attempts ?? [],
    roundStart: seen?.attempts.length ?? 0,
    lastSent: seen?.lastSent ?? null,
    nextAttemptAt: null,
    updatedAt: now.toISOString(),
  };
}

/** Tries of a claim whose delivery other writers keep changing (the message comes back after the last). */
const CLAIM_ROUNDS = 5;

async function attemptAgain(message: AttemptMessage, platform: Platform, now: Date): Promise<ScoreOutcome> {
  const id = parseScoreDeliveryId(message.deliveryId);
  if (!id) return 'gone';
  const { delivery } = await getItems({ delivery: scoreDeliveryRef(message.term, message.course, id) });
  if (!delivery) return 'gone';
  if (delivery.state !== 'pending' || delivery.attempts.length !== message.after) return 'done-before';
  if (message.notBefore && Date.parse(message.notBefore) > now.getTime()) {
    await sendLtiScoreMessage(message, Math.ceil((Date.parse(message.notBefore) - now.getTime()) / 1000));
    return 'waiting';
  }
  return attempt(delivery, platform, now);
}

/**
 * What one try gave: the LMS's answer and what it means, with the score sent; why nothing was sent;
 * or that another function is creating the gradeable's line item, so this one tries again shortly.
 */
type Tried =
  | { readonly kind: 'asked'; readonly answer: PlatformAnswer; readonly meaning: AnswerMeaning; readonly score?: SentScore }
  | { readonly kind: 'skipped'; readonly reason: string }
  | { readonly kind: 'line item being created' };

/** One request to the LMS with the delivery's service token. */
type Ask = (url: URL, request: ScoreRequest) => Promise<PlatformAnswer>;

/** How long one function may take to create a line item before another may try (the request's own time-out is shorter). */
const LINE_ITEM_CLAIM_SECONDS = 60;
/** How long a send waits for a line item another function is creating: one more message, not an attempt. */
const LINE_ITEM_WAIT_SECONDS = 2;

/** Tries the delivery once and records what became of it (retried through the queue while the schedule lasts). */
async function attempt(delivery: ScoreDelivery, platform: Platform, now: Date): Promise<ScoreOutcome> {
  const tried = await tryDelivery(delivery, platform, now);
  const at = now.toISOString();
  if (tried.kind === 'line item being created') {
    const again: AttemptMessage = {
      kind: 'attempt',
      term: delivery.term,
      course: delivery.course,
      deliveryId: delivery.deliveryId,
      after: delivery.attempts.length,
    };
    await sendLtiScoreMessage(again, LINE_ITEM_WAIT_SECONDS);
    return 'waiting';
  }
  if (tried.kind === 'skipped') {
    const skipped: ScoreDelivery = { ...delivery, state: 'skipped', reason: tried.reason, nextAttemptAt: null, updatedAt: at };
    return (await putScoreDelivery(skipped, delivery)) ? 'skipped' : 'done-before';
  }
  const { answer, meaning, score } = tried;
  const error = meaning.kind === 'sent' ? undefined : platformMessage(answer.status, answer.body);
  const tries = delivery.attempts.length + 1 - delivery.roundStart;
  const delay = meaning.kind === 'retry' ? retryDelaySeconds(tries, retrySchedule(), meaning.afterSeconds) : undefined;
  const made: ScoreAttempt = {
    at,
    status: answer.status,
    ...(error === undefined ? {} : { error }),
    ...(delay === undefined ? {} : { retryInSeconds: delay }),
  };
  const attempts = [...delivery.attempts, made];
  const base = { ...delivery, attempts, updatedAt: at };
  const next: ScoreDelivery =
    meaning.kind === 'sent'
      ? { ...base, state: 'sent', reason: null, lastSent: score ?? delivery.lastSent, nextAttemptAt: null }
      : delay === undefined
        ? { ...base, state: 'failed', reason: error ?? null, nextAttemptAt: null }
        : { ...base, state: 'pending', reason: error ?? null, nextAttemptAt: new Date(now.getTime() + delay * 1000).toISOString() };
  if (!(await putScoreDelivery(next, delivery))) return 'done-before';
  if (next.state === 'pending' && delay !== undefined) {
    await sendLtiScoreMessage(
      {
        kind: 'attempt',
        term: next.term,
        course: next.course,
        deliveryId: next.deliveryId,
        after: attempts.length,
        ...(next.nextAttemptAt ? { notBefore: next.nextAttemptAt } : {}),
      },
      delay,
    );
  }
  if (next.state === 'failed') {
    logger.warn({
      message: 'A grade was not taken by the LMS',
      deliveryId: next.deliveryId,
      course: `${next.term}/${next.course}`,
      reason: next.reason,
    });
  }
  return next.state;
}

/** The LMS's user, the grade the gradebook shows and the line item, then the score posted to it. */
async function tryDelivery(delivery: ScoreDelivery, platform: Platform, now: Date): Promise<Tried> {
  const { term, course: code, gradeableId, userId, registrationId, contextId } = delivery;
  const { registration, link, course, gradeable, member, lineItem } = await getItems({
    registration: ltiRegistrationRef(registrationId),
    link: ltiContextLinkRef(registrationId, contextId),
    course: courseRef(term, code),
    gradeable: gradeableRef(term, code, gradeableId),
    member: enrollmentRef(term, code, userId),
    lineItem: lineItemRef(registrationId, contextId, gradeableId),
  });
  const lineitems = link?.grades?.lineitems;
  if (!registration || !link?.grades || !lineitems || link.semester !== term || link.course !== code || !takesScores(link))
    return { kind: 'skipped', reason: 'The LMS course is no longer linked to this course, or no longer takes scores.' };
  if (!course || !gradeable) return { kind: 'skipped', reason: 'The gradeable was deleted.' };
  const { subject } = await getItems({ subject: ltiSubjectRef(registration.issuer, userId) });
  if (!subject)
    return {
      kind: 'skipped',
      reason: `${userId} has not opened the tool from the LMS yet, so the LMS's id for them is not known; their grade is sent with the next grade after their first launch.`,
    };
  const scopes = link.grades.scope;
  const ask: Ask = (url, request) => platform.request(registration, scopes, url, request);
  let recorded = lineItem?.url ? { ...lineItem, url: lineItem.url } : undefined;
  if (!recorded) {
    const found = await findOrCreateLineItem({ registrationId, contextId, lineitems }, gradeable, ask, now);
    if ('answer' in found) return asked(found.answer);
    if (!('url' in found)) return found;
    recorded = found;
  }
  const score = scoreOf(
    await gradeShown(course, gradeable, delivery, member?.registrationSection ?? '', now),
    subject.subject,
    delivery.gradedAt,
  );
  if (score.scoreMaximum !== undefined && lineItemMaximumStale(recorded.scoreMaximum, score.scoreMaximum)) {
    const set = await setLineItemMaximum(recorded.url, score.scoreMaximum, ask);
    if (set) return asked(set);
    await rememberLineItemMaximum(registrationId, contextId, gradeableId, { url: recorded.url, scoreMaximum: score.scoreMaximum });
  }
  const answer = await ask(scoresUrl(recorded.url), {
    method: 'POST',
    accept: 'application/json',
    contentType: SCORE_MEDIA_TYPE,
    json: score,
  });
  return { ...asked(answer), score };
}

const asked = (answer: PlatformAnswer): Extract<Tried, { kind: 'asked' }> => ({
  kind: 'asked',
  answer,
  meaning: answerMeaning(answer.status, answer.body, answer.retryAfterSeconds),
});

/**
 * The gradeable's line item in the LMS course, recorded: the one with its id as `resourceId`, else
 * a new one, created by one function at a time (a claim on the record), so that several students'
 * grades sent at once make one column in the LMS's grade book. A creator that died leaves a claim
 * that runs out; the next try finds what it created by its `resourceId`.
 */
async function findOrCreateLineItem(
  at: { registrationId: string; contextId: string; lineitems: string },
  gradeable: GradeableDocument,
  ask: Ask,
  now: Date,
): Promise<{ url: string } | { answer: PlatformAnswer } | Extract<Tried, { kind: 'line item being created' }>> {
  const { registrationId, contextId } = at;
  const container = new URL(at.lineitems);
  const query = new URL(container);
  query.searchParams.set('resource_id', gradeable.id);
  const listed = await ask(query, { method: 'GET', accept: LINE_ITEMS_MEDIA_TYPE });
  if (listed.status !== 200) return { answer: listed };
  const found = lineItems(listed.body).find((item) => item.resourceId === gradeable.id && typeof item.id === 'string');
  if (found) {
    const maximum = typeof found.scoreMaximum === 'number' ? found.scoreMaximum : undefined;
    return rememberLineItem(registrationId, contextId, gradeable.id, found.id as string, maximum);
  }
  const holder = randomUUID();
  const until = new Date(now.getTime() + LINE_ITEM_CLAIM_SECONDS * 1000);
  if (!(await claimLineItemCreation(registrationId, contextId, gradeable.id, { holder, until, now })))
    return { kind: 'line item being created' };
  const created = await ask(container, {
    method: 'POST',
    accept: LINE_ITEM_MEDIA_TYPE,
    contentType: LINE_ITEM_MEDIA_TYPE,
    json: { scoreMaximum: maxPoints(gradeable), label: gradeable.title, resourceId: gradeable.id },
  });
  const createdOk = platformTook(created.status);
  const item = createdOk ? lineItems(`[${created.body}]`)[0] : undefined;
  if (typeof item?.id !== 'string') {
    await releaseLineItemClaim(registrationId, contextId, gradeable.id, holder);
    return { answer: createdOk ? { status: 502, body: 'The LMS created a line item without an id.' } : created };
  }
  const maximum = typeof item.scoreMaximum === 'number' ? item.scoreMaximum : maxPoints(gradeable);
  return rememberLineItem(registrationId, contextId, gradeable.id, item.id, maximum);
}

/**
 * Sets the line item's `scoreMaximum` to the gradeable's points now (its points were replaced since
 * the line item was made): the line item as the LMS holds it, put back with the new maximum, so that
 * what the platform or an instructor set on it stays. Undefined once done; else the LMS's answer.
 */
async function setLineItemMaximum(url: string, scoreMaximum: number, ask: Ask): Promise<PlatformAnswer | undefined> {
  const held = await ask(new URL(url), { method: 'GET', accept: LINE_ITEM_MEDIA_TYPE });
  if (held.status !== 200) return held;
  const [item] = lineItems(`[${held.body}]`);
  if (!item) return { status: 502, body: 'The LMS answered its line item with something that is not one.' };
  if (item.scoreMaximum === scoreMaximum) return undefined;
  const put = await ask(new URL(url), {
    method: 'PUT',
    accept: LINE_ITEM_MEDIA_TYPE,
    contentType: LINE_ITEM_MEDIA_TYPE,
    json: { ...item, scoreMaximum },
  });
  return platformTook(put.status) ? undefined : put;
}

function lineItems(body: string): Record<string, unknown>[] {
  try {
    const parsed = JSON.parse(body) as unknown;
    return Array.isArray(parsed) ? parsed.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : [];
  } catch {
    return [];
  }
}

/** The student's grade as the course gradebook shows it, now. */
async function gradeShown(
  course: Course,
  gradeable: GradeableDocument,
  delivery: ScoreDelivery,
  section: string,
  now: Date,
  known?: readonly GradeableDocument[],
): Promise<GradeShown> {
  const documents = known ?? (await gradeablesOfCourse(course.term, course.course));
  const [row] = await gradebookRowsOf(course, documents, [gradeable], [{ userId: delivery.userId, registrationSection: section }], now);
  const cell = row?.gradeables[0];
  if (!cell) throw new Error(`The gradebook has no cell of ${gradeable.id} for ${delivery.userId}`);
  const { submission } = await getItems({ submission: submissionRef(course.term, course.course, gradeable.id, delivery.ownerId) });
  return {
    total: cell.score,
    maximum: cell.max,
    queued: cell.status === 'queued' || cell.status === 'grading',
    taPending: isTaGraded(gradeable) && !taComplete(gradeable, submission?.taGrade),
    failed: cell.status === 'failed',
  };
}

function retrySchedule(): readonly number[] {
  const { value: delays, problem } = config('WEBHOOK_RETRY_SCHEDULE');
  if (problem) logger.error({ message: problem });
  return delays;
}
