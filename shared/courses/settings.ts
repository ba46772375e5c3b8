/**
 * A course's settings as the reference's course configuration names them: read all at once, set
 * one at a time (`name` and `entry`), archived and unarchived by their own routes. The rules are
 * pure; each write goes with its audit entry in one transaction.
 */
import { auditEntry } from '#shared/data/audit.ts';
import { courseRef, setArchived, setCourseField, setDisplayName } from '#shared/data/courses.ts';
import { getItems } from '#shared/data/items.ts';
import { courseId, isValidAccessGroup, type Course } from '#shared/courses/course.ts';
import { moveToAccessGroup } from '#shared/courses/enroll.ts';
import { MAX_LATE_DAYS } from '#shared/courses/limits.ts';
import type { Refusal } from '#shared/errors.ts';
import { COMMAND_LINE_ACTOR } from '#shared/ids.ts';
import { isFaculty, isSuperuser, type User } from '#shared/users/user.ts';
import type { TransactItem } from '#shared/data/transactions.ts';
import {
  accessGroupNeedsSuperuser,
  archiveNeedsFaculty,
  badAccessGroup,
  badCourseName,
  badTimeZone,
  courseNotFound,
  notAConfigName,
  notANumber,
  notTrueOrFalse,
  numberTooLarge,
  readOnlySetting,
  settingChangedMeanwhile,
  unarchiveNeedsFaculty,
} from '#shared/courses/failures.ts';

export const MAX_COURSE_NAME_LENGTH = 100;

/** Whether Intl knows the IANA time zone (nothing is cached for a name that may come from anyone). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The reference's course status: 1 active, 2 archived. */
const ACTIVE_STATUS = 1;
const ARCHIVED_STATUS = 2;

/** The course's settings, named as the reference's course configuration names them (and ours beside them). */
export function courseConfig(course: Course) {
  return {
    config: {
      course_name: course.displayName,
      default_student_late_days: course.defaultStudentLateDays ?? 0,
      timezone: course.timeZone,
      course_status: course.archived ? ARCHIVED_STATUS : ACTIVE_STATUS,
      archived: course.archived,
      access_group: course.accessGroup,
      archived_accepts_submissions: course.archivedAcceptsSubmissions ?? false,
    },
  };
}

/** The settings `POST …/config` sets, and the course field each is kept in. */
export const settableNames = ['course_name', 'default_student_late_days', 'timezone', 'archived_accepts_submissions'] as const;
export type SettableName = (typeof settableNames)[number];

/** Settings shown but set otherwise. */
const readOnly: Readonly<Record<string, string>> = {
  course_status: 'archive or unarchive the course (POST …/config/archive, …/config/unarchive)',
  archived: 'archive or unarchive the course (POST …/config/archive, …/config/unarchive)',
};

export type Setting =
  | { readonly name: 'course_name'; readonly value: string }
  | { readonly name: 'default_student_late_days'; readonly value: number }
  | { readonly name: 'timezone'; readonly value: string }
  | { readonly name: 'archived_accepts_submissions'; readonly value: boolean };

/**
 * A setting from the request's `name` and `entry` as the route's input reads them (both present,
 * the name a string; form values are text, JSON may send a number), or why not, in the reference's order.
 */
export function parseSetting(name: string, entry: unknown): Setting | Refusal {
  const text = typeof entry === 'number' && Number.isFinite(entry) ? String(entry) : typeof entry === 'string' ? entry : undefined;
  if (Object.hasOwn(readOnly, name)) return readOnlySetting({ name, how: readOnly[name] ?? '' });
  switch (name) {
    case 'default_student_late_days': {
      if (text === undefined || !/^\d+$/.test(text)) return notANumber();
      const days = Number(text);
      if (days > MAX_LATE_DAYS) return numberTooLarge({ max: MAX_LATE_DAYS });
      return { name, value: days };
    }
    case 'course_name': {
      if (text === undefined || text.trim() === '' || text.length > MAX_COURSE_NAME_LENGTH)
        return badCourseName({ max: MAX_COURSE_NAME_LENGTH });
      return { name, value: text };
    }
    case 'timezone': {
      if (text === undefined || text.length > 64 || !isTimeZone(text)) return badTimeZone({ entry: text ?? typeof entry });
      // Intl accepts any case; the course keeps the zone's own spelling.
      return { name, value: new Intl.DateTimeFormat('en-US', { timeZone: text }).resolvedOptions().timeZone };
    }
    case 'archived_accepts_submissions': {
      const flag =
        typeof entry === 'boolean' ? entry : text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : undefined;
      return flag === undefined ? notTrueOrFalse() : { name, value: flag };
    }
    default:
      return notAConfigName();
  }
}

