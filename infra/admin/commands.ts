import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readClassList } from '#shared/courses/class-list.ts';
import { isValidAccessGroup, isValidCode, type Course } from '#shared/courses/course.ts';
import { bootstrapCourse } from '#shared/courses/create-course.ts';
import { dropMember, importClassList, putMember } from '#shared/courses/enroll.ts';
import { termFieldsMissing } from '#shared/courses/failures.ts';
import { termFrom } from '#shared/courses/terms.ts';
import { backfill, summaryLine } from './backfill.ts';
import { courseRef } from '#shared/data/courses.ts';
import { changeAccessGroup, setCourseArchived } from '#shared/courses/settings.ts';
import { getItems } from '#shared/data/items.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { summariesOf } from '#shared/data/summaries.ts';
import { putTerm, termRef } from '#shared/data/terms.ts';
import { generateSummaries } from '#shared/summaries/generate.ts';
import { nightlyRosterSync } from '#shared/lti/roster-sync.ts';
import { nightlySummaries } from '#shared/summaries/job.ts';
import { gradebookCsv, loadGradebook } from '#shared/gradebook/gradebook.ts';
import { isTimeZone } from '#shared/gradeables/time-zone.ts';
import { Refusal } from '#shared/errors.ts';
import { createAccount, resetPassword } from '#shared/auth/accounts.ts';
import { rotateRecordKeysFile } from '#shared/grading/record-keys.ts';
import { rotateSecretFile } from '#shared/auth/signing-secret.ts';
import { parseToolKeys, rotatedToolKeys, rotateToolKeyFile } from '#shared/lti/tool-keys.ts';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { getUser } from '#shared/data/users.ts';
import { allAccounts, changeAccount } from '#shared/users/accounts.ts';
import { COMMAND_LINE_ACTOR } from '#shared/ids.ts';
import { isValidUserId } from '#shared/users/user.ts';
import { setTeamMembers } from '#shared/gradeables/teams.ts';

export const usage = `Administer users (local DynamoDB by default).

Usage: npm run admin -- <command> [options]

Commands:
  add-user <user_id> --given-name <name> --family-name <name> --email <address>
           [--level user|faculty|superuser] [--password <password>]
      Adds a user. Without --password a random one is generated and printed once; a chosen one
      has at least 10 characters, is not the user id and is not a common password.
  set-password <user_id> [--password <password>]
      Sets a password (random when omitted, else as for add-user) and invalidates the user's token.
  set-level <user_id> <user|faculty|superuser>
      Sets the system access level.
  disable-user <user_id> | enable-user <user_id>
      A disabled user gets no token, and their current token stops working; enable-user undoes it.
  (add-user, set-password, set-level, disable-user and enable-user are kept in the user's audit
  trail, by "admin".)
  list-users
      Lists every user with access level and e-mail (and "disabled" for a disabled one).
  add-term <term_id> --name <display name> --start <YYYY-MM-DD> --end <YYYY-MM-DD>
      Adds a term, or updates it.
  create-course <term> <course> --instructor <user_id> [--display-name <name>]
           [--time-zone <IANA zone>] [--access-group <group>]
      Creates a course directly (no base course), in an access group of its own by default.
  archive-course <term> <course> | unarchive-course <term> <course>
  set-access-group <term> <course> <group>
      Moves a course to another access group (a new name gives it a group of its own).
  create-team <term> <course> <gradeable_id> <team_id> <user_id>...
      Forms a team for a team gradeable; its members then submit as the team.
  generate-summaries <term> <course>
      Generates the course's grade summaries now.
  export-summaries <term> <course> <folder>
      Writes the course's current summaries as <folder>/all_grades/<user_id>_summary.json, the
      layout the grade-report tool (Rainbow Grades) reads.
  export-gradebook <term> <course> <gradeable_id> <file.csv>
      Writes one gradeable's gradebook as CSV: every student's submission state, active version,
      autograding and TA scores, late days, status and grader, by section then user.
  nightly-summaries
      Runs the nightly job now: summaries of every unarchived course.
  nightly-roster-sync
      Runs the nightly roster sync now: every unarchived course linked to an LMS course, its roster
      read from the LMS and imported as POST /api/{semester}/{course}/lti/roster-sync does.
  enroll <term> <course> <class-list.csv> [--dry-run] [--drop-missing]
      Imports a class list (columns user_id, first_name, last_name, email, registration_section,
      group; a header row), as POST /api/{semester}/{course}/users/import does. Creates missing users
      with a generated password, printed once; updates changed rows (and, here only, changed names
      and e-mails); reports rejected rows by line. --dry-run writes nothing; --drop-missing drops
      students not in the list. Running it twice changes nothing.
  enroll-member <term> <course> <user_id> [--group <group>] [--section <s>] [--rotating-section <s>]
           [--grading-sections <s1,s2>] [--given-name <name> --family-name <name> --email <address>]
      Enrols one member or changes their membership, as PUT /api/{semester}/{course}/users/{user_id}.
  drop-member <term> <course> <user_id>
      Drops a member, as DELETE /api/{semester}/{course}/users/{user_id}.
  backfill
      Brings items written by an older version up to date: a student's own submissions and team
      member entries get what the late-day table reads, enrollments their copies. Safe while the
      service runs; running it again writes nothing.
  rotate-signing-secret
      Local API only: a new token signing secret; tokens of the previous one work for the grace period.
  rotate-lti-key
      The LTI tool's next key (published in GET /api/lti/jwks since the last rotation) becomes the
      one it signs with, and a new next key is published. The first run gives a deployment its keys.
      With --aws: the secret LTI_KEY_ARN names (in the stack's AdminEnvironment output).
  rotate-record-key
      Local API only: a new key signs grading records from now on; every earlier key stays published,
      so the records it signed still verify.

Options:
  --aws     use the deployed tables (AWS credentials and the *_TABLE variables) instead of local ones
  --help    show this text`;

