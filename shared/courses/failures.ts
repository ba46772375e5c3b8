/** Courses' and terms' fails (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';

/** A course path that names no course: the reference's words. */
export const courseNotFound = /* @__PURE__ */ failure('not-found', 'Failed to load course. Check course title and ensure it exists.');

/** On a team gradeable, a user who is on no team (submitting, choosing a version, grading). */
export const notOnTeam = /* @__PURE__ */ failure('invalid', '{user_id} is not on a team for this gradeable.');

/** A user id that names no active member of the course (submitting, choosing a version, regrading). */
export const userNotInCourse = /* @__PURE__ */ failure('not-found', 'User {user_id} is not in this course.', { user_id: ECHOED_LENGTH });

export const courseFieldsMissing = /* @__PURE__ */ failure('invalid', 'Semester, course title or head instructor not set.');
export const badSemester = /* @__PURE__ */ failure('invalid', 'The semester must be 1 to 64 lowercase letters, digits or underscores.');
export const badCourseTitle = /* @__PURE__ */ failure(
  'invalid',
  'The course title must be 1 to 64 lowercase letters, digits or underscores.',
);
export const invalidBaseCourse = /* @__PURE__ */ failure('invalid', 'Invalid base course.');
export const notForYourself = /* @__PURE__ */ failure('invalid', 'You can only create course for yourself.');
export const noHeadInstructor = /* @__PURE__ */ failure('invalid', "Head instructor doesn't exist.");
export const noSuchSemester = /* @__PURE__ */ failure('not-found', 'The semester {semester} does not exist.');
export const courseExistsAlready = /* @__PURE__ */ failure('conflict', 'Course with that semester/title already exists.');
export const instructorNotInGroup = /* @__PURE__ */ failure(
  'forbidden',
  'The instructor is not in the correct group. Only an instructor of the base course, or of an unarchived course of its access group, may base a course on it: ask one of them to add the head instructor as an instructor of the base course, or a superuser to create the course without a base course.',
);
export const baseCourseNeeded = /* @__PURE__ */ failure(
  'forbidden',
  'Only a superuser can create a course without a base course: name a base course you teach, or ask a superuser to create it.',
);
export const accessGroupNeedsSuperuser = /* @__PURE__ */ failure(
  'forbidden',
  "Only a superuser can choose or change a course's access group.",
);
export const badAccessGroup = /* @__PURE__ */ failure(
  'invalid',
  'An access group name is 1 to 64 letters, digits, dots, underscores or hyphens.',
);
export const tooManyGradeablesToCopy = /* @__PURE__ */ failure(
  'invalid',
  'The base course has {count} gradeables; at most {limit} can be copied at once.',
);

export const termFieldsMissing = /* @__PURE__ */ failure('invalid', 'Term id, term name, start date and end date are all required.');
export const badTermId = /* @__PURE__ */ failure('invalid', 'The term id must be 1 to 64 lowercase letters, digits or underscores.');
export const reservedTermId = /* @__PURE__ */ failure(
  'invalid',
  'The term id {term_id} is reserved: the API has paths of its own that begin with it.',
);
export const blankTermName = /* @__PURE__ */ failure('invalid', 'The term name cannot be blank.');
export const badTermDates = /* @__PURE__ */ failure('invalid', 'Start and end dates must be dates of the form YYYY-MM-DD.');
export const termEndsBeforeStart = /* @__PURE__ */ failure('invalid', 'The start date must not be after the end date.');
export const termExistsAlready = /* @__PURE__ */ failure('conflict', 'Term already exists.');

