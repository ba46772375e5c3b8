/** The deployed day's steps of `upload-gradeable` (test/deployed/day.ts says how the day runs them). */
import { daysFromNow, openDates } from '../../test/support/dates.ts';
import { rubricComponent } from '../../test/support/rubric.ts';
import {
  call,
  COURSE,
  fail,
  FILES,
  git,
  GRADEABLE,
  MISTAKE,
  QUIZ,
  TERM,
  testCases,
  UNAPPROVED,
  type RouteDay,
} from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor uploads a homework from git, one naming an image nobody approved, and a quiz graded by TAs',
    phase: 'gradeables',
    run: async () => {
      const gradeable = {
        id: GRADEABLE,
        title: 'Homework 1: Hello (git)',
        type: 'Electronic File',
        syllabus_bucket: 'homework',
        vcs: { repository_type: 'self-hosted', vcs_path: `${git.url}/{$gradeable_id}-{$user_id}.git`, vcs_subdirectory: '' },
        dates: openDates(),
        autograding: { test_cases: testCases },
      };
      await call('POST', `/api/${TERM}/${COURSE}/upload`, { as: 'prof', json: gradeable });
      await call('POST', `/api/${TERM}/${COURSE}/upload`, {
        as: 'prof',
        json: {
          ...gradeable,
          id: UNAPPROVED,
          title: 'Homework 0: an image nobody approved',
          autograding: { image: 'nope', test_cases: testCases.slice(0, 1) },
        },
      });
      const component = (title: string, max: number) => rubricComponent(title, { max_value: max, upper_clamp: max });
      await call('POST', `/api/${TERM}/${COURSE}/upload`, {
        as: 'prof',
        json: {
          id: QUIZ,
          title: 'Quiz 1',
          type: 'Numeric',
          syllabus_bucket: 'quiz',
          ta_grading: true,
          dates: {
            ta_view_start_date: daysFromNow(-20),
            grade_start_date: daysFromNow(-9),
            grade_due_date: daysFromNow(-8),
            grade_released_date: daysFromNow(-1),
          },
          rubric: [component('Q1', 10), component('Q2', 5)],
        },
      });
    },
  },
  {
    title: 'a dry run of a gradeable uploaded twice by mistake, then its upload',
    phase: 'gradeable uploaded by mistake',
    run: async () => {
      const dryRun = await call('POST', `/api/${TERM}/${COURSE}/upload?dry_run=true`, { as: 'prof', json: MISTAKE });
      if (dryRun.json?.data && dryRun.json.data.id !== MISTAKE.id) fail('upload dry run', dryRun.text.slice(0, 500));
      await call('POST', `/api/${TERM}/${COURSE}/upload`, { as: 'prof', json: MISTAKE });
    },
  },
  {
    title: 'the instructor uploads a gradeable that takes files',
    phase: 'files gradeable uploaded',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/upload`, {
        as: 'prof',
        json: {
          id: FILES,
          title: 'Homework 2: Hello (files)',
          type: 'Electronic File',
          dates: openDates(),
          autograding: { test_cases: testCases },
        },
      });
    },
  },
];
