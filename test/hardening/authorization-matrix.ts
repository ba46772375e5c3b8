/**
 * The expected authorization table: for every route of shared/http/routes.ts, the requests that
 * matter (one per object-level variation) and the answer each persona must get. The test in
 * authorization.test.ts runs every row on every path of the route (aliases too) and fails for a
 * route without a row here.
 */

import { swaggerUiLinks } from '#shared/docs/swagger-ui.ts';
import { nonStudentPersonas } from '../support/courses.ts';

/** Who calls. `outsider` holds a valid token of a user who is in no course. */
export const personas = ['anonymous', 'outsider', 'student', ...nonStudentPersonas] as const;
export type MatrixPersona = (typeof personas)[number];

/**
 * - `allowed`: a success envelope (HTTP 200 with `Prefer: http-status`);
 * - `denied`: "You don't have access to this endpoint." (403);
 * - `unauthenticated`: "Unauthenticated access. Please log in." (401);
 * - `{ fail, status }`: an object-level rule refuses with exactly this message and status
 *   (`{future}` stands for the future gradeable's id).
 */
export type Outcome = 'allowed' | 'denied' | 'unauthenticated' | { readonly fail: string; readonly status: number };

/** What the test knows when it builds a request (filled in by the test's world). */
export interface MatrixWorld {
  readonly term: string;
  readonly course: string;
  readonly userIds: Record<Exclude<MatrixPersona, 'anonymous'> | 'student2', string>;
  /** A VCS gradeable open for submission. */
  readonly openGradeable: string;
  readonly openTitle: string;
  /** A VCS gradeable graders may see but whose submission opens tomorrow. */
  readonly futureGradeable: string;
  /** Credentials of a user kept for the token endpoints, so the personas' own tokens survive. */
  readonly login: { readonly user_id: string; readonly password: string };
  /** A fresh code each call (course, term and gradeable ids of writing routes). */
  readonly unique: (prefix: string) => string;
  /** The other unarchived course of the access group (where groupStaff is a full access grader and groupMentor a limited one), and a gradeable of it. */
  readonly sibling: { readonly term: string; readonly course: string; readonly gradeable: string };
  /** A webhook receiver URL registration accepts (on loopback, allowed by WEBHOOK_ALLOWED_HOSTS; nothing is delivered). */
  readonly webhookUrl: string;
  /** A webhook of the course, and one that only the instructor's DELETE removes. */
  readonly webhookId: string;
  readonly doomedWebhookId: string;
  /** A team gradeable (teams of at most 2). */
  readonly teamGradeable: string;
}

export interface MatrixRequest {
  /** Values of the path parameters; `{semester}` and `{course}` default to the world's course. */
  readonly params?: Record<string, string>;
  readonly query?: Record<string, string>;
  readonly body?: Record<string, unknown>;
}

export interface MatrixCase {
  readonly variation: string;
  readonly request: (world: MatrixWorld, persona: MatrixPersona) => MatrixRequest;
  readonly expect: Readonly<Record<MatrixPersona, Outcome>>;
}

export interface MatrixRow {
  /** The route may be absent from the route table (added by other work); its row is then skipped. */
  readonly optional?: boolean;
  readonly cases: readonly MatrixCase[];
}

const A = 'allowed' as const;
const D = 'denied' as const;
const U = 'unauthenticated' as const;
const fail = (message: string, status: number): Outcome => ({ fail: message, status });

const NOT_SAME_USER = fail('API key and specified user_id are not for the same user.', 400);
const NOT_GROUP = fail('The instructor is not in the correct group.', 403);

/** Every persona the same. */
const everyone = (outcome: Outcome): Record<MatrixPersona, Outcome> =>
  Object.fromEntries(personas.map((persona) => [persona, outcome])) as Record<MatrixPersona, Outcome>;

/** Any valid token; anonymous callers are unauthenticated. */
const anyToken = { ...everyone(A), anonymous: U };

/** course:member. */
const members = {
  anonymous: U,
  outsider: D,
  student: A,
  mentor: A,
  ta: A,
  instructor: A,
  otherInstructor: D,
  groupStaff: D,
  groupMentor: D,
  archivedGroupInstructor: D,
  faculty: D,
  superuser: D,
};
/**
 * course:instructor-or-group-staff: the course's staff, and the instructors and full access graders
 * of the group's unarchived courses (groupStaff), never its limited access graders (groupMentor) nor
 * the staff of its archived courses.
 */
