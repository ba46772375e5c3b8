/**
 * Grade inquiries over HTTP: a student opens one about their released grade within the inquiry
 * window, the student and the graders who may grade them post to it, graders resolve it and a
 * student may reopen it. Every change is one transaction with its entry in the course's audit
 * trail and, when it opens or resolves an inquiry, its webhook event (the outbox).
 */
import { randomBytes } from 'node:crypto';
import { courseGroups, courseId, type Course, type Enrollment } from '#shared/courses/course.ts';
import { auditEntry } from '#shared/data/audit.ts';
import {
  addPost,
  changeStatus,
  courseInquiries,
  inquiryRef,
  openInquiry,
  SLOT_ITEM,
  type Inquiry,
  type InquiryFilter,
  type InquiryPost,
  type InquiryStatus,
} from '#shared/data/inquiries.ts';
import { teamMembershipRef, type TeamMembership } from '#shared/data/teams.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { notOnTeam } from '#shared/courses/failures.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { INQUIRY_ID, type CourseGradeable } from '#shared/ids.ts';
import { encodeCursor, readPageRequest, takeWithin } from '#shared/paging.ts';
import { eventOutbox, inquiryEvent } from '#shared/webhooks/publish.ts';
import {
  badStatusFilter,
  inquiryChanged,
  inquiryNotFound,
  inquiryOpenAlready,
  inquiryRace,
  inquiryResolved,
  studentsOnly,
  tooManyPosts,
} from './failures.ts';
import {
  actingRole,
  checkCourseOpen,
  checkInquiryWindow,
  checkStatusChange,
  inquirySubject,
  postContent,
  statusOf,
  subjectName,
} from './rules.ts';

import { INQUIRY_PAGE, MAX_POSTS } from './limits.ts';

/** A new inquiry id: `iq_`, the time as 9 base-36 digits, then 12 random ones (ids.ts). */
function newInquiryId(now: Date): string {
  const random = Array.from(randomBytes(12), (byte) => (byte % 36).toString(36)).join('');
  return `iq_${now.getTime().toString(36).padStart(9, '0')}${random}`;
}

/** An inquiry as the API answers it. */
export const inquiryView = (inquiry: Inquiry) => ({
  inquiry_id: inquiry.inquiryId,
  gradeable_id: inquiry.gradeableId,
  owner_id: inquiry.ownerId,
  members: inquiry.members,
  section: inquiry.section,
  component_id: inquiry.componentId,
  status: inquiry.status,
  revision: inquiry.revision,
  opened_by: inquiry.openedBy,
  opened_at: inquiry.openedAt,
  updated_at: inquiry.updatedAt,
  posts: inquiry.posts,
});

/** Read with the token check for a new inquiry: the gradeable and the caller's team on it. */
export const newInquiryReads = ({ term, course, gradeableId }: CourseGradeable, userId: string) => ({
  gradeable: gradeableRef(term, course, gradeableId),
  membership: teamMembershipRef(term, course, gradeableId, userId),
});

/** Read with the token check for a change: the gradeable, the inquiry and the caller's team on the gradeable. */
export const inquiryReads = (key: CourseGradeable, inquiryId: string, userId: string) => ({
  ...newInquiryReads(key, userId),
  inquiry: inquiryRef(key.term, key.course, inquiryId),
});

type Loaded = { readonly gradeable?: GradeableDocument | undefined; readonly membership?: TeamMembership | undefined };

const audited = (course: Course, actor: string, action: string, inquiry: Inquiry, after: Record<string, unknown>, at: Date) =>
  auditEntry({ courseId: courseId(course.term, course.course) }, { actor, action, target: inquiry.inquiryId, after }, at);

/** `POST …/gradeable/{gradeable_id}/inquiries`: a student's new inquiry about their own (or their team's) grade. */
export async function openGradeInquiry(
  course: Course,
  student: Enrollment,
  loaded: Loaded,
  body: { readonly content: string; readonly component_id?: number | undefined },
  now = new Date(),
) {
  const { gradeable } = loaded;
  if (!gradeable || !isVisible(gradeable, student, now)) throw gradeableNotFound();
  if (student.group !== courseGroups.student || student.registrationSection === null) throw studentsOnly();
  checkCourseOpen(course);
  checkInquiryWindow(gradeable, course.timeZone, now);
  const componentId = inquirySubject(gradeable, body.component_id);
  const content = postContent(body.content);
  if (gradeable.team_gradeable && !loaded.membership) throw notOnTeam({ user_id: student.userId });
  const team = gradeable.team_gradeable ? loaded.membership : undefined;
  const at = now.toISOString();
  const inquiry: Inquiry = {
    term: course.term,
    course: course.course,
    inquiryId: newInquiryId(now),
    gradeableId: gradeable.id,
    ownerId: team?.teamId ?? student.userId,
    members: team?.members ?? [student.userId],
    section: student.registrationSection,
    componentId,
    status: 'open',
    revision: 1,
    openedBy: student.userId,
    openedAt: at,
    updatedAt: at,
    posts: [{ author: student.userId, role: 'student', content, at }],
  };
  const outbox = eventOutbox(inquiryEvent(inquiry, { status: 'open', by: student.userId, reopened: false }, now));
  const audit = audited(
    course,
    student.userId,
    'inquiry.opened',
    inquiry,
    { gradeable_id: gradeable.id, owner_id: inquiry.ownerId, component_id: componentId, content },
    now,
  );
  try {
    await transactWrite([...openInquiry(inquiry), audit, ...outbox.items]);
  } catch (error) {
    if (failedConditions(error).includes(SLOT_ITEM)) throw inquiryOpenAlready({ about: subjectName(componentId) });
    throw error;
  }
  await outbox.send();
  return inquiryView(inquiry);
}

