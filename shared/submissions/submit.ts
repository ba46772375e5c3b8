import { gradeableBusy, invalidGradeableId } from '#shared/gradeables/failures.ts';
import { atGate, firstOfOwner } from '#shared/gradeables/gates.ts';
import { createHash } from 'node:crypto';
import type { Caller } from '#shared/auth/caller.ts';
import { courseGroups, isActiveMember, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { getItems } from '#shared/data/items.ts';
import { idempotencyRef, putAnswer, type StoredAnswer } from '#shared/data/idempotency.ts';
import { abandonTicket, courseBurst, loadRef, putJob, queueRef, reserveTicket, type QueueCounters } from '#shared/data/jobs.ts';
import { addVersion, gradeableKey, submissionRef } from '#shared/data/submissions.ts';
import { lateDaysRef, type StudentLateDays } from '#shared/data/late-days.ts';
import { teamMembers, teamMembershipRef, teamSubmissionCopies, type TeamMembership } from '#shared/data/teams.ts';
import { failedConditions, isConflictOnly, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { invalidInput, type Refusal } from '#shared/errors.ts';
import { courseBurstPerMinute, maxQueuedJobsPerStudent, submissionLimits } from '#shared/config.ts';
import { notifyWorkers } from '#shared/grading/queue.ts';
import { laneCounters, laneOf, sequenceOf, shardForReservation, shardOf, ticketOf, ticketToIssue } from '#shared/grading/queue-order.ts';
import { logger } from '#shared/logger.ts';
import { isValidIdempotencyKey, isValidUserId } from '#shared/ids.ts';
import type { CourseGradeable } from '#shared/ids.ts';
import { ticketContention } from './contention.ts';
import { resolveCommit } from './commit.ts';
import { repositoryUrl, type RepositoryOwner } from '#shared/gradeables/repository.ts';
import { queuedJobsRefusal, submissionRefusal, versionSizeRefusal } from './limits.ts';
import { loadAfter, queueShare, queueShareItems } from './queue-share.ts';
import { daysLate, lateRefusal, type Submission } from './submission.ts';
import { notOnTeam, teamChangedMeanwhile, userNotInCourse } from '#shared/courses/failures.ts';
import { badIdempotencyKey, gitRepoIdMissing, idempotencyKeyReused, notSameUser, onlyVcs } from './failures.ts';

export interface SubmitContext {
  readonly caller: Caller;
  readonly enrollment: Enrollment;
  readonly course: Course;
  readonly gradeableId: string;
  readonly gradeable: GradeableDocument | undefined;
  readonly fields: SubmitFields;
  readonly idempotencyKey: string | undefined;
  /** Read with the token check (see submitReads): the caller's own submission and the queue (its counters count the course's submissions this minute too). */
  readonly loaded?: {
    submission?: Submission;
    queue: QueueCounters;
    previous?: StoredAnswer;
    lateDays?: StudentLateDays;
    load?: number;
  };
}

/** What a student sends: `vcs_checkout` read as a loose boolean, `git_repo_id` as sent. */
export interface SubmitFields {
  readonly userId?: string;
  readonly vcsCheckout?: boolean;
  readonly gitRepoId?: unknown;
}

/**
 * What a submission reads, declared with the token check so that a submission for oneself costs
 * two round trips: this read, then the transaction. A malformed gradeable id reads nothing real.
 */
export function submitReads(gradeable: CourseGradeable, callerId: string, idempotencyKey: string | undefined) {
  const { term, course, gradeableId } = gradeable;
  return {
    gradeable: gradeableRef(term, course, gradeableId),
    submission: submissionRef(term, course, gradeableId, callerId),
    queue: queueRef(),
    // The caller's extensions: a gradeable refusing late submission accepts their days.
    lateDays: lateDaysRef(term, course, callerId),
    // The caller's jobs queued or being graded (MAX_QUEUED_JOBS_PER_STUDENT).
    load: loadRef(callerId),
    ...(idempotencyKey !== undefined && isValidIdempotencyKey(idempotencyKey)
      ? { previous: idempotencyRef(`${callerId}#${idempotencyKey}`) }
      : {}),
  };
}

const MAX_ATTEMPTS = 200;
/** The indexes of the version and the job in a submission's transaction. */
const VERSION = 0;
const JOB = 1;
const CONFLICT_RETRIES = 4;
const contention = ticketContention();

/**
 * Submits a VCS gradeable: checks in the reference's order (docs/reference-compatibility.md), then creates
 * version n = highest + 1, makes it active and queues it for grading in one transaction.
 * With an Idempotency-Key, a retry within 24 hours gets the first answer and creates nothing.
 */
export async function submitVcs(context: SubmitContext, now = new Date()): Promise<string> {
  const { caller, enrollment, fields } = context;
  const target = fields.userId ?? caller.userId;
  const staffSubmitter = enrollment.group <= courseGroups.fullAccessGrader;
  if (target !== caller.userId && !staffSubmitter) throw notSameUser();
  if (!fields.vcsCheckout) throw onlyVcs();
  if (fields.gitRepoId === undefined || fields.gitRepoId === '') {
    throw gitRepoIdMissing();
  }
  return submitVersion(context, vcsSource(fields), now);
}

/**
 * What a version is made of, beside what every version records: a VCS version's commit, or a
 * files version's files, stored under their own files id before the version's transaction.
 */
export interface VersionSource {
  /** Refuses a gradeable this kind of version is not for (after the gradeable's own checks). */
  readonly accepts: (gradeable: GradeableDocument) => void;
  /** What the Idempotency-Key's fingerprint covers beside the course, gradeable and target. */
  readonly identity: Readonly<Record<string, unknown>>;
  /** Once, after every refusal that costs nothing: the commit the version is bound to. */
  readonly commit?: (gradeable: GradeableDocument, owner: RepositoryOwner) => Promise<string | undefined>;
  /**
   * The files id recorded on the version, in its own transaction: its files are stored under it,
   * so a submission that loses the race for a version number never writes the winner's files.
   */
  readonly files?: string;
  /** Once, after every refusal that costs nothing and before the first transaction: stores the version's files. */
  readonly store?: (owner: RepositoryOwner) => Promise<void>;
  /**
   * What only one version may ever use (an upload, consumed), written in the version's own
   * transaction: `items` fail their condition once written; `taken(index)` is the refusal when
   * `items[index]` was (the version that took it is the only one).
   */
  readonly claims?: { readonly items: readonly TransactItem[]; readonly taken: (index: number) => Refusal };
  /** Once the version's transaction went through. */
  readonly stored?: () => Promise<void>;
  /** When no version was created (refused, answered before, out of tries): removes what `store` wrote. */
  readonly discard?: () => Promise<void>;
}

function vcsSource(fields: SubmitFields): VersionSource {
  return {
    accepts: (gradeable) => {
      if (gradeable.type !== 'Electronic File' || !gradeable.vcs) throw onlyVcs();
    },
    identity: { vcs_checkout: fields.vcsCheckout === true, git_repo_id: String(fields.gitRepoId) },
    commit: (gradeable, owner) => resolveCommit(gradeable.vcs as NonNullable<GradeableDocument['vcs']>, owner),
  };
}

/**
 * Creates version n = highest + 1 of the caller's (or `fields.userId`'s) submission from `source`,
 * makes it active and queues it for grading in one transaction: every kind of version the same way.
 */
export async function submitVersion(context: SubmitContext, source: VersionSource, now = new Date()): Promise<string> {
  const { caller, enrollment, course, gradeable, fields } = context;
  const target = fields.userId ?? caller.userId;
  const staffSubmitter = enrollment.group <= courseGroups.fullAccessGrader;
  if (target !== caller.userId && !staffSubmitter) throw notSameUser();
  const open = gradeable && (staffSubmitter || (gradeable.dates.submission_open_date ?? '') <= now.toISOString());
  if (!gradeable || !open) throw invalidGradeableId({ gradeable_id: context.gradeableId });
  source.accepts(gradeable);
  if (target !== caller.userId) await requireStudentOf(course, target);
  const membership = gradeable.team_gradeable ? await teamOf(course, gradeable.id, target) : undefined;
  const ownerId = membership?.teamId ?? target;

  const late = daysLate(now, gradeable.dates.submission_due_date);
  if (lateRefusal(late, gradeable.dates)) {
    // Too late, unless the student's extension on the gradeable covers it.
    const { lateDays } =
      target === caller.userId
        ? { lateDays: context.loaded?.lateDays }
        : await getItems({ lateDays: lateDaysRef(course.term, course.course, target) });
    const refusal = lateRefusal(late, gradeable.dates, lateDays?.extensions[gradeable.id]?.days ?? 0);
    if (refusal) throw invalidInput(refusal);
  }

  if (context.idempotencyKey !== undefined && !isValidIdempotencyKey(context.idempotencyKey)) {
    throw badIdempotencyKey();
  }
  const idempotency = context.idempotencyKey
    ? { key: `${caller.userId}#${context.idempotencyKey}`, fingerprint: fingerprint(course, context.gradeableId, target, source.identity) }
    : undefined;
  const owner = { term: course.term, course: course.course, gradeableId: gradeable.id, ownerId };
  // Each member's team entry carries a copy of the team's active version (their late days read it).
  let members = membership && (await teamMembers(owner, membership));
  // A version, its team's copies and its claims in one transaction: refused before anything is stored when they would not fit.
  const tooLarge = (team: readonly string[] | undefined) => versionSizeRefusal(team?.length, source.claims?.items.length ?? 0);
  const oversized = tooLarge(members);
  if (oversized) throw oversized;
  const forSomeoneElse = target !== caller.userId ? ` for ${target}` : '';

  // A student's own submission counts towards their jobs queued or being graded; staff's for a student does not.
  const counted = target === caller.userId;
  type Loaded = NonNullable<SubmitContext['loaded']>;
  const read = (): Promise<Loaded> =>
    getItems({
      submission: submissionRef(owner.term, owner.course, owner.gradeableId, owner.ownerId),
      queue: queueRef(),
      ...(idempotency ? { previous: idempotencyRef(idempotency.key) } : {}),
      ...(counted ? { load: loadRef(caller.userId) } : {}),
    });
  // The first attempt's items: the caller's own, preloaded with the token check, or read now.
  const initial = (ownerId === caller.userId ? context.loaded : undefined) ?? (await read());
  // The commit the version is bound to: its repository's head, read once (a round trip to the
  // repository's server), so after every refusal that costs nothing; a repeat answered before reads nothing.
  const answered = idempotency !== undefined && initial.previous !== undefined;
  const overLimit = answered ? undefined : submissionRefusal(initial.submission?.versions ?? [], now, submissionLimits());
  if (overLimit) throw overLimit;
  const overLoad = answered
    ? undefined
    : queuedJobsRefusal(
        loadAfter(
          queueShare(
            initial.submission?.versions ?? [],
            counted ? { userId: caller.userId, inFlight: initial.load ?? 0 } : undefined,
            new Set(),
          ),
        ),
        maxQueuedJobsPerStudent(),
      );
  if (overLoad) throw overLoad;
  // The course's submissions this minute, as read with the rest, this one included (a student's own
  // only: staff's go first whatever the rush); counted by the reservation of its ticket, so a
  // refused submission counts nothing.
  const burst = counted
    ? { count: courseBurst(initial.queue, owner.term, owner.course, now) + 1, limit: courseBurstPerMinute() }
    : undefined;
  const commit = answered ? undefined : await source.commit?.(gradeable, owner);
  // The repository the commit was read from, which the version's gradings check it out from.
  const repository = !answered && source.commit && gradeable.vcs ? repositoryUrl(gradeable.vcs, owner) : undefined;
  // Whether this call (not a call it handed the submission to) wrote files that no version may record.
  let storedFiles = false;
  let handedOver = false;
  let preloaded: Loaded | undefined = initial;
  // The ticket, reserved before the transaction (an atomic counter, never refused) and kept until its job is written.
  let reserved: number | undefined;
  let counting = counted;
  let conflicts = 0;
  // Whether the reserved ticket may have its job: a transaction that went through, or one whose outcome is unknown.
  let jobMayBeWritten = false;
  // Whether a claim of the source was found taken once: a retry with the same Idempotency-Key reads the first answer again.
  let claimsTaken = false;
  // Queued versions found not to be supersedable (a regrade's, or staff's): graded whatever comes after.
  const keep = new Set<number>();
  const startedAt = Date.now();
  try {
    if (!answered && source.store) {
      storedFiles = true;
      await source.store(owner);
    }
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const loaded: Loaded = preloaded ?? (await read());
      const { submission, queue, previous, load } = loaded;
      preloaded = undefined;
      if (previous && idempotency) {
        const first = repeatedAnswer(previous, idempotency.fingerprint);
        // The first attempt may have ended between its transaction and its wake-up (its answer lost,
        // its time run out): wake the workers again. A spare wake-up finds nothing more to grade.
        await notifyWorkers(0);
        return first;
      }

      const refusal = submissionRefusal(submission?.versions ?? [], now, submissionLimits());
      if (refusal) throw refusal;
      const share = queueShare(
        submission?.versions ?? [],
        counted ? { userId: caller.userId, inFlight: load ?? 0 } : undefined,
        keep,
        burst,
      );
      const overLoad = queuedJobsRefusal(loadAfter(share), maxQueuedJobsPerStudent());
      if (overLoad) throw overLoad;
      // The share's lane; not the superseded ticket's counter, which the transaction updates (giving that ticket up).
      const superseded = share.supersede?.ticket;
      const lane = laneCounters(queue, share.lane).filter(
        (counter) => superseded === undefined || laneOf(superseded) !== share.lane || shardOf(superseded) !== counter.shard,
      );

      const version = (submission?.highestVersion ?? 0) + 1;
      // A ticket reserved for another lane (what was read before changed the share's lane): given up for one in this lane.
      if (reserved !== undefined && laneOf(reserved) !== share.lane) {
        await abandonReserved(reserved);
        reserved = undefined;
      }
      reserved ??= await reserve(lane, share.lane, counting ? { term: owner.term, course: owner.course, now } : undefined);
      counting = false;
      const ticket = reserved;
      const answer = `Successfully uploaded version ${version} for ${gradeable.title}${forSomeoneElse}`;
      jobMayBeWritten = true;
      const items = [
        addVersion(
          owner,
          {
            version,
            submittedAt: now.toISOString(),
            submittedBy: caller.userId,
            daysLate: late,
            ticket,
            state: 'queued',
            ...(commit ? { commit } : {}),
            ...(repository ? { repository } : {}),
            ...(source.files ? { files: source.files } : {}),
          },
          members ? 'team' : 'student',
          share.supersede?.version,
        ),
        putJob({
          ticket,
          gradeableKey: gradeableKey(owner.term, owner.course, owner.gradeableId),
          ...owner,
          version,
          ...(commit ? { commit } : {}),
          ...(repository ? { repository } : {}),
          ...(counted ? { countedFor: caller.userId } : {}),
        }),
        ...(idempotency ? [putAnswer(idempotency.key, { fingerprint: idempotency.fingerprint, data: answer }, now)] : []),
        // After these, so that the indexes above (VERSION, JOB) stay as they are.
        ...(members ? teamSubmissionCopies(owner, members, { version, daysLate: late }) : []),
      ];
      const copies = { from: items.length - (members?.length ?? 0), to: items.length };
      const shared = queueShareItems(share, items.length);
      // The owner's first version creates their submission: it must not slip past a change that
      // deletes the gradeable or changes its type (gates.ts). Later ones find the item there, which
      // such a change refuses for.
      const gate = submission === undefined ? firstOfOwner(owner, gradeable, owner.ownerId) : undefined;
      const GATE = items.length + shared.items.length;
      const CLAIMS = GATE + (gate ? 1 : 0);
      try {
        await transactWrite([...items, ...shared.items, ...(gate ? [gate] : []), ...(source.claims?.items ?? [])], { conflictRetries: 0 });
      } catch (error) {
        // Another submission took (or was writing) the version number or the ticket: try again.
        const failed = failedConditions(error);
        if (failed.length === 0 && !isConflictOnly(error)) throw error;
        jobMayBeWritten = false;
        // Another version took what this one is made of: refused as if sent after it (unless it is this
        // request's own first answer, sent with the same Idempotency-Key: read once more to answer it).
        const taken = failed.find((index) => index >= CLAIMS);
        if (taken !== undefined && source.claims) {
          if (!idempotency || claimsTaken) throw source.claims.taken(taken - CLAIMS);
          claimsTaken = true;
          preloaded = undefined;
          continue;
        }
        if (gate && failed.includes(GATE)) {
          const at = await atGate(owner, gradeable, owner.ownerId, startedAt);
          if (at.next === 'busy') throw gradeableBusy();
          if (at.next === 'deleted') throw invalidGradeableId({ gradeable_id: context.gradeableId });
          // Its rules (type, version control, teams) decided from what was read: decided again from what is there now.
          if (at.next === 'changed') {
            handedOver = true;
            return await submitVersion({ ...context, gradeable: at.current }, source, now);
          }
        }
        // Transactions touching the same items at that moment: a few more tries, then an error that wrote nothing.
        if (failed.length === 0 && ++conflicts > CONFLICT_RETRIES) throw error;
        // A worker found the reserved ticket without its job and voided it: reserve another.
        if (failed.includes(JOB)) reserved = undefined;
        // The team changed since its members were read (a member added): their copies go to the team as it is now.
        if (members && failed.some((index) => index >= copies.from && index < copies.to)) {
          members = await membersNow(course, gradeable.id, target, ownerId);
          const grown = tooLarge(members);
          if (grown) throw grown;
        }
        // A queued version that is not to be superseded (a regrade's or staff's job) stays as it is.
        if (share.supersede && shared.supersede !== undefined && failed.includes(shared.supersede)) keep.add(share.supersede.version);
        // Unless the version number, the student's count or the version to supersede changed, what was read still holds.
        const reread = [VERSION, shared.load, shared.supersede, shared.supersede === undefined ? undefined : shared.supersede + 1];
        if (!reread.some((index) => index !== undefined && failed.includes(index)))
          preloaded = { submission, queue, previous, ...(counted ? { load } : {}) };
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 + attempt * 2)));
        continue;
      }
      await Promise.all([notifyWorkers(ticket), source.stored?.()]);
      return answer;
    }
    throw new Error('Could not queue the submission: too much contention');
  } finally {
    // A reserved ticket no job will take (refused, answered before, out of tries): positions must not count it.
    if (reserved !== undefined && !jobMayBeWritten) await abandonReserved(reserved);
    // Files no version records (a transaction whose outcome is unknown may have recorded them: kept).
    if (storedFiles && !handedOver && !jobMayBeWritten) await source.discard?.();
  }
}