const currentValue = (course: Course, name: SettableName): string | number | boolean =>
  name === 'course_name'
    ? course.displayName
    : name === 'timezone'
      ? course.timeZone
      : name === 'archived_accepts_submissions'
        ? (course.archivedAcceptsSubmissions ?? false)
        : (course.defaultStudentLateDays ?? 0);

/** The course field each setting set with setCourseField is kept in. */
const storedField = {
  timezone: 'timeZone',
  default_student_late_days: 'defaultStudentLateDays',
  archived_accepts_submissions: 'archivedAcceptsSubmissions',
} as const;

/** How many times a setting is written again from a fresh read when another change came first. */
const SETTING_ATTEMPTS = 5;

/**
 * Sets one setting (`name`, `entry`) with its audit entry; answers the settings as they are now.
 * The write holds only while the course still has the value it replaces (read again when another
 * change came first), so the audit entry's `before` is always the value the change replaced.
 */
/**
 * What a higher domain writes with a setting's change, given the setting's name, the course as
 * read before the change and the change's time (the linked LMS courses' check of late penalties).
 */
export type SettingFollowUp = (name: string, current: Course, at: Date) => readonly TransactItem[];

export async function setCourseSetting(
  course: Course,
  actor: string,
  fields: { readonly name: string; readonly entry: unknown },
  followUp: SettingFollowUp = () => [],
) {
  const setting = parseSetting(fields.name, fields.entry);
  if (!('value' in setting)) throw setting;
  const changed = { ...course, ...courseFieldOf(setting) };
  if (currentValue(course, setting.name) === setting.value) return courseConfig(changed);
  const audit = (before: string | number | boolean) =>
    auditEntry(
      { courseId: courseId(course.term, course.course) },
      {
        actor,
        action: 'course.setting-changed',
        target: setting.name,
        before: { [setting.name]: before },
        after: { [setting.name]: setting.value },
      },
    );
  if (setting.name === 'course_name') {
    const renamed = await setDisplayName(course.term, course.course, setting.value, (stored) =>
      stored.displayName === setting.value ? [] : [audit(stored.displayName)],
    );
    if (!renamed) throw courseNotFound();
    return courseConfig(changed);
  }
  const field = storedField[setting.name];
  let current: Course | undefined = course;
  for (let attempt = 0; attempt < SETTING_ATTEMPTS; attempt++) {
    if (!current) throw courseNotFound();
    const before = currentValue(current, setting.name);
    if (before === setting.value) return courseConfig({ ...current, ...courseFieldOf(setting) });
    const also = followUp(setting.name, current, new Date());
    if (await setCourseField(course.term, course.course, field, { before, value: setting.value }, [audit(before), ...also])) {
      return courseConfig({ ...current, ...courseFieldOf(setting) });
    }
    ({ current } = await getItems({ current: courseRef(course.term, course.course) }));
  }
  throw settingChangedMeanwhile({ name: setting.name });
}

/**
 * `POST …/config` as the route takes it: `access_group` (superusers only) moves the course to
 * another access group; any other name is a setting of setCourseSetting.
 */