/** The inquiry a path names, once the caller may act on it, and as whom. */
function inquiryToActOn(enrollment: Enrollment, loaded: Loaded & { readonly inquiry?: Inquiry | undefined }, now: Date) {
  const { gradeable, inquiry } = loaded;
  if (!gradeable || !isVisible(gradeable, enrollment, now) || !inquiry || inquiry.gradeableId !== gradeable.id) throw inquiryNotFound();
  const role = actingRole(inquiry, enrollment, gradeable.team_gradeable ? loaded.membership : undefined);
  if (!role) throw inquiryNotFound();
  return { gradeable, inquiry, role };
}

/** `POST …/inquiries/{inquiry_id}/posts`: a post by the inquiry's student (or a member of their team), or by a grader who may grade them. */
export async function postToInquiry(
  course: Course,
  enrollment: Enrollment,
  loaded: Loaded & { readonly inquiry?: Inquiry | undefined },
  body: { readonly content: string },
  now = new Date(),
) {
  const { inquiry, role } = inquiryToActOn(enrollment, loaded, now);
  if (inquiry.status === 'resolved') throw inquiryResolved();
  if (inquiry.posts.length >= MAX_POSTS) throw tooManyPosts({ max: MAX_POSTS });
  const post: InquiryPost = { author: enrollment.userId, role, content: postContent(body.content), at: now.toISOString() };
  const audit = audited(course, enrollment.userId, 'inquiry.posted', inquiry, { content: post.content }, now);
  try {
    await transactWrite([addPost(inquiry, post, MAX_POSTS), audit]);
  } catch (error) {
    // Resolved, or filled up, since it was read.
    if (failedConditions(error).includes(0)) throw inquiryRace();
    throw error;
  }
  return inquiryView({ ...inquiry, posts: [...inquiry.posts, post], revision: inquiry.revision + 1, updatedAt: post.at });
}

/**
 * `PATCH …/inquiries/{inquiry_id}`: resolve (graders) or reopen (graders; its student within the
 * inquiry window), written only while the inquiry is as read (and at `revision`, when sent).
 */
export async function changeInquiryStatus(
  course: Course,
  enrollment: Enrollment,
  loaded: Loaded & { readonly inquiry?: Inquiry | undefined },
  body: { readonly status: string; readonly revision?: number | undefined },
  now = new Date(),
) {
  const { gradeable, inquiry, role } = inquiryToActOn(enrollment, loaded, now);
  const status = statusOf(body.status);
  if (body.revision !== undefined && body.revision !== inquiry.revision) {
    throw inquiryChanged({ revision: body.revision, current: inquiry.revision });
  }
  checkStatusChange(inquiry.status, status, role);
  if (role === 'student') {
    checkCourseOpen(course);
    checkInquiryWindow(gradeable, course.timeZone, now);
  }
  const at = now.toISOString();
  const changed: Inquiry = { ...inquiry, status, revision: inquiry.revision + 1, updatedAt: at };
  const outbox = eventOutbox(inquiryEvent(inquiry, { status, by: enrollment.userId, reopened: true }, now));
  const action = status === 'resolved' ? 'inquiry.resolved' : 'inquiry.reopened';
  const audit = audited(course, enrollment.userId, action, inquiry, { status, revision: changed.revision }, now);
  const writes = changeStatus(inquiry, status, at);
  try {
    await transactWrite([...writes, audit, ...outbox.items]);
  } catch (error) {
    const failed = failedConditions(error);
    if (failed.includes(0)) throw inquiryRace();
    if (failed.includes(1)) throw inquiryOpenAlready({ about: subjectName(inquiry.componentId) });
    throw error;
  }
  await outbox.send();
  return inquiryView(changed);
}

/** The inquiries a status filter keeps: `all` (or none given) keeps every one. */
function statusFilter(value: string | undefined): InquiryStatus | undefined {
  if (value === undefined || value === '' || value === 'all') return undefined;
  if (value === 'open' || value === 'resolved') return value;
  throw badStatusFilter();
}

/**
 * `GET …/inquiries`: newest first, paged; students see those about their own grade (their team's
 * when it was opened), limited access graders those of their sections, other staff all of them.
 */
export async function listInquiries(
  course: Course,
  enrollment: Enrollment,
  query: {
    readonly status?: string | undefined;
    readonly gradeable_id?: string | undefined;
    readonly page_size?: string;
    readonly cursor?: string;
  },
) {
  const status = statusFilter(query.status);
  const page = readPageRequest(query, {
    list: 'inquiry list',
    defaultSize: INQUIRY_PAGE,
    keys: 1,
    accepts: ([id]) => id !== undefined && INQUIRY_ID.test(id),
  });
  const filter: InquiryFilter = {
    ...(status ? { status } : {}),
    ...(query.gradeable_id ? { gradeableId: query.gradeable_id } : {}),
    ...(enrollment.group === courseGroups.student ? { member: enrollment.userId } : {}),
    ...(enrollment.group === courseGroups.limitedAccessGrader ? { sections: enrollment.gradingSections } : {}),
  };
  const { inquiries, more } = await courseInquiries(course.term, course.course, filter, page.size, page.after?.[0]);
  const shown = takeWithin(inquiries.map((inquiry) => ({ id: inquiry.inquiryId, view: inquiryView(inquiry) })));
  const last = shown.at(-1);
  const cut = shown.length < inquiries.length;
  return { items: shown.map(({ view }) => view), next: (more || cut) && last ? encodeCursor([last.id]) : null };
}