export const notTeamGradeable = /* @__PURE__ */ failure('invalid', '{gradeable_id} is not a team gradeable: it has no teams.');
export const badTeamId = /* @__PURE__ */ failure('invalid', 'A team id is 1 to 64 letters, digits, _ or -.');
export const teamNotFound = /* @__PURE__ */ failure('not-found', 'Team {team_id} does not exist for this gradeable.', {
  team_id: ECHOED_LENGTH,
});
export const noTeamMembers = /* @__PURE__ */ failure('invalid', 'A team needs at least one member: delete the team instead.');
export const teamMemberTwice = /* @__PURE__ */ failure('invalid', '{user_id} is listed twice.');
export const teamTooBig = /* @__PURE__ */ failure('invalid', 'Teams of {gradeable_id} have at most {team_size_max} members.');
export const notAStudent = /* @__PURE__ */ failure('invalid', '{user_id} is not a student of this course.', {
  user_id: ECHOED_LENGTH,
});
export const teamSubmissionsTakenAway = /* @__PURE__ */ failure(
  'conflict',
  'Team {team_id} has submissions: removing {user_id} would take them away from them.',
);
export const teamSubmissionsMerged = /* @__PURE__ */ failure(
  'conflict',
  "{user_id} is on team {other_team_id}, which has submissions: moving them would merge two teams' submissions.",
);
export const teamHasSubmissions = /* @__PURE__ */ failure('conflict', 'Team {team_id} has submissions and cannot be deleted.');
export const tooManyTeamChanges = /* @__PURE__ */ failure(
  'invalid',
  'This change touches {count} entries, more than one transaction holds ({limit}): move fewer students at once.',
);
export const teamListMissing = /* @__PURE__ */ failure(
  'invalid',
  'Send the team list as a text/csv body or as the multipart file field team_list.',
);
export const teamListUnreadable = /* @__PURE__ */ failure('invalid', 'The team list is not readable CSV: {reason}');
export const teamListHeader = /* @__PURE__ */ failure('invalid', 'The team list header lacks the column(s) {columns}.');
export const teamListTooLong = /* @__PURE__ */ failure('invalid', 'The team list has more than {limit} teams; split it.');
export const teamChangedMeanwhile = /* @__PURE__ */ failure('conflict', 'The teams changed while this change was being saved: try again.');
/** Course settings (`…/config`): the reference's words where it has them. */
export const configNameMissing = /* @__PURE__ */ failure('invalid', 'Name of config value not provided');
export const configEntryMissing = /* @__PURE__ */ failure('invalid', 'Name of config entry not provided');
export const notAConfigName = /* @__PURE__ */ failure('invalid', 'Not a valid config name');
export const notANumber = /* @__PURE__ */ failure('invalid', 'Must enter a number for this field');
export const numberTooLarge = /* @__PURE__ */ failure('invalid', 'Value must be less than or equal to {max}');
export const readOnlySetting = /* @__PURE__ */ failure('invalid', '{name} cannot be set here: {how}.');
export const badCourseName = /* @__PURE__ */ failure('invalid', 'course_name must be 1 to {max} characters, not only spaces.');
export const badTimeZone = /* @__PURE__ */ failure(
  'invalid',
  'timezone must be an IANA time zone such as America/New_York; {entry} is not one.',
  { entry: ECHOED_LENGTH },
);
export const settingChangedMeanwhile = /* @__PURE__ */ failure(
  'conflict',
  '{name} kept changing meanwhile; read the settings and try again.',
);
export const courseArchived = /* @__PURE__ */ failure(
  'forbidden',
  'This course is archived and takes no submissions or uploads. Its instructors may allow them with the course setting archived_accepts_submissions.',
);
export const notTrueOrFalse = /* @__PURE__ */ failure('invalid', 'Must enter true or false for this field');
export const archiveNeedsFaculty = /* @__PURE__ */ failure('forbidden', 'Only instructors can archive a course');
export const unarchiveNeedsFaculty = /* @__PURE__ */ failure('forbidden', 'Only instructors can unarchive a course');
const GROUP_NAMES = 'Instructor, Full Access Grader (Grad TA), Limited Access Grader (Mentor), Student';
export const groupRequired = /* @__PURE__ */ failure('invalid', `A new member needs the field group: one of ${GROUP_NAMES}.`);
export const badGroup = /* @__PURE__ */ failure('invalid', `The group "{group}" is not one of ${GROUP_NAMES}.`);
export const badSection = /* @__PURE__ */ failure('invalid', 'The {field} "{section}" must be 1 to 32 letters, digits, _ or -.');
export const tooManyGradingSections = /* @__PURE__ */ failure('invalid', 'A grader grades at most {limit} sections.');
export const gradingSectionsOfGraders = /* @__PURE__ */ failure(
  'invalid',
  'Only graders have grading_sections: an instructor grades every section, a student none.',
);
export const accountFieldsMissing = /* @__PURE__ */ failure(
  'not-found',
  'User {user_id} has no account: send first_name, last_name and email to create it.',
);
export { badAccountField } from '#shared/users/failures.ts';
export const badUserId = /* @__PURE__ */ failure(
  'invalid',
  'The user id must be 1 to 64 letters, digits or ._@+- (starting with a letter or digit).',
);
export const lastInstructor = /* @__PURE__ */ failure('conflict', '{user_id} is the last instructor of the course; it must keep one.');
export const memberChanged = /* @__PURE__ */ failure('conflict', 'The membership of {user_id} changed meanwhile; read it and try again.');

export const classListMissing = /* @__PURE__ */ failure(
  'invalid',
  'Send the class list as a text/csv body or as the multipart file field class_list.',
);
export const classListUnreadable = /* @__PURE__ */ failure('invalid', 'The class list is not readable CSV: {reason}');
export const classListHeader = /* @__PURE__ */ failure('invalid', 'The class list header lacks the column(s) {columns}.');
export const classListTooLong = /* @__PURE__ */ failure('invalid', 'The class list has more than {limit} rows; split it.');