export class UsageError extends Error {}

/** Runs one admin command; its output lines go to `print`. */
export async function runAdminCommand(
  argv: string[],
  print: (line: string) => void,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'given-name': { type: 'string' },
      'family-name': { type: 'string' },
      email: { type: 'string' },
      level: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      start: { type: 'string' },
      end: { type: 'string' },
      instructor: { type: 'string' },
      'display-name': { type: 'string' },
      'time-zone': { type: 'string' },
      'access-group': { type: 'string' },
      group: { type: 'string' },
      section: { type: 'string' },
      'rotating-section': { type: 'string' },
      'grading-sections': { type: 'string' },
      'dry-run': { type: 'boolean' },
      'drop-missing': { type: 'boolean' },
      aws: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) return print(usage);

  switch (command) {
    case 'add-user': {
      const created = await asUsageErrorAsync(() =>
        createAccount(COMMAND_LINE_ACTOR, {
          user_id: rest[0] ?? '',
          first_name: requireOption(values['given-name'], '--given-name'),
          last_name: requireOption(values['family-name'], '--family-name'),
          email: requireOption(values.email, '--email'),
          level: values.level,
          password: values.password,
        }),
      );
      if (created.password !== null) print(`Generated password for ${created.user_id}: ${created.password}`);
      return print(`Added ${created.user_id} (${created.level}).`);
    }
    case 'set-password': {
      const userId = requireUserId(rest[0]);
      const set = await asUsageErrorAsync(() => resetPassword(COMMAND_LINE_ACTOR, userId, values.password));
      if (set.password !== null) print(`Generated password for ${userId}: ${set.password}`);
      return print(`Password of ${userId} set; their token no longer works.`);
    }
    case 'set-level': {
      const userId = requireUserId(rest[0]);
      const changed = await asUsageErrorAsync(() => changeAccount(COMMAND_LINE_ACTOR, userId, { level: rest[1] ?? '' }));
      return print(`${changed.user_id} is now ${changed.level}.`);
    }
    case 'disable-user':
    case 'enable-user': {
      const userId = requireUserId(rest[0]);
      const disabled = command === 'disable-user';
      await asUsageErrorAsync(() => changeAccount(COMMAND_LINE_ACTOR, userId, { disabled }));
      return print(`${userId} is now ${disabled ? 'disabled; their token no longer works' : 'enabled'}.`);
    }
    case 'list-users': {
      for (const user of await allAccounts()) {
        const fields = [user.user_id, user.level, `${user.first_name} ${user.last_name}`, user.email];
        print([...fields, ...(user.disabled ? ['disabled'] : [])].join('\t'));
      }
      return;
    }
    case 'add-term': {
      const [termId, name, startDate, endDate] = [rest[0], values.name, values.start, values.end];
      const term = asUsageError(() => {
        // The command line is an input of its own: it asks for the four, as the route does.
        if (!termId || !name || !startDate || !endDate) throw termFieldsMissing();
        return termFrom({ termId, name, startDate, endDate });
      });
      await putTerm(term);
      return print(`Term ${term.termId} (${term.name}, ${term.startDate} to ${term.endDate}) saved.`);
    }
    case 'create-course': {
      const [term, code] = requireCourseCodes(rest);
      const instructor = await requireExistingUser(values.instructor);
      const timeZone = values['time-zone'] ?? 'UTC';
      if (!isTimeZone(timeZone)) throw new UsageError(`Unknown time zone ${timeZone}.`);
      const { term: knownTerm } = await getItems({ term: termRef(term) });
      if (!knownTerm) throw new UsageError(`No term ${term}; add it with add-term first.`);
      const course: Course = {
        term,
        course: code,
        displayName: values['display-name']?.trim() ?? '',
        archived: false,
        timeZone,
        accessGroup: requireGroupName(values['access-group'] ?? `${term}.${code}`),
      };
      if (!(await bootstrapCourse(course, instructor))) throw new UsageError(`Course ${term}/${code} already exists.`);
      return print(`Created ${term}/${code} with ${instructor} as instructor, in access group ${course.accessGroup}.`);
    }
    case 'archive-course':
    case 'unarchive-course': {
      const course = await requireCourse(rest);
      const archived = command === 'archive-course';
      // The same change as POST …/config/archive and …/unarchive, with its audit entry (actor `admin`).
      await setCourseArchived(course, COMMAND_LINE_ACTOR, archived);
      return print(`${course.term}/${course.course} is ${archived ? 'archived' : 'unarchived'}.`);
    }
    case 'set-access-group': {
      const course = await requireCourse(rest);
      const accessGroup = requireGroupName(rest[2]);
      // The same change as POST …/config with access_group, with its audit entry (actor `admin`).
      await changeAccessGroup(course, COMMAND_LINE_ACTOR, accessGroup);
      return print(`${course.term}/${course.course} is in access group ${accessGroup}.`);
    }
    case 'enroll': {
      const course = await requireCourse(rest);
      if (!rest[2]) throw new UsageError('Name the class list file.');
      const text = await readFile(rest[2], 'utf8');
      const list = asUsageError(() => readClassList(text));
      const report = await importClassList(course, list, {
        actor: COMMAND_LINE_ACTOR,
        dryRun: values['dry-run'] ?? false,
        dropMissing: values['drop-missing'] ?? false,
        updateProfiles: true,
        onProgress,
      });
      for (const { user_id, password } of report.new_accounts) if (password) print(`New user ${user_id}: password ${password}`);
      print(
        `${report.dry_run ? 'Would import' : 'Imported'} ${list.rows.length} rows into ${course.term}/${course.course}: ` +
          `${report.new_accounts.length} users created, ${report.profilesUpdated} updated, ` +
          `${report.created + report.updated + report.dropped} enrollments added or changed, ${report.unchanged} unchanged, ` +
          `${report.rejected.length} rejected.`,
      );
      if (report.dropped > 0) print(`Dropped ${report.dropped} students missing from the list.`);
      for (const { line, reason } of report.rejected) print(`Rejected line ${line}: ${reason}`);
      return;
    }
    case 'enroll-member': {
      const course = await requireCourse(rest);
      const userId = requireUserId(rest[2]);
      const fields = {
        group: values.group,
        registration_section: values.section,
        rotating_section: values['rotating-section'],
        grading_sections: values['grading-sections']?.split(',').map((name) => name.trim()),
        first_name: values['given-name'],
        last_name: values['family-name'],
        email: values.email,
      };
      const member = await asUsageErrorAsync(() => putMember(course, userId, fields, COMMAND_LINE_ACTOR));
      if (member.password) print(`Generated password for ${userId}: ${member.password}`);
      return print(`${userId} in ${course.term}/${course.course}: ${member.group}, section ${member.reg_section}.`);
    }
    case 'drop-member': {
      const course = await requireCourse(rest);
      const userId = requireUserId(rest[2]);
      const { member } = await asUsageErrorAsync(() => dropMember(course, userId, COMMAND_LINE_ACTOR));
      return print(
        member
          ? `${userId} is dropped from ${course.term}/${course.course}.`
          : `${userId} no longer has a role in ${course.term}/${course.course}.`,
      );
    }
    case 'create-team': {
      const course = await requireCourse(rest);
      const [, , gradeableId, teamId, ...members] = rest;
      if (!gradeableId || !teamId || members.length === 0) throw new UsageError('Give the gradeable, a team id and its members.');
      const { gradeable } = await getItems({ gradeable: gradeableRef(course.term, course.course, gradeableId) });
      // The same rules and audit entry as the teams route, for a new team only.
      await asUsageErrorAsync(() =>
        setTeamMembers(course, gradeable, { gradeableId, teamId, members, actor: COMMAND_LINE_ACTOR, createOnly: true }),
      );
      return print(`Team ${teamId} of ${gradeableId}: ${members.join(', ')}.`);
    }
    case 'generate-summaries': {
      const report = await generateSummaries(await requireCourse(rest));
      return print(`Generated ${report.summaries} summaries of ${report.course} at ${report.generated_at}.`);
    }
    case 'export-summaries': {
      const course = await requireCourse(rest);
      if (!rest[2]) throw new UsageError('Name the folder to write into.');
      if (!course.summaries) throw new UsageError(`${course.term}/${course.course} has no summaries yet; generate them first.`);
      const folder = join(rest[2], 'all_grades');
      await mkdir(folder, { recursive: true });
      const summaries = await summariesOf(course.term, course.course, course.summaries.generation);
      for (const summary of summaries) {
        await writeFile(join(folder, `${summary.user_id}_summary.json`), `${JSON.stringify(summary, null, 2)}\n`);
      }
      return print(`Wrote ${summaries.length} summaries (generated ${course.summaries.generatedAt}) to ${folder}.`);
    }
    case 'export-gradebook': {
      const course = await requireCourse(rest);
      if (!rest[2] || !rest[3]) throw new UsageError('Name the gradeable and the file to write.');
      const { gradeable } = await getItems({ gradeable: gradeableRef(course.term, course.course, rest[2]) });
      if (!gradeable) throw new UsageError(`${course.term}/${course.course} has no gradeable ${rest[2]}.`);
      // All sections, as an instructor sees them.
      const everyone = {
        term: course.term,
        course: course.course,
        userId: '-',
        group: 1,
        registrationSection: null,
        rotatingSection: null,
        gradingSections: [],
      } as const;
      const rows = await loadGradebook(course, gradeable, everyone);
      await writeFile(rest[3], gradebookCsv(rows));
      return print(`Wrote the gradebook of ${gradeable.id} (${rows.length} students) to ${rest[3]}.`);
    }
    case 'nightly-summaries': {
      const report = await nightlySummaries();
      return print(
        `Nightly summaries: ${report.succeeded} of ${report.courses} courses, ${report.summaries} summaries, ${report.failed} failed, ${report.skipped} left to a job under way.`,
      );
    }
    case 'nightly-roster-sync': {
      const report = await nightlyRosterSync();
      return print(
        `Nightly roster sync: ${report.synced} of ${report.courses} linked courses, ${report.failed} failed, ${report.skipped} archived or gone.`,
      );
    }
    case 'backfill':
      return print(summaryLine(await backfill()));
    case 'rotate-signing-secret': {
      if (values.aws || !process.env.SIGNING_SECRET_FILE)
        throw new UsageError(
          'Only the local secret file rotates here; in AWS use aws secretsmanager put-secret-value (see docs/deployment.md).',
        );
      const { graceEndsAt } = await rotateSecretFile(process.env.SIGNING_SECRET_FILE);
      return print(`Signing secret rotated; tokens signed with the previous one work until ${graceEndsAt.toISOString()}.`);
    }
    case 'rotate-lti-key': {
      const keys = values.aws ? await rotateDeployedToolKeys(process.env.LTI_KEY_ARN) : await rotateLocalToolKeys(process.env.LTI_KEY_FILE);
      return print(`LTI key rotated: ${keys.current.kid ?? ''} signs from now on; ${keys.next.kid ?? ''} is published as the next key.`);
    }
    case 'rotate-record-key': {
      if (values.aws || !process.env.RECORD_KEYS_FILE)
        throw new UsageError(
          'Only the local record keys file rotates here; in AWS put a new first line into the record keys secret (see docs/grading.md).',
        );
      const kid = await rotateRecordKeysFile(process.env.RECORD_KEYS_FILE);
      return print(`Grading records are signed with key ${kid} from now on; the earlier keys stay published.`);
    }
    default:
      throw new UsageError(`Unknown command "${command}". See --help.`);
  }
}

