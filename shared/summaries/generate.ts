import { randomBytes } from 'node:crypto';
import type { Course } from '#shared/courses/course.ts';
import { allCourses, courseRef, switchSummaries } from '#shared/data/courses.ts';
import { enrollmentsOfCourse, type Enrollment } from '#shared/data/enrollments.ts';
import { getItems, type ItemRef } from '#shared/data/items.ts';
import { lateDaysOfCourse } from '#shared/data/late-days.ts';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { submissionsOfGradeable } from '#shared/data/submissions.ts';
import { copyToLatest, deleteGeneration, writeSummaries } from '#shared/data/summaries.ts';
import { teamsOfGradeable } from '#shared/data/teams.ts';
import { userRef, type User } from '#shared/data/users.ts';
import { logger } from '#shared/logger.ts';
import type { Submission } from '#shared/submissions/submission.ts';
import { eventOutbox, summariesGeneratedEvent, type Outbox } from '#shared/webhooks/publish.ts';
import { releasedGradeables, userSummary } from './summary.ts';

export interface GenerationReport {
  readonly course: string;
  readonly summaries: number;
  readonly generated_at: string;
  readonly generation: string;
}

/** Members whose profiles are read, summaries made and written at a time. */
export const MEMBERS_PAGE = 500;

export interface GenerationOptions {
  /** The course's enrollments, when the caller read them already. */
  readonly enrollments?: readonly Enrollment[];
  /** Told after each page of members is written: how many of the course's `total` members are done. */
  readonly onProgress?: (progress: { done: number; total: number }) => Promise<void>;
}

/**
 * Generates one summary per user of the course and makes them current all at once: the new
 * generation is written in full, then the course's pointer switches to it, then the old one goes.
 * Reads grow with gradeables + users: one paged query per released or Electronic File gradeable, one
 * for the course's late days, and members MEMBERS_PAGE at a time (their profiles, then their
 * summaries written in batches), so that memory holds one page of summaries.
 */
