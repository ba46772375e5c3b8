/**
 * The rules of grade inquiries, as pure functions: when a gradeable takes them (its
 * `grade_inquiries`, its release and its inquiry window), what one is about (a rubric component, or
 * the whole grade), who may act on one, and which changes of status each may make.
 */
import { courseGroups, takesSubmissions, type Course, type Enrollment } from '#shared/courses/course.ts';
import type { Inquiry, InquiryStatus } from '#shared/data/inquiries.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { toLocalTime } from '#shared/gradeables/time-zone.ts';
import { noComponent, notYourSection } from '#shared/tagrading/failures.ts';
import {
  courseArchivedForInquiries,
  badStatus,
  componentRequired,
  contentControlCharacter,
  gradersResolve,
  gradesNotReleased,
  inquiriesClosed,
  inquiriesNotOpen,
  noInquiries,
  statusAlready,
  wholeGradeOnly,
} from './failures.ts';

type Dated = Pick<GradeableDocument, 'type' | 'dates'> & { readonly grade_inquiries?: boolean };

const passed = (instant: string | undefined, now: Date) => instant !== undefined && instant <= now.toISOString();

/**
 * Refuses unless students may open or reopen an inquiry now: the gradeable takes inquiries, its
 * grades are released, and now lies within its inquiry window (start and due included).
 */
export function checkInquiryWindow(gradeable: Dated, timeZone: string, now: Date): void {
  if (gradeable.type !== 'Electronic File' || gradeable.grade_inquiries !== true) throw noInquiries();
  const { grade_released_date: released, grade_inquiry_start_date: start, grade_inquiry_due_date: due } = gradeable.dates;
  const local = (instant: string | undefined) => (instant === undefined ? 'a date not set' : toLocalTime(instant, timeZone));
  if (!passed(released, now)) throw gradesNotReleased({ grade_inquiry_start_date: local(start) });
  if (!passed(start, now)) throw inquiriesNotOpen({ grade_inquiry_start_date: local(start) });
  if (due !== undefined && due < now.toISOString()) throw inquiriesClosed({ grade_inquiry_due_date: local(due) });
}

/**
 * What a new inquiry is about: a rubric component of the gradeable when it takes inquiries per
 * component (`grade_inquiry_per_component_allowed`), otherwise the whole grade (null).
 */
export function inquirySubject(
  gradeable: Pick<GradeableDocument, 'rubric'> & { readonly grade_inquiry_per_component_allowed?: boolean },
  componentId: number | undefined,
): number | null {
  if (gradeable.grade_inquiry_per_component_allowed !== true) {
    if (componentId !== undefined) throw wholeGradeOnly();
    return null;
  }
  if (componentId === undefined) throw componentRequired();
  if (componentId >= gradeable.rubric.length) throw noComponent({ component_id: componentId });
  return componentId;
}

/** How a refusal of a second open inquiry names what it is about. */
export const subjectName = (componentId: number | null): string =>
  componentId === null ? 'this grade' : `rubric component ${componentId}`;

// Tabs, line feeds and carriage returns are text; every other C0 control, DEL and the C1 controls are not.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** A post's content as stored: refused when it holds control characters a reader's screen would not show. */
export function postContent(content: string): string {
  if (CONTROL.test(content)) throw contentControlCharacter();
  return content;
}

/**
 * As whom the caller acts on an inquiry: `student` when it is about their own grade (theirs, or
 * their team's now), `staff` for instructors and graders (limited access graders: of the section
 * its student was in when they opened it); undefined when it is none of theirs (not found for them).
 */
export function actingRole(
  inquiry: Pick<Inquiry, 'ownerId' | 'section'>,
  caller: Pick<Enrollment, 'userId' | 'group' | 'gradingSections'>,
  team: { readonly teamId: string } | undefined,
): 'student' | 'staff' | undefined {
  if (caller.group === courseGroups.student) {
    const owner = team?.teamId ?? caller.userId;
    return owner === inquiry.ownerId ? 'student' : undefined;
  }
  if (caller.group === courseGroups.limitedAccessGrader && !caller.gradingSections.includes(inquiry.section)) {
    throw notYourSection({ section: inquiry.section });
  }
  return 'staff';
}

/** A status as sent, or a refusal. */
export function statusOf(value: string): InquiryStatus {
  if (value === 'open' || value === 'resolved') return value;
  throw badStatus();
}

/**
 * Whether a change of status may be made: graders resolve and reopen; a student reopens their own
 * within the inquiry window (checked by the caller), never resolves it.
 */
export function checkStatusChange(current: InquiryStatus, wanted: InquiryStatus, role: 'student' | 'staff'): void {
  if (current === wanted) throw statusAlready({ status: wanted });
  if (wanted === 'resolved' && role === 'student') throw gradersResolve();
}

/** A student opens or reopens an inquiry only while the course takes submissions: an archived one does not, unless its settings allow it. */
export function checkCourseOpen(course: Pick<Course, 'archived' | 'archivedAcceptsSubmissions'>): void {
  if (!takesSubmissions(course)) throw courseArchivedForInquiries();
}