/** Submissions of this instance between their read of the queue and their ticket's reservation. */
let reserving = 0;

/**
 * Reserves a ticket in the lane whose counters are `counters`: the lowest free ticket's counter,
 * so that tickets follow arrival order; while submissions arrive together (others of this instance
 * are reserving, or lately a reservation found that others had reserved on its counter since it
 * was read: contention.ts), one of the counters that issued the fewest, at random, so that they
 * spread over the shards rather than pile on one. `burst`: counts the course's submission this
 * minute with it (courseBurst).
 */
async function reserve(
  counters: QueueCounters,
  lane: number,
  burst: { term: string; course: string; now: Date } | undefined,
): Promise<number> {
  const together = reserving > 0 || contention.recent();
  const shard = together ? shardForReservation(counters) : ticketToIssue(counters).shard.shard;
  const counter = counters.find((candidate) => candidate.shard === shard);
  reserving++;
  try {
    const sequence = await reserveTicket(shard, lane, burst && { ...burst, ...(counter ? { counter } : {}) });
    if (sequence !== (counter?.tail ?? 0) + 1) contention.noteCollision();
    return ticketOf(shard, sequence, lane);
  } finally {
    reserving--;
  }
}

async function abandonReserved(ticket: number): Promise<void> {
  try {
    await abandonTicket(shardOf(ticket), sequenceOf(ticket), laneOf(ticket));
  } catch (error) {
    // The submission's own answer stands; the ticket counts as queued until a worker passes it.
    logger.warn({ message: 'Could not give up a reserved ticket', ticket, error });
  }
}

