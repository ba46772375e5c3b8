/** The deployed day's steps of `open-inquiry` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, handedOn, INQUIRED, inquiriesPath, TERM, type RouteDay } from '../../test/deployed/day.ts';
import { daysFromNow } from '../../test/support/dates.ts';
import { rubricComponent } from '../../test/support/rubric.ts';

export const day: RouteDay = [
  {
    title: 'a student opens a grade inquiry about a released grade, and is refused a second about the same component',
    phase: 'inquiry opened',
    run: async () => {
      const component = (title: string) => rubricComponent(title, { max_value: 5, upper_clamp: 5 });
      await call('POST', `/api/${TERM}/${COURSE}/upload`, {
        as: 'prof',
        json: {
          id: INQUIRED,
          title: 'Homework 2: graded and released',
          type: 'Electronic File',
          syllabus_bucket: 'homework',
          ta_grading: true,
          grade_inquiries: true,
          grade_inquiry_per_component_allowed: true,
          dates: {
            ta_view_start_date: daysFromNow(-20),
            submission_open_date: daysFromNow(-19),
            submission_due_date: daysFromNow(-10),
            grade_start_date: daysFromNow(-9),
            grade_due_date: daysFromNow(-8),
            grade_released_date: daysFromNow(-1),
            grade_inquiry_start_date: daysFromNow(-1),
            grade_inquiry_due_date: daysFromNow(6),
          },
          rubric: [component('Style'), component('Design')],
        },
      });
      const opened = await call('POST', inquiriesPath, {
        as: 'student',
        json: { content: 'Why did style lose a point?', component_id: 0 },
      });
      handedOn.inquiryId = (opened.json?.data as { inquiry_id?: string } | undefined)?.inquiry_id ?? 'iq_000000000000000000000';
      await call('POST', inquiriesPath, {
        as: 'student',
        json: { content: 'And again?', component_id: 0 },
        expect: { fail: 'A grade inquiry about rubric component 0 is open already: post to it instead.', status: 409 },
      });
    },
  },
];
