import { randomBytes } from 'node:crypto';
import type { Course } from '#shared/courses/course.ts';
import { membersOf } from '#shared/courses/members.ts';
import { allCourses, courseRef, switchSummaries } from '#shared/data/courses.ts';
import { getItems } from '#shared/data/items.ts';
import { lateDaysOfCourse } from '#shared/data/late-days.ts';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { submissionsOfGradeable } from '#shared/data/submissions.ts';
import { deleteGeneration, writeSummaries } from '#shared/data/summaries.ts';
import { teamsOfGradeable } from '#shared/data/teams.ts';
import { logger } from '#shared/logger.ts';
import type { Submission } from '#shared/submissions/submission.ts';
import { publishSummariesGenerated } from '#shared/webhooks/publish.ts';
import { releasedGradeables, userSummary } from './summary.ts';

export interface GenerationReport {
  readonly course: string;
  readonly summaries: number;
  readonly generated_at: string;
  readonly generation: string;
}

/**
 * Generates one summary per user of the course and makes them current all at once: the new
 * generation is written in full, then the course's pointer switches to it, then the old one goes.
 * Reads grow with gradeables + users: one paged query per released or Electronic File gradeable, one
 * for the course's late days, batched writes.
 */
export async function generateSummaries(course: Course, now = new Date()): Promise<GenerationReport> {
  const generatedAt = now.toISOString();
  const generation = `${generatedAt.replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
  const [members, documents, lateDays] = await Promise.all([
    membersOf(course),
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
  const summaries = members.map(({ person, enrollment }) =>
    userSummary(person, enrollment, gradeables, submissionOf, {
      timeZone: course.timeZone,
      generatedAt,
      lateDays: { defaultBudget: course.defaultStudentLateDays ?? 0, student: lateDaysOf.get(person.userId), gradeables: read },
    }),
  );
  let previous: Course['summaries'];
  try {
    await writeSummaries(course.term, course.course, generation, summaries);
    previous = await switchSummaries(course.term, course.course, { generation, generatedAt, count: summaries.length });
  } catch (error) {
    // Unless the switch went through after all (a time-out after DynamoDB applied it), readers never
    // saw this generation: leave no trace of it.
    const { current } = await getItems({ current: courseRef(course.term, course.course) }).catch(() => ({ current: undefined }));
    if (current && current.summaries?.generation !== generation) {
      await deleteGeneration(course.term, course.course, generation).catch(() => undefined);
    }
    throw error;
  }
  // The new generation is current: the run is done. Removing the old one is housekeeping whose
  // failure must not report the run as failed (a retry would only write yet another generation).
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
  const report = { course: `${course.term}/${course.course}`, summaries: summaries.length, generated_at: generatedAt, generation };
  await publishSummariesGenerated(course, report);
  return report;
}

export interface NightlyReport {
  readonly courses: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly summaries: number;
}

/**
 * The nightly run: every unarchived course, a few at a time. A course that fails is logged with
 * its name and counted; the others go on.
 */
export async function generateAllSummaries(
  options: { parallel?: number; generate?: typeof generateSummaries } = {},
): Promise<NightlyReport> {
  const generate = options.generate ?? generateSummaries;
  const courses = (await allCourses()).filter((course) => !course.archived);
  const waiting = courses.values();
  let succeeded = 0;
  let failed = 0;
  let summaries = 0;
  const worker = async () => {
    for (let next = waiting.next(); !next.done; next = waiting.next()) {
      const course = next.value;
      try {
        summaries += (await generate(course)).summaries;
        succeeded++;
      } catch (error) {
        failed++;
        logger.error({ message: 'Summary generation failed', course: `${course.term}/${course.course}`, error: error as Error });
      }
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 3 }, worker));
  const report = { courses: courses.length, succeeded, failed, summaries };
  logger.info({ message: 'Nightly summaries', ...report });
  return report;
}
