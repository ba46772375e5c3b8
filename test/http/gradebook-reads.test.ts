/**
 * What a page of the gradebook reads grows with the page, not the class: the same page (size,
 * position, grader) of a course of 30 students and of one of 300 costs the same DynamoDB requests
 * and reads the same number of items, counted in this process, where the local API runs the
 * handlers. Every page together is the whole gradebook the admin's export reads from the class.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Course } from '#shared/courses/course.ts';
import { batchWrite } from '#shared/data/batch-write.ts';
import { dynamo } from '#shared/data/client.ts';
import { enrollmentItem } from '#shared/data/enrollments.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { loadGradebook } from '#shared/gradebook/gradebook.ts';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { addMember, createCourse, createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { enrollment } from '../support/enrollments.ts';
import { uploadGradeable, vcsGradeableJson } from '../support/gradeables.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { gradedSubmissionItem } from '../support/submissions.ts';
import { setLateDayBudget } from '../support/late-days.ts';

let api: TestApi;
let world: CourseWorld;
const courses: Record<'small' | 'large', Course> = {} as never;
const SIZES = { small: 30, large: 300 } as const;
const GRADEABLES = ['hw1', 'hw2', 'hw3', 'hw4'];

/** DynamoDB requests the routes sent in this process while counting: by operation, and the items they answered. */
let counted: { operation: string; items: number }[] | undefined;
function countRequests() {
  const outbox = tableName(tables.webhookOutbox);
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const output = result.output as { Count?: number; Responses?: Record<string, unknown[]>; Item?: unknown };
      const items =
        output.Count ?? Object.values(output.Responses ?? {}).reduce((sum, list) => sum + list.length, 0) + (output.Item ? 1 : 0);
      // The local server's outbox relay sweeps the webhook outbox on its own time: not the page's.
      const table = (args.input as { TableName?: string }).TableName;
      if (table !== outbox) counted?.push({ operation: String(context.commandName).replace(/Command$/, ''), items });
      return result;
    },
    { step: 'initialize', name: 'gradebookReadCounter' },
  );
}

/** A gradebook page over HTTP with the requests it made (operation → count) and the items they read. */
async function page(course: Course, query: string, token: Record<string, string>) {
  counted = [];
  const answer = await api.get(`/${course.term}/${course.course}/gradeable/hw4/gradebook?${query}`, token);
  const requests = counted;
  counted = undefined;
  expect(answer.json.status, answer.text.slice(0, 300)).toBe('success');
  const operations: Record<string, number> = {};
  for (const { operation } of requests) operations[operation] = (operations[operation] ?? 0) + 1;
  return {
    students: answer.json.data.students as { user_id: string; registration_section: string }[],
    next: answer.json.data.next_cursor as string | null,
    operations,
    items: requests.reduce((sum, request) => sum + request.items, 0),
  };
}

/** `count` students in sections 1–10 (at least 3 each), each with a graded submission of every gradeable, some late. */
async function fill(course: Course, count: number) {
  const { term, course: code } = course;
  for (const [index, id] of GRADEABLES.entries()) {
    await uploadGradeable(api, world, vcsGradeableJson(id, { dueInDays: -10 + index, lateDays: 2 }), course);
  }
  // A budget of 3 days: charged gradeable by gradeable, so some students have none left by hw4.
  await setLateDayBudget(api, world, 3, course);
  const writes = Array.from({ length: count }, (_, index) => {
    const userId = `gb_${String(index).padStart(4, '0')}`;
    const member = enrollment(userId, { term, course: code, registrationSection: String((index % 10) + 1) });
    return [
      { tableName: tableName(tables.enrollments), request: { PutRequest: { Item: enrollmentItem(member) } } },
      // hw4 is 0–2 days late; every fifth student spent their 3 days on the three before it.
      ...GRADEABLES.map((gradeableId, position) => ({
        tableName: tableName(tables.submissions),
        request: {
          PutRequest: {
            Item: gradedSubmissionItem({
              term,
              course: code,
              gradeableId,
              userId,
              points: index % 7,
              daysLate: position === 3 ? index % 3 : Number(index % 5 === 0),
            }),
          },
        },
      })),
    ];
  }).flat();
  await batchWrite(writes, { parallel: 4 });
}

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  courses.small = await createCourse(world.term, world.users.instructor);
  courses.large = await createCourse(world.term, world.users.instructor);
  for (const size of ['small', 'large'] as const) {
    await fill(courses[size], SIZES[size]);
    // The course's limited access grader grades sections 2 and 7 here.
    await addMember(courses[size], world.users.mentor, 3, null, ['2', '7']);
  }
  countRequests();
}, 240_000);
afterAll(() => api.close());

describe('a gradebook page', () => {
  it('costs the same requests and items in a class of 30 as in one of 300', async () => {
    const { instructor, mentor } = world.tokens;
    const cost = async (size: 'small' | 'large') => {
      const first = await page(courses[size], 'page_size=5', instructor);
      const second = await page(courses[size], `page_size=5&cursor=${first.next}`, instructor);
      const limited = await page(courses[size], 'page_size=2', mentor);
      return { first, second, limited };
    };
    const small = await cost('small');
    const large = await cost('large');
    for (const kind of ['first', 'second', 'limited'] as const) {
      expect(large[kind].operations, kind).toEqual(small[kind].operations);
      expect(large[kind].items, kind).toBe(small[kind].items);
      expect(large[kind].students).toHaveLength(kind === 'limited' ? 2 : 5);
    }
    // The token check with the course's gradeables, the page's students, then at once a batch of
    // their submissions, one of their late days and one of their days late on the three gradeables due before.
    expect(small.first.operations).toEqual({ BatchGetItem: 4, Query: 2 });
    expect(small.first.items).toBeLessThan(60);
    expect(small.limited.students.every((row) => row.registration_section === '2')).toBe(true);
  });

  it('pages, together, into the whole gradebook the export reads from the class', async () => {
    for (const [persona, grader] of [
      ['instructor', 'instructor'],
      ['mentor', 'mentor'],
    ] as const) {
      const rows: unknown[] = [];
      let cursor: string | null = null;
      do {
        const answer: { students: unknown[]; next: string | null } = await page(
          courses.large,
          `page_size=37${cursor ? `&cursor=${cursor}` : ''}`,
          world.tokens[persona],
        );
        rows.push(...answer.students);
        cursor = answer.next;
      } while (cursor !== null);
      const { large } = courses;
      const gradeable = (await gradeablesOfCourse(large.term, large.course)).find((document) => document.id === 'hw4')!;
      const member = enrollment(world.users[grader].userId, {
        term: large.term,
        course: large.course,
        group: grader === 'mentor' ? 3 : 1,
        registrationSection: null,
        gradingSections: grader === 'mentor' ? ['2', '7'] : [],
      });
      // The course as the API reads it, with the budget set since it was made.
      const whole = await loadGradebook({ ...large, defaultStudentLateDays: 3 }, gradeable, member);
      expect(rows).toHaveLength(grader === 'mentor' ? 60 : 300);
      expect(rows).toEqual(
        [...whole].sort(
          (a, b) =>
            Number(a.registration_section) - Number(b.registration_section) || (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0),
        ),
      );
      // Late days charged before hw4 decide some statuses (every fifth student has none left for it).
      if (grader === 'instructor')
        expect(new Set(rows.map((row) => (row as { status: string }).status))).toEqual(new Set(['Good', 'Late', 'Bad']));
    }
  });
});
