/**
 * Grade passback to the linked LMS courses (LTI Assignment and Grade Services 2.0), the gradebook's
 * export to an LMS: per message of the LTI score queue, the grade the gradebook shows for a
 * student and gradeable is sent, as a score, to the gradeable's line item in each linked LMS course
 * that takes scores. One delivery per (link, gradeable, student) keeps its state, attempts and the
 * score last sent; what is sent is computed when it is sent, its `timestamp` the grade's own time.
 */
import { config } from '#shared/config.ts';
import { courseRef, type Course } from '#shared/data/courses.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems } from '#shared/data/items.ts';
import { ltiContextLinkRef, ltiLinksOfCourse, ltiRegistrationRef, type LtiContextLink } from '#shared/data/lti.ts';
import {
  lineItemRef,
  ltiSubjectRef,
  parseScoreDeliveryId,
  putScoreDelivery,
  rememberLineItem,
  scoreDeliveriesPage,
  scoreDeliveryId,
  scoreDeliveryRef,
  type ScoreAttempt,
  type ScoreDelivery,
  type SentScore,
} from '#shared/data/lti-scores.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { teamRef } from '#shared/data/teams.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeableRef, gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { logger } from '#shared/logger.ts';
import type { PlatformAnswer, ScorePlatform as Platform } from '#shared/lti/score-platform.ts';
import { sendLtiScoreMessage, type LateDaysMessage, type LtiScoreMessage } from '#shared/lti/score-queue.ts';
import {
  answerMeaning,
  changeIdsWith,
  gradeStanding,
  LINE_ITEM_MEDIA_TYPE,
  LINE_ITEMS_MEDIA_TYPE,
  lateDaysTouch,
  platformMessage,
  retryDelaySeconds,
  SCORE_MEDIA_TYPE,
  scoreDiffers,
  scoreOf,
  scoresUrl,
  takesScores,
  type AnswerMeaning,
} from '#shared/lti/scores.ts';
import { isTaGraded, taComplete } from '#shared/tagrading/grade.ts';
import { gradebookRowsOf, maxPoints } from './course-gradebook.ts';

type GradeMessage = Extract<LtiScoreMessage, { kind: 'grade' }>;
type AttemptMessage = Extract<LtiScoreMessage, { kind: 'attempt' }>;

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
      return fanOut(message, receiveCount, platform, now);
    case 'attempt':
      return attemptAgain(message, platform, now);
    case 'late-days':
      return lateDaysChanged(message, receiveCount, platform, now);
  }
}

/** One delivery per linked LMS course taking scores and student (each member of a team), each claimed for this grade and tried. */
async function fanOut(message: GradeMessage, receiveCount: number, platform: Platform, now: Date): Promise<ScoreOutcome> {
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
      const claimed = await claim(link, message, userId, receiveCount, now);
      if (claimed) await attempt(claimed, platform, new Date());
    }
  }
  return 'handled';
}

/** The deliveries a late-days message looks at per message: the next page is a message of its own. */
export const LATE_DAYS_PAGE = 25;

/**
 * A page of the deliveries a late-days change may have changed (lateDaysTouch): each whose score
 * the gradebook shows now differs from the one last sent is claimed for the change, with its time,
 * and tried; then the next page's message is queued. A copy of the message finds each claimed
 * already (or its score sent) and sends nothing.
 */
