/**
 * The words of the authorization matrix: who calls, what each must get, and the outcomes and cases
 * many routes share. Each route's own cases are its `authorization` in
 * `functions/<name>/test-rows.ts`, the requests that matter (one per object-level variation) and the
 * answer each persona must get; authorization.test.ts runs every case on every path of the route
 * (aliases too) as every persona.
 */

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
  /** The body is sent as a url-encoded form (a platform-facing route's), not JSON. */
  readonly form?: true;
}

export interface MatrixCase {
  readonly variation: string;
  readonly request: (world: MatrixWorld, persona: MatrixPersona) => MatrixRequest;
  readonly expect: Readonly<Record<MatrixPersona, Outcome>>;
}

export const A = 'allowed' as const;
export const D = 'denied' as const;
export const U = 'unauthenticated' as const;
export const fail = (message: string, status: number): Outcome => ({ fail: message, status });

export const NOT_SAME_USER = fail('API key and specified user_id are not for the same user.', 400);
export const NOT_GROUP = fail(
  'The instructor is not in the correct group. Only an instructor of the base course, or of an unarchived course of its access group, may base a course on it: ask one of them to add the head instructor as an instructor of the base course, or a superuser to create the course without a base course.',
  403,
);

/** Every persona the same. */
export const everyone = (outcome: Outcome): Record<MatrixPersona, Outcome> =>
  Object.fromEntries(personas.map((persona) => [persona, outcome])) as Record<MatrixPersona, Outcome>;

/** Any valid token; anonymous callers are unauthenticated. */
export const anyToken = { ...everyone(A), anonymous: U };

/** course:member. */
export const members = {
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
export const staffOrGroup = {
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
export const siblingStaffOrGroup = { ...staffOrGroup, mentor: D, groupMentor: A };
export const inSibling = (world: MatrixWorld, params: Record<string, string> = {}): MatrixRequest => ({
  params: { semester: world.sibling.term, course: world.sibling.course, ...params },
});
/** course:instructor. */
export const instructorOnly = {
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
export const superuserOnly = { ...everyone(D), anonymous: U, superuser: A };
/** The persona's own user id (anonymous, who has none, names the student's). */
export const ownId = (world: MatrixWorld, persona: MatrixPersona): string => world.userIds[persona === 'anonymous' ? 'student' : persona];
/** course:instructor-or-superuser: the roster's writers. */
export const instructorOrSuperuser = { ...instructorOnly, superuser: A };
export const NOT_MEMBER = fail('User matrix-nobody is not in this course.', 404);

/** A submission from git to the gradeable, with `extra` fields. */
export const submission = (gradeable: string, extra: Record<string, unknown> = {}): MatrixRequest => ({
  params: { gradeable_id: gradeable },
  body: { vcs_checkout: true, git_repo_id: 'none', ...extra },
});

/** Course members, each refused the VCS gradeable by a files route. */
export function fileMembers(): Record<MatrixPersona, Outcome> {
  const onlyFiles = fail(
    'Only Electronic File gradeables without version control take files; submit a VCS gradeable with POST …/upload.',
    400,
  );
  return { ...members, student: onlyFiles, mentor: onlyFiles, ta: onlyFiles, instructor: onlyFiles };
}

/** Course members, each told a VCS gradeable's version has no files. */
export function noFiles(): Record<MatrixPersona, Outcome> {
  const none = fail('Version 1 of this submission has no files.', 404);
  return { ...members, student: none, mentor: none, ta: none, instructor: none };
}

/** values and attempts: own, another student in or outside the grader's sections, a future gradeable. */
export function submissionReadCases(): MatrixCase[] {
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
export function gradingCases(body?: Record<string, unknown>): MatrixCase[] {
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