export async function setCourseConfig(
  course: Course,
  caller: Pick<User, 'accessLevel' | 'userId'>,
  fields: { readonly name: string; readonly entry: unknown },
  followUp?: SettingFollowUp,
) {
  if (fields.name !== 'access_group') return setCourseSetting(course, caller.userId, fields, followUp);
  if (!isSuperuser(caller)) throw accessGroupNeedsSuperuser();
  if (typeof fields.entry !== 'string' || !isValidAccessGroup(fields.entry)) throw badAccessGroup();
  return courseConfig(await changeAccessGroup(course, caller.userId, fields.entry));
}

/**
 * Moves the course to access group `accessGroup` with its audit entry, in the transaction that
 * switches it, which holds only while the course is still in the group it was read in (read again
 * when another move came first): the entry's `before` is always the group the move left. The
 * staff of the courses of the group it left no longer read across to it, and those of the new
 * group's unarchived courses do. Answers the course as it is now.
 */
export async function changeAccessGroup(course: Course, actor: string, accessGroup: string): Promise<Course> {
  let current: Course | undefined = course;
  for (let attempt = 0; attempt < SETTING_ATTEMPTS; attempt++) {
    if (!current) throw courseNotFound();
    if (current.accessGroup === accessGroup) return current;
    const audit = auditEntry(
      { courseId: courseId(course.term, course.course) },
      {
        actor,
        action: 'course.setting-changed',
        target: 'access_group',
        before: { access_group: current.accessGroup },
        after: { access_group: accessGroup },
      },
    );
    if (await moveToAccessGroup(current, accessGroup, [audit])) return { ...current, accessGroup };
    ({ current } = await getItems({ current: courseRef(course.term, course.course) }));
  }
  throw settingChangedMeanwhile({ name: 'access_group' });
}

/**
 * `PUT …/late-days`: the late-day budget every student starts with, set as `POST …/config` sets
 * it (conditioned on the value it replaces, with its audit entry).
 */
export async function setDefaultStudentLateDays(course: Course, actor: string, days: number, followUp?: SettingFollowUp) {
  const { config } = await setCourseSetting(course, actor, { name: 'default_student_late_days', entry: days }, followUp);
  return { default_student_late_days: config.default_student_late_days };
}

const courseFieldOf = (setting: Setting): Partial<Course> =>
  setting.name === 'course_name' ? { displayName: setting.value } : { [storedField[setting.name]]: setting.value };

/**
 * Who may archive or unarchive: instructors of the course with faculty access level, and
 * superusers (the route lets in instructors and superusers; this is the rest).
 */
export const mayArchive = (caller: Pick<User, 'accessLevel'>): boolean => isFaculty(caller);

/**
 * Archives or unarchives the course, as the operator's command line does: an archived course leaves
 * its students' course lists (its instructors keep it under archived courses), takes no submissions
 * or uploads unless its `archived_accepts_submissions` setting allows them, gives its staff no
 * reading across its access group, and is left out of the nightly summaries. Answers the reference's message.
 */
export async function setCourseArchived(
  course: Course,
  caller: (Pick<User, 'accessLevel'> & { userId: string }) | typeof COMMAND_LINE_ACTOR,
  archived: boolean,
) {
  if (caller !== COMMAND_LINE_ACTOR && !mayArchive(caller)) throw archived ? archiveNeedsFaculty() : unarchiveNeedsFaculty();
  if (course.archived !== archived) {
    // Made from the course as stored when the change began: a second archiving at once records nothing.
    const audit = (before: Course) =>
      before.archived === archived
        ? []
        : [
            auditEntry(
              { courseId: courseId(course.term, course.course) },
              {
                actor: caller === COMMAND_LINE_ACTOR ? COMMAND_LINE_ACTOR : caller.userId,
                action: archived ? 'course.archived' : 'course.unarchived',
                target: courseId(course.term, course.course),
                before: { archived: before.archived },
                after: { archived },
              },
            ),
          ];
    if (!(await setArchived(course.term, course.course, archived, audit))) throw courseNotFound();
  }
  return { message: archived ? 'Course archived successfully' : 'Course unarchived successfully' };
}