async function lateDaysChanged(message: LateDaysMessage, receiveCount: number, platform: Platform, now: Date): Promise<ScoreOutcome> {
  const { term, course: code, changedAt } = message;
  const links = (await ltiLinksOfCourse(term, code)).filter(takesScores);
  if (links.length === 0) return 'no-links';
  const { course } = await getItems({ course: courseRef(term, code) });
  if (!course) return 'gone';
  const linked = new Set(links.map((link) => `${link.registrationId} ${link.contextId}`));
  const page = await scoreDeliveriesPage(term, code, { userId: message.userId, after: message.after, limit: LATE_DAYS_PAGE });
  const touched = page.deliveries.filter((delivery) => lateDaysTouch(message, delivery, linked));
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
    if (seen && standing === 'same') {
      // This very message claimed it and failed before trying it: try it now.
      const untried = seen.state === 'pending' && seen.attempts.length === seen.roundStart;
      return receiveCount > 1 && untried ? seen : undefined;
    }
    const next: ScoreDelivery = {
      term: message.term,
      course: message.course,
      ...id,
      ownerId: message.ownerId,
      deliveryId: scoreDeliveryId(id),
      state: 'pending',
      gradedAt: message.gradedAt,
      changeIds: changeIdsWith(seen, message),
      reason: null,
      attempts: seen?.attempts ?? [],
      roundStart: seen?.attempts.length ?? 0,
      lastSent: seen?.lastSent ?? null,
      nextAttemptAt: null,
      updatedAt: now.toISOString(),
    };
    if (await putScoreDelivery(next, seen)) return next;
  }
  throw new Error(`Could not claim the delivery of ${message.gradeableId} for ${userId}: too much contention`);
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

/** What one try gave: the LMS's answer and what it means, with the score sent; or why nothing was sent. */
type Tried =
  | { readonly kind: 'asked'; readonly answer: PlatformAnswer; readonly meaning: AnswerMeaning; readonly score?: SentScore }
  | { readonly kind: 'skipped'; readonly reason: string };

/** Tries the delivery once and records what became of it (retried through the queue while the schedule lasts). */
async function attempt(delivery: ScoreDelivery, platform: Platform, now: Date): Promise<ScoreOutcome> {
  const tried = await tryDelivery(delivery, platform, now);
  const at = now.toISOString();
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
  const token = await platform.token(registration, link.grades.scope);
  if ('answer' in token) return asked(token.answer);
  let lineItemUrl = lineItem?.url;
  if (!lineItemUrl) {
    const found = await findOrCreateLineItem(lineitems, gradeable, token.token, platform);
    if ('answer' in found) return asked(found.answer);
    lineItemUrl = found.url;
    await rememberLineItem(registrationId, contextId, gradeableId, lineItemUrl);
  }
  const score = scoreOf(
    await gradeShown(course, gradeable, delivery, member?.registrationSection ?? '', now),
    subject.subject,
    delivery.gradedAt,
  );
  const answer = await platform.request(scoresUrl(lineItemUrl), {
    method: 'POST',
    token: token.token,
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

/** The gradeable's line item in the LMS course: the one with its id as `resourceId`, else a new one. */
async function findOrCreateLineItem(
  lineitems: string,
  gradeable: GradeableDocument,
  token: string,
  platform: Platform,
): Promise<{ url: string } | { answer: PlatformAnswer }> {
  const container = new URL(lineitems);
  const query = new URL(container);
  query.searchParams.set('resource_id', gradeable.id);
  const listed = await platform.request(query, { method: 'GET', token, accept: LINE_ITEMS_MEDIA_TYPE });
  if (listed.status !== 200) return { answer: listed };
  const found = lineItems(listed.body).find((item) => item.resourceId === gradeable.id && typeof item.id === 'string');
  if (found) return { url: found.id as string };
  const created = await platform.request(container, {
    method: 'POST',
    token,
    accept: LINE_ITEM_MEDIA_TYPE,
    contentType: LINE_ITEM_MEDIA_TYPE,
    json: { scoreMaximum: maxPoints(gradeable), label: gradeable.title, resourceId: gradeable.id },
  });
  if (created.status === null || created.status < 200 || created.status >= 300) return { answer: created };
  const item = lineItems(`[${created.body}]`)[0];
  if (typeof item?.id !== 'string') return { answer: { status: 502, body: 'The LMS created a line item without an id.' } };
  return { url: item.id };
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
) {
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
  };
}

function retrySchedule(): readonly number[] {
  const { value: delays, problem } = config('WEBHOOK_RETRY_SCHEDULE');
  if (problem) logger.error({ message: problem });
  return delays;
}
