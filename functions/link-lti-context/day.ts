/** The deployed day's steps of `link-lti-context` (test/deployed/day.ts says how the day runs them). */
import { expect } from 'vitest';
import { ROLES } from '../../test/support/lti-platform.ts';
import {
  call,
  collectProblems,
  COURSE,
  expectNoFailures,
  fail,
  handedOn,
  lms,
  LMS_CONTEXT,
  lmsLaunch,
  personas,
  TERM,
  type PersonaName,
  type RouteDay,
} from '../../test/deployed/day.ts';

/** How the LMS lists each person of the day's course: staff as staff, students as learners. */
const lmsRoles: Record<PersonaName, string> = {
  admin: ROLES.administrator,
  prof: ROLES.instructor,
  ta: ROLES.teachingAssistant,
  mentor: ROLES.grader,
  student: ROLES.learner,
  student2: ROLES.learner,
};

export const day: RouteDay = [
  {
    title: 'an instructor with an API token, not a launch session, cannot link an LMS course',
    phase: 'courses read',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/lti/link`, {
        as: 'prof',
        json: { section: '1' },
        expect: {
          fail: 'An LMS course is linked from its instructor’s launch while it is not linked yet: open the tool from that LMS course, then link it.',
          status: 403,
        },
      });
    },
  },
  {
    title:
      "the institution's LMS is registered; its instructor launches the tool through the LMS and links the LMS course; a student's launch is a launch session of the course; a roster sync's dry run finds the class as it is",
    phase: 'lms course linked',
    timeoutMs: 120_000,
    run: async () => {
      for (const name of Object.keys(personas) as PersonaName[]) {
        lms!.addUser({ sub: `lms-${name}`, email: `${name}@example.edu`, email_verified: true, name: personas[name].given });
      }
      const registered = await call('POST', '/api/lti/registrations', {
        as: 'admin',
        json: { ...lms!.registration({ user_id_claim: 'email', user_id_suffix: '@example.edu' }), label: 'The institution LMS' },
      });
      handedOn.lmsRegistration = registered.json?.data?.registration_id as string | undefined;
      if (!handedOn.lmsRegistration) return expectNoFailures();

      const instructor = await lmsLaunch('prof', [ROLES.instructor]);
      const linked = await call('POST', `/api/${TERM}/${COURSE}/lti/link`, { token: instructor ?? '', json: { section: '1' } });
      const link = linked.json?.data as { registration_id?: string; context_id?: string } | undefined;
      if (link?.registration_id && link.context_id)
        handedOn.lmsLink = { registration_id: link.registration_id, context_id: link.context_id };
      else fail('link the LMS course', linked.text.slice(0, 500));

      const session = await lmsLaunch('student', [ROLES.learner]);
      const whoami = await call('GET', '/api/token', { token: session ?? '' });
      expect(whoami.json?.data).toMatchObject({
        method: 'lti',
        launch: { registration_id: handedOn.lmsRegistration, semester: TERM, course: COURSE },
      });
      // A launch session is for its course only.
      await call('GET', `/api/${TERM}/${COURSE}/gradeables`, { token: session ?? '' });

      lms!.roster.setMembers(
        LMS_CONTEXT,
        (Object.keys(personas) as PersonaName[])
          .filter((name) => name !== 'admin')
          .map((name) => ({
            user_id: `lms-${name}`,
            roles: [lmsRoles[name]],
            status: 'Active',
            email: `${name}@example.edu`,
            email_verified: true,
          })),
      );
      const sync = await call('POST', `/api/${TERM}/${COURSE}/lti/roster-sync`, { as: 'prof', json: { dry_run: true } });
      expect(sync.json?.data, sync.text.slice(0, 500)).toMatchObject({ created: 0, dropped: 0, rejected: [] });
      collectProblems('LMS course linked');
      expectNoFailures();
    },
  },
];