/** The members of a team read again, provided `userId` is still on it (otherwise the submission is refused: submit again). */
async function membersNow(course: Course, gradeableId: string, userId: string, teamId: string): Promise<readonly string[]> {
  const membership = await teamOf(course, gradeableId, userId);
  if (membership.teamId !== teamId) throw teamChangedMeanwhile();
  return teamMembers({ term: course.term, course: course.course, gradeableId }, membership);
}

/** On team gradeables a submission belongs to the submitter's team. */
async function teamOf(course: Course, gradeableId: string, userId: string): Promise<TeamMembership> {
  const { membership } = await getItems({ membership: teamMembershipRef(course.term, course.course, gradeableId, userId) });
  if (!membership) throw notOnTeam({ user_id: userId });
  return membership;
}

async function requireStudentOf(course: Course, userId: string): Promise<void> {
  // A malformed id (empty, too long) is in no course; it must not reach DynamoDB as a key.
  if (!isValidUserId(userId)) throw userNotInCourse({ user_id: userId.slice(0, 64) });
  const { member } = await getItems({ member: enrollmentRef(course.term, course.course, userId) });
  if (!member || !isActiveMember(member)) throw userNotInCourse({ user_id: userId });
}

function repeatedAnswer(previous: { fingerprint: string; data: unknown }, fingerprintNow: string): string {
  if (previous.fingerprint !== fingerprintNow) {
    throw idempotencyKeyReused();
  }
  return previous.data as string;
}

function fingerprint(course: Course, gradeableId: string, target: string, kind: Readonly<Record<string, unknown>>): string {
  const identity = { course: `${course.term}/${course.course}`, gradeableId, target, ...kind };
  return createHash('sha256').update(JSON.stringify(identity)).digest('base64url');
}
