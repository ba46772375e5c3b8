import { putCourseMembership, putStaffMarker } from '#shared/data/access-groups.ts';
import { courseExists, courseRef, createCourseItem } from '#shared/data/courses.ts';
import { listingCopyOf, memberCopyOf, revisionRef, sourceUnchanged } from '#shared/data/enrollment-copies.ts';
import { settleCopies } from '#shared/data/settle-copies.ts';
import { enrollmentRef, putEnrollment, type EnrollmentCopies } from '#shared/data/enrollments.ts';
import { createGradeableItem, gradeablesOfCourse, type StoredGradeable } from '#shared/data/gradeables.ts';
import { getItems, type ItemRef, type LoadedItems } from '#shared/data/items.ts';
import { termRef } from '#shared/data/terms.ts';
import { failedConditions, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import { userRef } from '#shared/data/users.ts';
import { isSuperuser, isValidUserId, type User } from '#shared/users/user.ts';
import { courseGroups, isValidAccessGroup, isValidCode, ownAccessGroup, type Course, type Enrollment, type Term } from './course.ts';
import { accessGroupRole } from './group-access.ts';
import {
  accessGroupNeedsSuperuser,
  badAccessGroup,
  baseCourseNeeded,
  badCourseTitle,
  badSemester,
  courseExistsAlready,
  instructorNotInGroup,
  invalidBaseCourse,
  noHeadInstructor,
  noSuchSemester,
  notForYourself,
  tooManyGradeablesToCopy,
} from './failures.ts';

export interface NewCourseRequest {
  readonly term: string;
  readonly course: string;
  readonly headInstructor: string;
  /** The course it is based on; none (superusers only): a course of its own. */
  readonly base?: { readonly term: string; readonly course: string } | undefined;
  /** The access group it joins (superusers only); by default the base course's, or a group of its own. */
  readonly accessGroup?: string | undefined;
  readonly copyGradeables: boolean;
}

/** A transaction holds at most 100 items; the course itself takes five. */
const MAX_COPIED_GRADEABLES = 95;

/** The fields of `POST /api/courses` as the route's input reads them (the first three present, not empty). */
export interface NewCourseFields {
  readonly course_semester: string;
  readonly course_title: string;
  readonly head_instructor: string;
  readonly base_course?: string;
  readonly base_course_semester?: string;
  readonly base_course_title?: string;
  readonly access_group?: string;
  readonly copy_gradeables?: boolean;
}

/**
 * The fields of `POST /api/courses`: the five of the base-course form, or the web form's single `base_course`
 * (`term|course`), or none of the base course's (a course of its own). Checked in the reference's
 * order; format problems never reach the database.
 */
export function newCourseRequest(fields: NewCourseFields): NewCourseRequest {
  const { course_semester: term, course_title: course, head_instructor: headInstructor } = fields;
  if (!isValidCode(term)) throw badSemester();
  if (!isValidCode(course)) throw badCourseTitle();

  const { access_group: accessGroup } = fields;
  if (accessGroup !== undefined && !isValidAccessGroup(accessGroup)) throw badAccessGroup();
  const copyGradeables = fields.copy_gradeables ?? false;
  const named = [fields.base_course, fields.base_course_semester, fields.base_course_title].some((field) => field !== undefined);
  if (!named && !copyGradeables) return { term, course, headInstructor, accessGroup, copyGradeables };
  const combined = fields.base_course?.split('|');
  const [baseTerm, baseCourse] = combined ?? [fields.base_course_semester, fields.base_course_title];
  if ((combined && combined.length !== 2) || !baseTerm || !baseCourse || !isValidCode(baseTerm) || !isValidCode(baseCourse)) {
    throw invalidBaseCourse();
  }
  return { term, course, headInstructor, base: { term: baseTerm, course: baseCourse }, accessGroup, copyGradeables };
}

/** The base course and the head instructor's enrollment in it, when there is a base course. */
function baseRefs(request: NewCourseRequest): { base?: ItemRef<Course>; instructorInBase?: ItemRef<Enrollment> } {
  if (!request.base) return {};
  return {
    base: courseRef(request.base.term, request.base.course),
    instructorInBase: enrollmentRef(request.base.term, request.base.course, request.headInstructor),
  };
}

/** What creating a course reads: the head instructor, the base course and their enrollment in it, the new course (must not exist) and the term. */
const newCourseRefs = (request: NewCourseRequest) => ({
  headInstructor: userRef(request.headInstructor),
  ...baseRefs(request),
  existing: courseRef(request.term, request.course),
  term: termRef(request.term),
  // The revisions the enrollment's copies are made from (the same items, read once).
  headInstructorRevision: revisionRef(userRef(request.headInstructor)),
  termRevision: revisionRef(termRef(request.term)),
});

export type NewCourseItems = LoadedItems<ReturnType<typeof newCourseRefs>>;

/** The request a body as sent names, if well-formed (its text fields reach the route's inputs unchanged). */
function requestAsSent(body: Readonly<Record<string, unknown>>): NewCourseRequest | undefined {
  const strings = Object.fromEntries(Object.entries(body).filter(([, value]) => typeof value === 'string')) as Record<string, string>;
  const { course_semester: term, course_title: course, head_instructor: headInstructor } = strings;
  // Not yet read by the route's input: a body it will refuse reads nothing.
  if (!term || !course || !headInstructor) return undefined;
  try {
    const request = newCourseRequest({ ...strings, course_semester: term, course_title: course, head_instructor: headInstructor });
    return isValidUserId(request.headInstructor) ? request : undefined;
  } catch {
    return undefined;
  }
}

/** Read with the token check, from the body as sent: what creating the course reads (nothing for a malformed body). */
export function newCourseReads(body: Readonly<Record<string, unknown>>) {
  const request = requestAsSent(body);
  return request ? newCourseRefs(request) : {};
}

/** Read alongside the token check: the base course's gradeables, when the body asks to copy them. */
export async function baseGradeablesAsked(body: Readonly<Record<string, unknown>>): Promise<StoredGradeable[] | undefined> {
  const request = requestAsSent(body);
  const copy = body.copy_gradeables;
  return request?.base && (copy === true || copy === 'true' || copy === '1')
    ? gradeablesOfCourse(request.base.term, request.base.course)
    : undefined;
}

/**
 * Creates a course, in one transaction: the course (joining the base course's access group, or the
 * one a superuser names, or a group of its own when a superuser creates it without a base course),
 * its head instructor's enrollment and the access-group membership. `preloaded`
 * holds what `newCourseReads` and `baseGradeablesAsked` read with the token check; what they did
 * not read (a body they could not take) is read here.
 */
export async function createCourse(
  request: NewCourseRequest,
  caller: User,
  preloaded: { items?: Partial<NewCourseItems>; baseGradeables?: StoredGradeable[] | undefined } = {},
): Promise<{ course: Course; term: Term }> {
  if (!isSuperuser(caller) && request.headInstructor !== caller.userId) {
    throw notForYourself();
  }
  if (!request.base && !isSuperuser(caller)) throw baseCourseNeeded();
  if (request.accessGroup !== undefined && !isSuperuser(caller)) throw accessGroupNeedsSuperuser();
  if (!isValidUserId(request.headInstructor)) throw noHeadInstructor();

  const { items } = preloaded;
  const loaded = items && Object.hasOwn(items, 'term') ? (items as NewCourseItems) : await getItems(newCourseRefs(request));
  if (!loaded.headInstructor) throw noHeadInstructor();
  const { base } = loaded;
  if (request.base && !base) throw invalidBaseCourse();
  if (!loaded.term) throw noSuchSemester({ semester: request.term });
  if (loaded.existing) throw courseExistsAlready();
  const accessGroup = request.accessGroup ?? base?.accessGroup ?? ownAccessGroup(request);
  // Joining the base course's group makes the head instructor an instructor of it.
  if (base && accessGroup === base.accessGroup && !(await teachesBaseOrGroup(base, loaded.instructorInBase, request.headInstructor))) {
    throw instructorNotInGroup();
  }

  const course: Course = {
    term: request.term,
    course: request.course,
    displayName: '',
    archived: false,
    timeZone: base?.timeZone ?? 'UTC',
    accessGroup,
  };
  const head = instructorEnrollment(course, request.headInstructor);
  const copies =
    request.copyGradeables && request.base
      ? (preloaded.baseGradeables ?? (await gradeablesOfCourse(request.base.term, request.base.course)))
      : [];
  if (copies.length > MAX_COPIED_GRADEABLES) {
    throw tooManyGradeablesToCopy({ count: copies.length, limit: MAX_COPIED_GRADEABLES });
  }
  const courseWrites = (headCopies: EnrollmentCopies) => [
    ...newCourseItems(course, head, headCopies),
    ...(request.base ? [courseExists(request.base.term, request.base.course)] : []),
    ...copies.map((document) => createGradeableItem(course.term, course.course, document)),
  ];
  // Each copy, made from the profile or the term as read, is written only if its source did not change
  // since; one that did is left out (readers then answer from the source).
  const sources = [
    { copy: 'member', revision: loaded.headInstructorRevision },
    { copy: 'listing', revision: loaded.termRevision },
  ] as const satisfies readonly { copy: keyof EnrollmentCopies; revision: unknown }[];
  let headCopies: EnrollmentCopies = enrollmentCopies(course, loaded.term, loaded.headInstructor);
  for (;;) {
    const checked = sources.flatMap(({ copy, revision }) => (revision && headCopies[copy] ? [{ copy, revision }] : []));
    const writes = courseWrites(headCopies);
    try {
      await transactWrite([...writes, ...checked.map(({ revision }) => sourceUnchanged(revision, true))]);
      return { course, term: loaded.term };
    } catch (error) {
      const failed = failedConditions(error);
      if (failed.length === 0 || failed.some((index) => index < writes.length)) throw creationFailure(error);
      const changed = checked.filter((_, index) => failed.includes(writes.length + index)).map(({ copy }) => [copy, undefined]);
      headCopies = { ...headCopies, ...Object.fromEntries(changed) };
    }
  }
}

/** What a failed creation answers: the course existing, the base course gone, or the error itself. */
function creationFailure(error: unknown): unknown {
  const failed = failedConditions(error);
  if (failed.includes(0)) return courseExistsAlready();
  if (failed.length > 0) return invalidBaseCourse();
  return error;
}

/** The course, its head instructor's enrollment (with its copies) and its access-group membership, written together. */
export const newCourseItems = (course: Course, headEnrollment: Enrollment, copies: EnrollmentCopies): TransactItem[] => [
  createCourseItem(course),
  putEnrollment(headEnrollment, copies),
  putCourseMembership(course.accessGroup, course.term, course.course),
  putStaffMarker(course.accessGroup, headEnrollment.userId, course.term, course.course),
];

/**
 * The copies an enrollment item carries (enrollment-copies.ts): the member's profile when known,
 * the course and its term when the term exists.
 */
export const enrollmentCopies = (course: Course, term: Term | undefined, member: User | undefined): EnrollmentCopies => ({
  member: member && memberCopyOf(member),
  listing: term && listingCopyOf(course, term),
});

/** An instructor enrollment with no sections. */
export const instructorEnrollment = (course: Pick<Course, 'term' | 'course'>, userId: string): Enrollment => ({
  term: course.term,
  course: course.course,
  userId,
  group: courseGroups.instructor,
  registrationSection: null,
  rotatingSection: null,
  gradingSections: [],
});

/** Creates a course with no base (the admin command line's bootstrap); false if it exists. */
export async function bootstrapCourse(course: Course, headInstructor: string): Promise<boolean> {
  const { term, user } = await getItems({ term: termRef(course.term), user: userRef(headInstructor) });
  const head = { enrollment: instructorEnrollment(course, headInstructor), copies: enrollmentCopies(course, term, user) };
  try {
    await transactWrite(newCourseItems(course, head.enrollment, head.copies));
    await settleCopies([head]);
    return true;
  } catch (error) {
    if (failedConditions(error).includes(0)) return false;
    throw error;
  }
}

/**
 * The head instructor of a course based on another becomes an instructor in the base course's
 * access group, who reads its courses' hidden test cases: only an instructor of the base course
 * (archived or not), or of an unarchived course in its group, may be named.
 */
async function teachesBaseOrGroup(base: Course, enrollment: Enrollment | undefined, userId: string): Promise<boolean> {
  return enrollment?.group === courseGroups.instructor || (await accessGroupRole(base.accessGroup, userId)) === courseGroups.instructor;
}