export async function generateSummaries(course: Course, now = new Date(), options: GenerationOptions = {}): Promise<GenerationReport> {
  const generatedAt = now.toISOString();
  const generation = `${generatedAt.replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
  const [enrollments, documents, lateDays] = await Promise.all([
    options.enrollments ?? enrollmentsOfCourse(course.term, course.course),
    gradeablesOfCourse(course.term, course.course),
    lateDaysOfCourse(course.term, course.course),
  ]);
  const gradeables = releasedGradeables(documents, now);
  // Late days are charged on every Electronic File gradeable, released or not.
  const read = documents.filter((document) => gradeables.includes(document) || document.type === 'Electronic File');
  const submissions = new Map<string, Map<string, Submission>>();
  const teams = new Map<string, Map<string, string>>();
  await Promise.all(
    // Every type: Checkpoints and Numeric gradeables carry TA grades on their submission items.
    read.map(async (document) => {
      const [list, members] = await Promise.all([
        submissionsOfGradeable(course.term, course.course, document.id),
        document.team_gradeable ? teamsOfGradeable(course.term, course.course, document.id) : undefined,
      ]);
      submissions.set(document.id, new Map(list.map((submission) => [submission.ownerId, submission])));
      if (members) teams.set(document.id, members);
    }),
  );
  const submissionOf = (gradeableId: string, userId: string) => {
    const team = teams.get(gradeableId);
    const owner = team ? team.get(userId) : userId;
    return owner === undefined ? undefined : submissions.get(gradeableId)?.get(owner);
  };
  const lateDaysOf = new Map(lateDays.map((student) => [student.userId, student]));
  let count = 0;
  let previous: Course['summaries'];
  let outbox: Outbox | undefined;
  try {
    await options.onProgress?.({ done: 0, total: enrollments.length });
    for (let start = 0; start < enrollments.length; start += MEMBERS_PAGE) {
      const page = enrollments.slice(start, start + MEMBERS_PAGE);
      const refs: Record<string, ItemRef<User>> = {};
      for (const enrollment of page) refs[enrollment.userId] = userRef(enrollment.userId);
      const people = await getItems(refs);
      // A member without a profile is left out.
      const summaries = page.flatMap((enrollment) => {
        const person = people[enrollment.userId];
        if (!person) return [];
        const lateDayState = {
          defaultBudget: course.defaultStudentLateDays ?? 0,
          student: lateDaysOf.get(person.userId),
          gradeables: read,
        };
        return [
          userSummary(person, enrollment, gradeables, submissionOf, { timeZone: course.timeZone, generatedAt, lateDays: lateDayState }),
        ];
      });
      await writeSummaries(course.term, course.course, generation, summaries);
      count += summaries.length;
      await options.onProgress?.({ done: start + page.length, total: enrollments.length });
    }
    // The webhook event is recorded with the switch itself (the outbox), so it exists exactly when the switch does.
    outbox = eventOutbox(summariesGeneratedEvent(course, { summaries: count, generated_at: generatedAt, generation }));
    previous = await switchSummaries(course.term, course.course, { generation, generatedAt, count }, outbox.items);
  } catch (error) {
    // Unless the switch went through after all (a time-out after DynamoDB applied it), readers never
    // saw this generation: leave no trace of it.
    const { current } = await getItems({ current: courseRef(course.term, course.course) }).catch(() => ({ current: undefined }));
    if (current && current.summaries?.generation !== generation) {
      await deleteGeneration(course.term, course.course, generation).catch(() => undefined);
    }
    throw error;
  }
  // The new generation is current: the run is done. Copying it to each user's latest entry and
  // removing the old one are housekeeping whose failure must not report the run as failed (a retry
  // would only write yet another generation); until the copy lands, a user's summary is read by generation.
  await copyToLatest(course.term, course.course, generation).catch((error: unknown) =>
    logger.warn({
      message: "Could not copy a summary generation to the users' latest entries",
      course: `${course.term}/${course.course}`,
      generation,
      error: error as Error,
    }),
  );
  if (previous) {
    await deleteGeneration(course.term, course.course, previous.generation).catch((error: unknown) =>
      logger.warn({
        message: 'Could not remove an old summary generation',
        course: `${course.term}/${course.course}`,
        generation: previous.generation,
        error: error as Error,
      }),
    );
  }
  await outbox?.send();
  return { course: `${course.term}/${course.course}`, summaries: count, generated_at: generatedAt, generation };
}

export interface NightlyReport {
  readonly courses: number;
  readonly succeeded: number;
  readonly failed: number;
  /** Courses left to the summaries job under way for them, which makes a new generation anyway. */
  readonly skipped: number;
  readonly summaries: number;
}

/**
 * The nightly run: every unarchived course, a few at a time, but those `underWay` says another
 * generation is under way for. A course that fails is logged with its name and counted; the others go on.
 */
export async function generateAllSummaries(
  options: { parallel?: number; generate?: typeof generateSummaries; underWay?: (course: Course) => Promise<boolean> } = {},
): Promise<NightlyReport> {
  const generate = options.generate ?? generateSummaries;
  const courses = (await allCourses()).filter((course) => !course.archived);
  const waiting = courses.values();
  let succeeded = 0;
  let failed = 0;
  let skipped = 0;
  let summaries = 0;
  const worker = async () => {
    for (let next = waiting.next(); !next.done; next = waiting.next()) {
      const course = next.value;
      try {
        if (await options.underWay?.(course)) {
          skipped++;
          continue;
        }
        summaries += (await generate(course)).summaries;
        succeeded++;
      } catch (error) {
        failed++;
        logger.error({ message: 'Summary generation failed', course: `${course.term}/${course.course}`, error: error as Error });
      }
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 3 }, worker));
  const report = { courses: courses.length, succeeded, failed, skipped, summaries };
  logger.info({ message: 'Nightly summaries', ...report });
  return report;
}