const staffOrGroup = {
  anonymous: U,
  outsider: D,
  student: D,
  mentor: A,
  ta: A,
  instructor: A,
  otherInstructor: D,
  groupStaff: A,
  groupMentor: D,
  archivedGroupInstructor: D,
  faculty: D,
  superuser: D,
};
/** The same routes on the sibling course: the course's instructor and full access grader read across; its mentor does not. */
const siblingStaffOrGroup = { ...staffOrGroup, mentor: D, groupMentor: A };
const inSibling = (world: MatrixWorld, params: Record<string, string> = {}): MatrixRequest => ({
  params: { semester: world.sibling.term, course: world.sibling.course, ...params },
});
/** course:instructor. */
const instructorOnly = {
  anonymous: U,
  outsider: D,
  student: D,
  mentor: D,
  ta: D,
  instructor: A,
  otherInstructor: D,
  groupStaff: D,
  groupMentor: D,
  archivedGroupInstructor: D,
  faculty: D,
  superuser: D,
};

/** superuser: every other persona is denied. */
const superuserOnly = { ...everyone(D), anonymous: U, superuser: A };
/** The persona's own user id (anonymous, who has none, names the student's). */
const ownId = (world: MatrixWorld, persona: MatrixPersona): string => world.userIds[persona === 'anonymous' ? 'student' : persona];
/** course:instructor-or-superuser: the roster's writers. */
const instructorOrSuperuser = { ...instructorOnly, superuser: A };
const NOT_MEMBER = fail('User matrix-nobody is not in this course.', 404);

const submission = (gradeable: string, extra: Record<string, unknown> = {}): MatrixRequest => ({
  params: { gradeable_id: gradeable },
  body: { vcs_checkout: true, git_repo_id: 'none', ...extra },
});