function rotateLocalToolKeys(file: string | undefined) {
  if (!file) throw new UsageError('LTI_KEY_FILE is not set.');
  return rotateToolKeyFile(file);
}

/** The deployed key set rotated: read, rotated and written back as the secret's new current version. */
async function rotateDeployedToolKeys(secretArn: string | undefined) {
  if (!secretArn) throw new UsageError('Set LTI_KEY_ARN to the LTI key secret of the deployment.');
  const client = new SecretsManagerClient({});
  const read = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
  const keys = await rotatedToolKeys(parseToolKeys(read.SecretString ?? ''));
  await client.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: JSON.stringify(keys) }));
  return keys;
}

function requireUserId(userId: string | undefined): string {
  if (!userId || !isValidUserId(userId)) {
    throw new UsageError('Give a user id of 1–64 letters, digits or ._@+- (starting with a letter or digit).');
  }
  return userId;
}

async function requireExistingUser(userId: string | undefined): Promise<string> {
  const id = requireUserId(userId);
  if (!(await getUser(id))) throw new UsageError(`No user ${id}.`);
  return id;
}

function requireOption(value: string | undefined, name: string): string {
  if (!value?.trim()) throw new UsageError(`${name} is required.`);
  return value.trim();
}

function requireCourseCodes(args: string[]): [string, string] {
  const [term, course] = args;
  if (!term || !course || !isValidCode(term) || !isValidCode(course)) {
    throw new UsageError('Give a term and a course code (lowercase letters, digits, underscores).');
  }
  return [term, course];
}

async function requireCourse(args: string[]): Promise<Course> {
  const [term, code] = requireCourseCodes(args);
  const { course } = await getItems({ course: courseRef(term, code) });
  if (!course) throw new UsageError(`No course ${term}/${code}.`);
  return course;
}

function requireGroupName(name: string | undefined): string {
  if (!name || !isValidAccessGroup(name)) {
    throw new UsageError('An access group name is 1–64 letters, digits or ._-');
  }
  return name;
}

async function asUsageErrorAsync<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Refusal) throw new UsageError(error.message);
    throw error;
  }
}

function asUsageError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof Refusal) throw new UsageError(error.message);
    throw error;
  }
}