export const expectedAccess: Record<string, MatrixRow> = {
  'issue-token': {
    cases: [{ variation: 'credentials of another user', request: (world) => ({ body: { ...world.login } }), expect: everyone(A) }],
  },
  'invalidate-token': {
    cases: [{ variation: 'credentials of another user', request: (world) => ({ body: { ...world.login } }), expect: everyone(A) }],
  },
  'token-info': { cases: [{ variation: 'own token', request: () => ({}), expect: anyToken }] },
  'auth-methods': { cases: [{ variation: 'the ways in', request: () => ({}), expect: everyone(A) }] },
  me: { cases: [{ variation: 'own profile', request: () => ({}), expect: anyToken }] },
  'list-courses': {
    cases: [
      { variation: 'own courses', request: () => ({}), expect: anyToken },
      {
        variation: "another user's courses (user_id)",
        request: (world) => ({ query: { user_id: world.userIds.student } }),
        expect: { ...everyone(D), anonymous: U, student: A, superuser: A },
      },
    ],
  },
  'create-course': {
    cases: [
      {
        variation: 'for themselves (superusers: for the instructor) from this course',
        request: (world, persona) => ({
          body: {
            course_semester: world.term,
            course_title: world.unique('new'),
            head_instructor: persona === 'superuser' || persona === 'anonymous' ? world.userIds.instructor : world.userIds[persona],
            base_course_semester: world.term,
            base_course_title: world.course,
          },
        }),
        expect: {
          ...everyone(D),
          anonymous: U,
          instructor: A,
          otherInstructor: NOT_GROUP,
          archivedGroupInstructor: NOT_GROUP,
          faculty: NOT_GROUP,
          superuser: A,
        },
      },
    ],
  },
  'course-users': {
    cases: [
      { variation: 'the course', request: () => ({}), expect: staffOrGroup },
      { variation: 'the sibling course of its access group', request: (world) => inSibling(world), expect: siblingStaffOrGroup },
    ],
  },
  'course-graders': {
    cases: [
      { variation: 'the course', request: () => ({}), expect: staffOrGroup },
      { variation: 'the sibling course of its access group', request: (world) => inSibling(world), expect: siblingStaffOrGroup },
    ],
  },
  'create-term': {
    cases: [
      {
        variation: 'a new term',
        request: (world) => ({
          body: { term_id: world.unique('t'), term_name: 'Matrix Term', start_date: '2027-01-10', end_date: '2027-05-10' },
        }),
        expect: { ...everyone(D), anonymous: U, superuser: A },
      },
    ],
  },
  'upload-gradeable': {
    cases: [
      {
        variation: 'a new gradeable',
        request: (world) => ({ body: { id: world.unique('hw'), title: 'Matrix homework', type: 'Electronic File' } }),
        expect: instructorOnly,
      },
    ],
  },
  'download-gradeable': {
    cases: [
      { variation: 'an open gradeable', request: (world) => ({ params: { gradeable_id: world.openGradeable } }), expect: staffOrGroup },
      {
        variation: 'a gradeable of the sibling course of its access group',
        request: (world) => inSibling(world, { gradeable_id: world.sibling.gradeable }),
        expect: siblingStaffOrGroup,
      },
    ],
  },
  'list-gradeables': { cases: [{ variation: 'the course', request: () => ({}), expect: members }] },
  'submit-vcs': {
    cases: [
      { variation: 'own submission', request: (world) => submission(world.openGradeable), expect: members },
      {
        variation: 'for student2 (user_id)',
        request: (world) => submission(world.openGradeable, { user_id: world.userIds.student2 }),
        expect: { ...members, student: NOT_SAME_USER, mentor: NOT_SAME_USER },
      },
      {
        variation: 'a gradeable not yet open for students',
        request: (world) => submission(world.futureGradeable),
        expect: {
          ...members,
          student: fail("Invalid gradeable id '{future}'", 404),
          mentor: fail("Invalid gradeable id '{future}'", 404),
        },
      },
    ],
  },
  // The open gradeable is a VCS one: whoever may submit gets the files routes' refusal of it;
  // test/http/submit-files.test.ts covers files gradeables' object-level rules.
  'submit-files': {
    cases: [
      {
        variation: 'own submission',
        request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: { upload_ids: ['x'] } }),
        expect: fileMembers(),
      },
      {
        variation: 'for student2 (user_id)',
        request: (world) => ({
          params: { gradeable_id: world.openGradeable },
          body: { upload_ids: ['x'], user_id: world.userIds.student2 },
        }),
        expect: { ...fileMembers(), student: NOT_SAME_USER, mentor: NOT_SAME_USER },
      },
    ],
  },
  'file-uploads': {
    cases: [
      {
        variation: 'own uploads',
        request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: { files: [{ name: 'a.c', size: 1 }] } }),
        expect: fileMembers(),
      },
    ],
  },
  'submission-files': {
    cases: [
      {
        variation: 'own version 1',
        request: (world) => ({ params: { gradeable_id: world.openGradeable }, query: { version: '1' } }),
        expect: noFiles(),
      },
      {
        variation: "student2 (section 2, outside the mentor's) via user_id",
        request: (world) => ({ params: { gradeable_id: world.openGradeable }, query: { version: '1', user_id: world.userIds.student2 } }),
        expect: { ...noFiles(), student: NOT_SAME_USER, mentor: fail('You do not grade section 2.', 403) },
      },
    ],
  },
  'gradeable-values': { cases: submissionReadCases() },
  'gradeable-attempts': { cases: submissionReadCases() },
  'set-active-version': {
    cases: [
      {
        variation: 'own submission: cancel',
        request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: { version: 0 } }),
        expect: members,
      },
      {
        variation: 'for student2 (user_id): cancel',
        request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: { version: 0, user_id: world.userIds.student2 } }),
        expect: { ...members, student: NOT_SAME_USER, mentor: NOT_SAME_USER },
      },
    ],
  },
  gradebook: {
    cases: [
      {
        variation: 'an open gradeable',
        request: (world) => ({ params: { gradeable_id: world.openGradeable } }),
        expect: { ...members, student: D },
      },
    ],
  },
  regrade: {
    cases: [
      {
        variation: 'every active version of the open gradeable',
        request: (world) => ({ params: { gradeable_id: world.openGradeable } }),
        expect: instructorOnly,
      },
    ],
  },
  'regrade-status': {
    cases: [
      {
        variation: 'a regrade that does not exist',
        request: () => ({ params: { regrade_id: 'rg_AAAAAAAAAAAAAAAAAAAAAA' } }),
        expect: { ...instructorOnly, instructor: fail('No regrade rg_AAAAAAAAAAAAAAAAAAAAAA in this course.', 404) },
      },
    ],
  },
  'save-ta-grade': { cases: gradingCases({ component_id: 0, custom_points: 1 }) },
  'ta-grade': { cases: gradingCases() },
  'generate-summaries': { cases: [{ variation: 'the course', request: () => ({}), expect: instructorOnly }] },
  'summaries-job': {
    cases: [
      {
        variation: 'a summaries job that does not exist',
        request: () => ({ params: { job_id: 'sj_AAAAAAAAAAAAAAAAAAAAAA' } }),
        expect: { ...instructorOnly, instructor: fail('No summaries job sj_AAAAAAAAAAAAAAAAAAAAAA in this course.', 404) },
      },
    ],
  },
  'list-summaries': { cases: [{ variation: 'the course', request: () => ({}), expect: instructorOnly }] },
  'user-summary': {
    cases: [
      {
        variation: 'own summary',
        request: (world, persona) => ({ params: { user_id: persona === 'anonymous' ? world.userIds.student : world.userIds[persona] } }),
        expect: members,
      },
      {
        variation: "student2's summary",
        request: (world) => ({ params: { user_id: world.userIds.student2 } }),
        expect: { ...members, student: D, mentor: D, ta: D },
      },
    ],
  },
  // Late days: instructors set budgets, grants and extensions; a student's table is theirs,
  // any student's for instructors and full access graders, their sections' for limited access graders.
  'set-course-late-days': {
    cases: [{ variation: 'the course', request: () => ({ body: { default_student_late_days: 0 } }), expect: instructorOnly }],
  },
  'grant-late-days': {
    cases: [
      {
        variation: 'student (section 1)',
        request: (world) => ({ params: { user_id: world.userIds.student }, body: { allowed_late_days: 1, since: '2026-09-01' } }),
        expect: instructorOnly,
      },
    ],
  },
  'enroll-member': {
    cases: [
      {
        variation: 'a new user id, with an account',
        request: (world) => ({
          params: { user_id: world.unique('m') },
          body: { group: 'Student', registration_section: '1', first_name: 'Matrix', last_name: 'Member', email: 'matrix@example.edu' },
        }),
        expect: instructorOrSuperuser,
      },
      {
        variation: 'student2 (section 2), unchanged',
        request: (world) => ({ params: { user_id: world.userIds.student2 }, body: { group: 'Student', registration_section: '2' } }),
        expect: instructorOrSuperuser,
      },
    ],
  },
  'drop-member': {
    cases: [
      {
        variation: 'a user id of nobody in the course',
        request: () => ({ params: { user_id: 'matrix-nobody' } }),
        expect: {
          ...instructorOrSuperuser,
          instructor: NOT_MEMBER,
          superuser: NOT_MEMBER,
        },
      },
    ],
  },
  'import-class-list': {
    cases: [
      {
        variation: 'a class list of one new student, dry run',
        request: (world) => ({
          query: { dry_run: 'true' },
          body: {
            class_list: `user_id,first_name,last_name,email,registration_section,group\n${world.unique('m')},A,B,ab@example.edu,1,Student\n`,
          },
        }),
        expect: instructorOrSuperuser,
      },
    ],
  },
  'set-extension': {
    cases: [
      {
        variation: 'student (section 1) on an open gradeable',
        request: (world) => ({
          params: { gradeable_id: world.openGradeable, user_id: world.userIds.student },
          body: { late_days: 1, reason_for_exception: 'Matrix' },
        }),
        expect: instructorOnly,
      },
    ],
  },
  'student-late-days': {
    cases: [
      { variation: 'student (section 1)', request: (world) => ({ params: { user_id: world.userIds.student } }), expect: members },
      {
        variation: 'student2 (section 2)',
        request: (world) => ({ params: { user_id: world.userIds.student2 } }),
        expect: { ...members, student: D, mentor: fail('You do not grade section 2.', 403) },
      },
    ],
  },
  'create-webhook': {
    cases: [
      {
        variation: 'a receiver for failed gradings',
        request: (world) => ({ body: { url: world.webhookUrl, events: ['submission.failed'] } }),
        expect: instructorOnly,
      },
    ],
  },
  'list-webhooks': { cases: [{ variation: 'the course', request: () => ({}), expect: instructorOnly }] },
  'delete-webhook': {
    cases: [
      {
        variation: 'a webhook of the course',
        request: (world) => ({ params: { webhook_id: world.doomedWebhookId } }),
        expect: instructorOnly,
      },
    ],
  },
  'list-webhook-deliveries': {
    cases: [
      { variation: 'a webhook of the course', request: (world) => ({ params: { webhook_id: world.webhookId } }), expect: instructorOnly },
      {
        variation: 'a page of its deliveries',
        request: (world) => ({ params: { webhook_id: world.webhookId }, query: { page_size: '1' } }),
        expect: instructorOnly,
      },
    ],
  },
  'replay-webhook-delivery': {
    cases: [
      {
        variation: 'a delivery that does not exist',
        request: (world) => ({ params: { webhook_id: world.webhookId, delivery_id: 'msg_000000000000000000000' } }),
        expect: { ...instructorOnly, instructor: fail('No delivery msg_000000000000000000000 of this webhook.', 404) },
      },
    ],
  },
  'list-teams': {
    cases: [
      { variation: 'a team gradeable', request: (world) => ({ params: { gradeable_id: world.teamGradeable } }), expect: instructorOnly },
    ],
  },
  'set-team': {
    cases: [
      {
        variation: 'a new team of a student',
        request: (world) => ({
          params: { gradeable_id: world.teamGradeable, team_id: world.unique('team') },
          body: { members: [world.userIds.student] },
        }),
        expect: instructorOnly,
      },
    ],
  },
  'delete-team': {
    cases: [
      {
        variation: 'a team that does not exist',
        request: (world) => ({ params: { gradeable_id: world.teamGradeable, team_id: 'nobody' } }),
        expect: { ...instructorOnly, instructor: fail('Team nobody does not exist for this gradeable.', 404) },
      },
    ],
  },
  openapi: { optional: true, cases: [{ variation: 'the document', request: () => ({}), expect: everyone(A) }] },
  'api-docs': { cases: [{ variation: 'the reference page', request: () => ({}), expect: everyone(A) }] },
  'api-docs-asset': {
    cases: [{ variation: 'its script', request: () => ({ params: { asset: swaggerUiLinks().script } }), expect: everyone(A) }],
  },
  'list-users': { cases: [{ variation: 'every user', request: () => ({}), expect: superuserOnly }] },
  'create-user': {
    cases: [
      {
        variation: 'a new user',
        request: (world) => ({ body: { user_id: world.unique('mx'), first_name: 'Matrix', last_name: 'User', email: 'mx@example.edu' } }),
        expect: superuserOnly,
      },
    ],
  },
  'get-user': {
    cases: [
      { variation: 'own account', request: (world, persona) => ({ params: { user_id: ownId(world, persona) } }), expect: anyToken },
      {
        variation: "another user's (student2)",
        request: (world) => ({ params: { user_id: world.userIds.student2 } }),
        expect: superuserOnly,
      },
    ],
  },
  'update-user': {
    cases: [
      {
        variation: 'own names',
        request: (world, persona) => ({ params: { user_id: ownId(world, persona) }, body: { last_name: 'Matrix' } }),
        expect: anyToken,
      },
      {
        variation: 'own level (mass assignment)',
        request: (world, persona) => ({ params: { user_id: ownId(world, persona) }, body: { level: 'superuser' } }),
        expect: {
          ...everyone(fail('You may change only your own first_name and last_name; level is changed by a superuser.', 403)),
          anonymous: U,
          superuser: A,
        },
      },
      {
        variation: 'own account disabled (mass assignment)',
        request: (world, persona) => ({ params: { user_id: ownId(world, persona) }, body: { disabled: true } }),
        expect: {
          ...everyone(fail('You may change only your own first_name and last_name; disabled is changed by a superuser.', 403)),
          anonymous: U,
          superuser: fail('Superusers cannot disable their own account; another superuser can.', 403),
        },
      },
      {
        variation: "another user's names (student2)",
        request: (world) => ({ params: { user_id: world.userIds.student2 }, body: { last_name: 'Matrix' } }),
        expect: superuserOnly,
      },
    ],
  },
  'set-user-password': {
    cases: [
      { variation: "student2's, generated", request: (world) => ({ params: { user_id: world.userIds.student2 } }), expect: superuserOnly },
    ],
  },
  'link-identity': {
    cases: [
      {
        variation: "student2's, where no identity provider is configured",
        request: (world) => ({ params: { user_id: world.userIds.student2 }, body: { subject: 'matrix-subject' } }),
        expect: {
          ...superuserOnly,
          superuser: fail('This deployment does not sign in through an identity provider: log in with user_id and password.', 400),
        },
      },
    ],
  },
  'change-password': {
    cases: [
      {
        variation: 'own, with a wrong current password',
        request: () => ({ body: { current_password: 'not-the-password', new_password: 'a fine new passphrase' } }),
        expect: { ...everyone(fail('The current password is not right.', 403)), anonymous: U },
      },
    ],
  },
  'list-terms': { cases: [{ variation: 'every term', request: () => ({}), expect: anyToken }] },
  'user-audit': {
    cases: [
      { variation: "student2's trail", request: (world) => ({ params: { user_id: world.userIds.student2 } }), expect: superuserOnly },
    ],
  },
  'course-audit': { cases: [{ variation: "the course's trail", request: () => ({}), expect: instructorOnly }] },
  // Changing gradeables: course instructors only. A gradeable that does not exist keeps the world as it is.
  'replace-gradeable': {
    cases: [
      {
        variation: 'a gradeable that does not exist',
        request: (world) => {
          const id = world.unique('hw');
          return { params: { gradeable_id: id }, body: { id, title: 'Matrix homework', type: 'Electronic File' } };
        },
        expect: { ...instructorOnly, instructor: fail('Gradeable does not exist', 404) },
      },
    ],
  },
  'delete-gradeable': {
    cases: [
      {
        variation: 'a gradeable that does not exist',
        request: (world) => ({ params: { gradeable_id: world.unique('hw') } }),
        expect: { ...instructorOnly, instructor: fail('Gradeable does not exist', 404) },
      },
    ],
  },
  // Course settings: course instructors; archiving also superusers (unarchiving an unarchived course changes nothing).
  'course-config': { cases: [{ variation: 'the course', request: () => ({}), expect: instructorOnly }] },
  'set-course-config': {
    cases: [
      { variation: 'the course', request: () => ({ body: { name: 'default_student_late_days', entry: '0' } }), expect: instructorOnly },
    ],
  },
  'unarchive-course': {
    cases: [{ variation: 'the course (not archived)', request: () => ({}), expect: { ...instructorOnly, superuser: A } }],
  },
  'archive-course': {
    cases: [
      {
        variation: 'a course that does not exist',
        request: (world) => ({ params: { course: world.unique('c') } }),
        expect: { ...everyone(fail('Failed to load course. Check course title and ensure it exists.', 404)), anonymous: U },
      },
    ],
  },
};

/** values and attempts: own, another student in or outside the grader's sections, a future gradeable. */
/** Course members, each refused the VCS gradeable by a files route. */
function fileMembers(): Record<MatrixPersona, Outcome> {
  const onlyFiles = fail(
    'Only Electronic File gradeables without version control take files; submit a VCS gradeable with POST …/upload.',
    400,
  );
  return { ...members, student: onlyFiles, mentor: onlyFiles, ta: onlyFiles, instructor: onlyFiles };
}

/** Course members, each told a VCS gradeable's version has no files. */
function noFiles(): Record<MatrixPersona, Outcome> {
  const none = fail('Version 1 of this submission has no files.', 404);
  return { ...members, student: none, mentor: none, ta: none, instructor: none };
}

function submissionReadCases(): MatrixCase[] {
  const gradeableMissing = fail('Gradeable does not exist', 404);
  return [
    { variation: 'own', request: (world) => ({ params: { gradeable_id: world.openGradeable } }), expect: members },
    {
      variation: 'student (section 1) via user_id',
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, query: { user_id: world.userIds.student } }),
      expect: members,
    },
    {
      variation: "student2 (section 2, outside the mentor's) via user_id",
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, query: { user_id: world.userIds.student2 } }),
      expect: { ...members, student: NOT_SAME_USER, mentor: fail('You do not grade section 2.', 403) },
    },
    {
      variation: 'a gradeable not yet open for students',
      request: (world) => ({ params: { gradeable_id: world.futureGradeable } }),
      expect: { ...members, student: gradeableMissing },
    },
  ];
}

/**
 * TA grading: course staff only; limited access graders only for their sections. The open
 * gradeable has no TA grading (ta_grading false), so staff who may grade get that refusal.
 */
function gradingCases(body?: Record<string, unknown>): MatrixCase[] {
  const notTaGraded = fail('This gradeable is not graded by TAs (ta_grading is false).', 400);
  const staff = { ...members, student: D, mentor: notTaGraded, ta: notTaGraded, instructor: notTaGraded };
  return [
    {
      variation: 'student (section 1)',
      request: (world) => ({ params: { gradeable_id: world.openGradeable, user_id: world.userIds.student }, ...(body ? { body } : {}) }),
      expect: staff,
    },
    {
      variation: "student2 (section 2, outside the mentor's)",
      request: (world) => ({ params: { gradeable_id: world.openGradeable, user_id: world.userIds.student2 }, ...(body ? { body } : {}) }),
      expect: { ...staff, mentor: fail('You do not grade section 2.', 403) },
    },
  ];
}
