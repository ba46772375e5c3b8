import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  electronicDates,
  LIMIT_SETTING_RANGES,
  MAX_DOCUMENT_BYTES,
  syllabusBuckets,
  type GradeableDocument,
} from '#shared/gradeables/gradeable.ts';
import { REDACTED_DOCUMENT } from '#shared/gradeables/failures.ts';
import { downloadForm, gradeableListing, isVisible, sectionOf, withoutHiddenTests } from '#shared/gradeables/listing.ts';
import { repositoryUrl } from '#shared/gradeables/repository.ts';
import { gradeableJsonSchema, IMAGE_NAME, REQUIRES_ID_TITLE_TYPE, RUBRIC_PARAMETERS, withDefaultDates } from '#shared/gradeables/schema.ts';
import { fromLocalTime, GRADEABLE_DATE_FORM, isTimeZone, parseGradeableDate, toLocalTime } from '#shared/gradeables/time-zone.ts';
import { validateGradeable } from '#shared/gradeables/validate.ts';
import { rubricComponent } from '../support/rubric.ts';
import type { RubricComponent } from '#shared/gradeables/gradeable.ts';

const now = new Date('2026-11-23T12:00:00Z');

/** The document a valid input gives; the test fails with the problems of an invalid one. */
function accepted(result: ReturnType<typeof validateGradeable>): GradeableDocument {
  if (!result.document) throw new Error(JSON.stringify(result.errors));
  return result.document;
}

describe('course time zones', () => {
  it('converts wall-clock times to instants and back', () => {
    expect(fromLocalTime('2026-11-23 10:00:00', 'America/New_York')).toBe('2026-11-23T15:00:00.000Z');
    expect(fromLocalTime('2026-07-01 10:00:00', 'America/New_York')).toBe('2026-07-01T14:00:00.000Z');
    expect(toLocalTime('2026-07-01T14:00:00.000Z', 'America/New_York')).toBe('2026-07-01 10:00:00');
    expect(fromLocalTime('9999-01-06 23:59:59', 'Asia/Kolkata')).toBe('9999-01-06T18:29:59.000Z');
  });

  it('refuses times that do not exist and takes the earlier of a repeated hour', () => {
    expect(fromLocalTime('2026-03-08 02:30:00', 'America/New_York')).toBeUndefined();
    expect(fromLocalTime('2026-02-29 10:00:00', 'UTC')).toBeUndefined();
    expect(fromLocalTime('2026-13-01 10:00:00', 'UTC')).toBeUndefined();
    expect(fromLocalTime('2026-11-01 01:30:00', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
  });

  it('knows IANA time zones, and nothing else', () => {
    expect(['UTC', 'America/New_York', 'Pacific/Chatham'].map(isTimeZone)).toEqual([true, true, true]);
    expect(['', 'Mars/Olympus_Mons', 'UTC+25'].map(isTimeZone)).toEqual([false, false, false]);
  });

  it('accepts ISO 8601 with an explicit offset', () => {
    expect(parseGradeableDate('2026-11-23T10:00:00+01:00', 'America/New_York')).toBe('2026-11-23T09:00:00.000Z');
    expect(parseGradeableDate('2026-11-23T10:00:00', 'UTC')).toBeUndefined();
  });
});

const electronic = (dates: Record<string, string>, extra: Partial<GradeableDocument> = {}): GradeableDocument =>
  accepted(validateGradeable({ id: 'g', title: 'G', type: 'Electronic File', dates, ...extra }, { timeZone: 'UTC', now }));
const day = (offset: number) => new Date(now.getTime() + offset * 86_400_000).toISOString();

describe('visibility and sections', () => {
  const beta = electronic({ ta_view_start_date: day(-1), submission_open_date: day(1), submission_due_date: day(5) });
  it('shows students a gradeable once submission opens, graders from the TA view date', () => {
    expect(isVisible(beta, { group: 4 }, now)).toBe(false);
    expect(isVisible(beta, { group: 3 }, now)).toBe(true);
    expect(isVisible(beta, { group: 4 }, new Date(day(2)))).toBe(true);
    const future = electronic({ ta_view_start_date: day(1), submission_open_date: day(2), submission_due_date: day(5) });
    expect(isVisible(future, { group: 2 }, now)).toBe(false);
    expect(isVisible(future, { group: 1 }, now)).toBe(true);
  });

  it('moves through FUTURE, BETA, OPEN, CLOSED, GRADING and GRADED', () => {
    const document = electronic(
      {
        ta_view_start_date: day(1),
        submission_open_date: day(2),
        submission_due_date: day(3),
        grade_start_date: day(4),
        grade_due_date: day(5),
        grade_released_date: day(6),
      },
      { ta_grading: true },
    );
    const at = (offset: number) => sectionOf(document, new Date(now.getTime() + offset * 86_400_000 + 1000));
    expect([0, 1, 2, 3, 4, 6].map(at)).toEqual(['FUTURE', 'BETA', 'OPEN', 'CLOSED', 'GRADING', 'GRADED']);
  });
});

describe('repository URLs', () => {
  const owner = { term: 'f26', course: 'cs1', gradeableId: 'hw1', ownerId: 'amy' };
  it('fills placeholders, or appends the user id', () => {
    expect(
      repositoryUrl(
        { repository_type: 'public-github', vcs_path: 'https://github.com/org/{$gradeable_id}-{$user_id}', vcs_subdirectory: '' },
        owner,
      ),
    ).toBe('https://github.com/org/hw1-amy');
    expect(repositoryUrl({ repository_type: 'self-hosted', vcs_path: 'https://git.example.edu/repos/', vcs_subdirectory: '' }, owner)).toBe(
      'https://git.example.edu/repos/amy',
    );
  });

  it("lists a team gradeable with the repository of the caller's team, and none while they are on no team", () => {
    const vcs = {
      repository_type: 'public-github',
      vcs_path: 'https://github.com/org/{$gradeable_id}-{$team_id}',
      vcs_subdirectory: '',
    } as const;
    const open = { ta_view_start_date: day(-2), submission_open_date: day(-1), submission_due_date: day(5) };
    const documents = [
      { ...electronic(open, { vcs, team_gradeable: { team_size_max: 3, inherit_from: '' } }), id: 'team_hw' },
      { ...electronic(open, { vcs }), id: 'solo_hw' },
    ];
    const course = { term: 'f26', course: 'cs1', timeZone: 'UTC' } as Parameters<typeof gradeableListing>[1];
    const amy = { userId: 'amy', group: 4 } as Parameters<typeof gradeableListing>[2];
    const repositories = (teams: Map<string, string>) =>
      Object.values(gradeableListing(documents, course, amy, teams, now)).map((entry) => [entry.id, entry.vcs_repository]);
    expect(repositories(new Map([['team_hw', 'team1']]))).toEqual([
      ['team_hw', 'https://github.com/org/team_hw-team1'],
      ['solo_hw', 'https://github.com/org/solo_hw-amy'],
    ]);
    expect(repositories(new Map())).toEqual([
      ['team_hw', null],
      ['solo_hw', 'https://github.com/org/solo_hw-amy'],
    ]);
  });

  it('puts submitty-hosted repositories under VCS_BASE_URL', () => {
    expect(repositoryUrl({ repository_type: 'submitty-hosted', vcs_path: 'ignored', vcs_subdirectory: '' }, owner)).toBe(
      'https://git.example.edu/f26/cs1/hw1/amy',
    );
  });
});

describe('gradeable documents', () => {
  it('the example of docs/gradeables.md is a valid gradeable', async () => {
    const readme = await readFile('docs/gradeables.md', 'utf8');
    const block = /```json\n(\{\n {2}"id": "hw_vcs"[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const result = validateGradeable(JSON.parse(block ?? ''), { timeZone: 'America/New_York', now });
    expect(result.errors).toEqual([]);
    expect(accepted(result).autograding?.test_cases.map((test) => test.points_available)).toEqual([2, 3, 1, 4]);
  });

  it('the C++, Java and Python autograding examples of docs/gradeables.md are valid, image names included', async () => {
    const readme = await readFile('docs/gradeables.md', 'utf8');
    const blocks = [...readme.matchAll(/```json\n(\{ "autograding": [\s\S]*?)```/g)].map((match) => JSON.parse(match[1] ?? ''));
    expect(blocks).toHaveLength(3);
    const base = JSON.parse(/```json\n(\{\n {2}"id": "hw_vcs"[\s\S]*?)```/.exec(readme)?.[1] ?? '');
    for (const block of blocks) {
      const result = validateGradeable({ ...base, ...block }, { timeZone: 'UTC', now });
      expect(result.errors).toEqual([]);
      expect(accepted(result).autograding?.image).toBe(block.autograding.image);
    }
  });

  it('takes an image name, and refuses anything else', () => {
    const document = (image: unknown) => ({
      ...downloadForm(electronic({ submission_open_date: day(0), submission_due_date: day(5) }), 'UTC'),
      autograding: { image, test_cases: [{ name: 't', command: 'true' }] },
    });
    expect(accepted(validateGradeable(document('cpp-17'), { timeZone: 'UTC', now })).autograding?.image).toBe('cpp-17');
    for (const image of ['aws/codebuild/standard:7.0', 'Default', '', 7]) {
      expect(
        validateGradeable(document(image), { timeZone: 'UTC', now }).errors.map((error) => error.path),
        String(image),
      ).toEqual(['autograding.image']);
    }
  });

  it('survives download and upload unchanged', () => {
    const document = electronic({ ta_view_start_date: day(-1), submission_open_date: day(0), submission_due_date: day(5) });
    const again = validateGradeable(downloadForm(document, 'Pacific/Auckland'), { timeZone: 'Pacific/Auckland', now });
    expect(again.document).toEqual(document);
  });
});

describe('downloads for readers who may not see hidden tests', () => {
  const withTests = (testCases: Record<string, unknown>[]) =>
    accepted(
      validateGradeable(
        { id: 'hw', title: 'HW', type: 'Electronic File', autograding: { test_cases: testCases, limits: { processes: 8 } } },
        { timeZone: 'UTC', now },
      ),
    );

  it('drop each hidden test case’s command and expectations, keep the rest in download order, and say so', () => {
    const document = withTests([
      { name: 'open', command: 'sh run.sh', points_available: 1, expect: { stdout: 'hi\n' } },
      { name: 'secret', details: 'd', command: 'sh run.sh 42', points_available: 4, is_hidden: true, expect: { stdout: '1764\n' } },
    ]);
    const full = downloadForm(document, 'UTC');
    const redacted = withoutHiddenTests(full);
    expect(redacted).toMatchObject({ hidden_test_cases_redacted: true });
    expect(redacted.autograding?.test_cases[0]).toEqual(full.autograding?.test_cases[0]);
    expect(redacted.autograding?.test_cases[1]).toEqual({
      name: 'secret',
      details: 'd',
      points_available: 4,
      is_extra_credit: false,
      is_hidden: true,
      timeout_seconds: 10,
    });
    expect(redacted.autograding).toMatchObject({ limits: { processes: 8 } });
    expect(JSON.stringify(redacted)).not.toMatch(/1764|run\.sh 42/);
    // The redacted form of the document is not the document: it cannot be uploaded, and says why.
    expect(validateGradeable(redacted, { timeZone: 'UTC', now }).errors).toEqual([
      { path: 'hidden_test_cases_redacted', message: REDACTED_DOCUMENT },
    ]);
    const { hidden_test_cases_redacted: _flag, ...unflagged } = redacted as Record<string, unknown>;
    expect(validateGradeable(unflagged, { timeZone: 'UTC', now }).errors.map((error) => error.path)).toEqual([
      'autograding.test_cases[1].command',
    ]);
  });

  it('leave a gradeable without hidden test cases whole', () => {
    const full = downloadForm(withTests([{ name: 'open', command: 'true' }]), 'UTC');
    expect(withoutHiddenTests(full)).toBe(full);
    const none = downloadForm(accepted(validateGradeable({ id: 'n', title: 'N', type: 'Numeric' }, { timeZone: 'UTC', now })), 'UTC');
    expect(withoutHiddenTests(none)).toBe(none);
  });
});

describe('the gradeable schema', () => {
  const context = { timeZone: 'UTC', now };
  const problems = (input: unknown) => validateGradeable(input, context).errors;
  const messages = (input: unknown) => problems(input).map((problem) => problem.message);
  const checkpoints = (extra: Record<string, unknown> = {}) => ({ id: 'c', title: 'C', type: 'Checkpoints', ...extra });
  const file = (extra: Record<string, unknown> = {}) => ({ id: 'g', title: 'G', type: 'Electronic File', ...extra });
  // `extra` may hold what a rubric component must not: the validation is what is tested.
  const component = (extra: Record<string, unknown> = {}): Record<string, unknown> =>
    rubricComponent('Style', { max_value: 2, upper_clamp: 2, ...(extra as Partial<RubricComponent>) });
  const testCase = (extra: Record<string, unknown> = {}) => ({ name: 't', command: 'true', ...extra });
  const autograding = (...testCases: Record<string, unknown>[]) => file({ autograding: { test_cases: testCases } });

  it('asks for id, title and type before anything else, in the reference words', () => {
    expect(problems({ title: '', type: 'Essay', syllabus_bucket: 1 })).toEqual([
      { path: 'id', message: REQUIRES_ID_TITLE_TYPE },
      { path: 'title', message: REQUIRES_ID_TITLE_TYPE },
    ]);
    expect(problems([])).toEqual([{ path: '', message: 'The gradeable JSON must be an object.' }]);
    expect(problems(checkpoints({ padding: 'x'.repeat(MAX_DOCUMENT_BYTES) }))).toEqual([
      { path: '', message: `The gradeable JSON must be at most ${MAX_DOCUMENT_BYTES} bytes.` },
    ]);
  });

  it('words the reference checks as the reference does', () => {
    expect(messages(checkpoints({ type: 'Essay' }))).toEqual(['An error has occurred: Invalid type']);
    expect(messages(checkpoints({ syllabus_bucket: 'party' }))).toEqual([
      'An error has occurred: Syllabus bucket must be one of the following: homework, assignment, problem-set, quiz, test, exam, ' +
        'exercise, lecture-exercise, reading, lab, recitation, worksheet, project, participation, note, none (for practice only).',
    ]);
    expect(problems(file({ vcs: { vcs_subdirectory: '' } }))).toEqual([
      { path: 'vcs.repository_type', message: 'VCS gradeables need vcs.repository_type and vcs.vcs_path.' },
      { path: 'vcs.vcs_path', message: 'VCS gradeables need vcs.repository_type and vcs.vcs_path.' },
    ]);
    expect(problems(file({ team_gradeable: {} }))).toEqual([
      { path: 'team_gradeable.team_size_max', message: 'Team gradeables need team_gradeable.team_size_max.' },
    ]);
    const { max_value, marks, ...incomplete } = component();
    expect(problems(checkpoints({ rubric: [incomplete] }))).toEqual([
      { path: 'rubric[0].max_value', message: RUBRIC_PARAMETERS },
      { path: 'rubric[0].marks', message: RUBRIC_PARAMETERS },
    ]);
    expect([max_value, marks]).toEqual([2, []]);
  });

  it('lists every problem of a field in order: the id too long and not an id', () => {
    expect(problems(checkpoints({ id: 'x'.repeat(65), instructions_url: 'ftp://x' }))).toEqual([
      { path: 'id', message: 'id must be at most 64 characters long.' },
      { path: 'id', message: 'The id must be 1 to 64 letters, digits, underscores or hyphens.' },
      { path: 'instructions_url', message: 'instructions_url must be an http(s) URL or empty.' },
    ]);
  });

  it('gives a value of the wrong type that one problem', () => {
    expect(problems(checkpoints({ autograding_config_path: Array(2000).fill('x'), rubric: 'none' }))).toEqual([
      { path: 'autograding_config_path', message: 'autograding_config_path must be a string.' },
      { path: 'rubric', message: 'rubric must be a list.' },
    ]);
    expect(messages(file({ bulk_upload: 'no', dates: { late_days: '2' } }))).toEqual([
      'bulk_upload must be true or false.',
      'dates.late_days must be a number.',
    ]);
  });

  it('reports a fraction before the range of a whole number', () => {
    expect(messages(file({ dates: { late_days: 1000.5 }, team_gradeable: { team_size_max: 0 } }))).toEqual([
      'team_gradeable.team_size_max must be at least 1.',
      'dates.late_days must be a whole number.',
      'dates.late_days must be at most 1000.',
    ]);
  });

  it('checks the VCS repository type and subdirectory', () => {
    expect(messages(file({ vcs: { repository_type: 'gitlab', vcs_path: 'https://x', vcs_subdirectory: '../up' } }))).toEqual([
      'vcs.repository_type must be one of submitty-hosted, submitty-hosted-url, public-github, private-github, self-hosted.',
      'vcs.vcs_subdirectory must be a relative path inside the repository.',
    ]);
  });

  it('orders grading dates only when the gradeable has TA grading, inquiry dates whenever it takes inquiries', () => {
    const dates = {
      ta_view_start_date: '2026-11-01 00:00:00',
      submission_open_date: '2026-11-02 00:00:00',
      submission_due_date: '2026-11-10 00:00:00',
      grade_start_date: '2026-11-09 00:00:00',
      grade_due_date: '2026-11-20 00:00:00',
      grade_released_date: '2026-12-01 00:00:00',
      grade_inquiry_start_date: '2026-11-30 00:00:00',
    };
    expect(problems(file({ dates }))).toEqual([]);
    expect(problems(file({ dates, ta_grading: true }))).toEqual([
      { path: 'dates.grade_start_date', message: 'dates.submission_due_date must not be after dates.grade_start_date.' },
    ]);
    expect(problems(file({ dates, ta_grading: true, grade_inquiries: true })).map((problem) => problem.path)).toEqual([
      'dates.grade_start_date',
      'dates.grade_inquiry_start_date',
    ]);
    // Inquiries without TA grading: still after the due date and the release.
    expect(problems(file({ dates, grade_inquiries: true }))).toEqual([
      { path: 'dates.grade_inquiry_start_date', message: 'dates.grade_released_date must not be after dates.grade_inquiry_start_date.' },
    ]);
    const early = { ...dates, grade_released_date: '2026-11-05 00:00:00', grade_inquiry_start_date: '2026-11-06 00:00:00' };
    expect(problems(file({ dates: early, grade_inquiries: true }))).toEqual([
      { path: 'dates.grade_inquiry_start_date', message: 'dates.submission_due_date must not be after dates.grade_inquiry_start_date.' },
    ]);
    const graded = {
      ta_view_start_date: '2026-11-01 00:00:00',
      grade_start_date: '2026-11-09 00:00:00',
      grade_due_date: '2026-11-08 00:00:00',
    };
    expect(problems(checkpoints({ dates: graded }))).toEqual([
      { path: 'dates.grade_due_date', message: 'dates.grade_start_date must not be after dates.grade_due_date.' },
    ]);
  });

  it('fills in missing dates from now, and leaves an invalid one out of the order checks', () => {
    const { document } = validateGradeable(checkpoints(), context);
    expect(document?.dates).toEqual({
      ta_view_start_date: day(0),
      grade_start_date: day(7),
      grade_due_date: day(14),
      grade_released_date: day(14),
    });
    expect(problems(file({ dates: { submission_open_date: 'soon', submission_due_date: '2020-01-01 00:00:00' } }))).toEqual([
      {
        path: 'dates.submission_open_date',
        message: 'dates.submission_open_date must be a date of the form YYYY-MM-DD HH:MM:SS that exists in UTC.',
      },
    ]);
  });

  it('fills in left-out dates to fit the dates given: never before the due date, nor after a date given later', () => {
    // Due in a month, the rest left out: grading from the due date for a week, inquiries a week after the release.
    const { document } = validateGradeable(
      file({ ta_grading: true, grade_inquiries: true, dates: { submission_due_date: '2026-12-23 12:00:00' } }),
      context,
    );
    expect(document?.dates).toMatchObject({
      ta_view_start_date: day(0),
      submission_open_date: day(0),
      submission_due_date: day(30),
      grade_start_date: day(30),
      grade_due_date: day(37),
      grade_released_date: day(37),
      grade_inquiry_start_date: day(37),
      grade_inquiry_due_date: day(44),
    });
    // Opened a month ago: the TA view is not after it.
    const opened = validateGradeable(file({ dates: { submission_open_date: '2026-10-24 12:00:00' } }), context).document;
    expect(opened?.dates).toMatchObject({ ta_view_start_date: day(-30), submission_open_date: day(-30), submission_due_date: day(7) });
    // Due tomorrow and released the day after: grading fits between them.
    expect(
      validateGradeable(
        file({ ta_grading: true, dates: { submission_due_date: '2026-11-24 12:00:00', grade_released_date: '2026-11-25 12:00:00' } }),
        context,
      ).document?.dates,
    ).toMatchObject({ grade_start_date: day(2), grade_due_date: day(2), grade_released_date: day(2) });
  });

  it('withDefaultDates keeps every date given and orders the ones it fills in between them', () => {
    const given = { submission_due_date: day(-3), grade_inquiry_due_date: day(2) };
    const dates = withDefaultDates(electronicDates, given, now);
    expect(dates).toMatchObject(given);
    const chain = [
      'ta_view_start_date',
      'submission_open_date',
      'submission_due_date',
      'grade_start_date',
      'grade_due_date',
      'grade_released_date',
      'grade_inquiry_start_date',
      'grade_inquiry_due_date',
    ] as const;
    for (const [index, name] of chain.slice(1).entries()) expect(dates[chain[index]!] <= dates[name], name).toBe(true);
    expect(withDefaultDates(electronicDates, {}, now)).toMatchObject({
      submission_open_date: day(0),
      submission_due_date: day(7),
      team_lock_date: day(7),
    });
  });

  it('keeps only the fields of its type: Checkpoints and Numeric gradeables ignore the Electronic File ones', () => {
    const document = accepted(
      validateGradeable(checkpoints({ bulk_upload: 'no', vcs: 7, dates: { submission_due_date: 'never' } }), context),
    );
    expect(Object.keys(document)).toEqual([
      'title',
      'type',
      'id',
      'instructions_url',
      'syllabus_bucket',
      'autograding_config_path',
      'dates',
      'rubric',
    ]);
  });

  it('keeps rubric components within their clamps', () => {
    expect(
      problems(checkpoints({ rubric: [component({ lower_clamp: 3, default: 0, marks: [{ points: 1, title: 'ok' }, { points: 'x' }] })] })),
    ).toEqual([
      { path: 'rubric[0].marks[1].points', message: 'rubric[0].marks[1].points must be a number.' },
      { path: 'rubric[0].marks[1].title', message: 'rubric[0].marks[1].title must be a string.' },
      { path: 'rubric[0].lower_clamp', message: 'rubric[0].lower_clamp must not be above rubric[0].upper_clamp.' },
      { path: 'rubric[0].default', message: 'rubric[0].default must lie between the clamps.' },
      { path: 'rubric[0].max_value', message: 'rubric[0].max_value must lie between the clamps.' },
      { path: 'rubric[0].marks[0].points', message: 'rubric[0].marks[0].points must not exceed the span of the clamps.' },
      { path: 'rubric[0].marks[1].points', message: 'rubric[0].marks[1].points must not exceed the span of the clamps.' },
    ]);
    expect(problems(checkpoints({ rubric: [component({ marks: [{ points: -2, title: 'ok', publish: true }] })] }))).toEqual([]);
  });

  it('checks test cases: names, commands, time limits and expectations', () => {
    expect(messages(file({ autograding: {} }))).toEqual(['autograding.test_cases must list at least one test case.']);
    expect(messages(autograding())).toEqual(['autograding.test_cases must list at least one test case.']);
    expect(
      problems(
        autograding(
          testCase({ name: '', command: ' \n' }),
          testCase({ timeout_seconds: 601, expect: {} }),
          testCase({ expect: { exit_code: 256, files_exist: ['ok/file', '/etc/passwd', '', 'a/../../b', 7] } }),
        ),
      ),
    ).toEqual([
      { path: 'autograding.test_cases[0].name', message: 'autograding.test_cases[0].name cannot be blank.' },
      { path: 'autograding.test_cases[0].command', message: 'autograding.test_cases[0].command cannot be blank.' },
      { path: 'autograding.test_cases[1].timeout_seconds', message: 'autograding.test_cases[1].timeout_seconds must be at most 600.' },
      { path: 'autograding.test_cases[1].expect', message: 'autograding.test_cases[1].expect must expect something.' },
      { path: 'autograding.test_cases[2].expect.exit_code', message: 'autograding.test_cases[2].expect.exit_code must be at most 255.' },
      ...[1, 2, 3, 4].map((index) => ({
        path: `autograding.test_cases[2].expect.files_exist[${index}]`,
        message: `autograding.test_cases[2].expect.files_exist[${index}] must be a relative path inside the submission.`,
      })),
      { path: 'autograding.test_cases[2].name', message: 'autograding.test_cases[2].name repeats the name of an earlier test case.' },
    ]);
  });

  it('fills in a test case’s defaults, and keeps the download order', () => {
    const document = accepted(
      validateGradeable(
        file({ autograding: { limits: { disk_mib: 64 }, test_cases: [{ command: 'make', name: 'build' }], image: 'cpp-17' } }),
        context,
      ),
    );
    expect(JSON.stringify(document.autograding)).toBe(
      JSON.stringify({
        image: 'cpp-17',
        test_cases: [
          {
            name: 'build',
            details: '',
            command: 'make',
            points_available: 0,
            is_extra_credit: false,
            is_hidden: false,
            timeout_seconds: 10,
            expect: { exit_code: 0 },
          },
        ],
        limits: { disk_mib: 64 },
      }),
    );
  });
});

describe('the gradeable JSON Schema', () => {
  /** The part of the JSON Schema at a path of keys. */
  const part = (...keys: (string | number)[]): unknown =>
    keys.reduce<unknown>((node, key) => (node as Record<string | number, unknown> | undefined)?.[key], gradeableJsonSchema);
  const electronic = (...keys: string[]) => part('oneOf', 0, 'properties', ...keys);
  const graded = (...keys: string[]) => part('oneOf', 1, 'properties', ...keys);
  const testCase = (...keys: string[]) => electronic('autograding', 'properties', 'test_cases', 'items', 'properties', ...keys);
  const keysOf = (schema: unknown) => Object.keys(schema as object);

  it('is one schema per kind of gradeable, without $schema (it sits in the OpenAPI document)', () => {
    expect(gradeableJsonSchema.$schema).toBeUndefined();
    expect(electronic('type')).toEqual({ type: 'string', const: 'Electronic File' });
    expect(graded('type')).toEqual({ type: 'string', enum: ['Checkpoints', 'Numeric'] });
    expect(keysOf(electronic()).filter((key) => !keysOf(graded()).includes(key))).toEqual([
      'bulk_upload',
      'team_gradeable',
      'ta_grading',
      'grade_inquiries',
      'grade_inquiry_per_component_allowed',
      'vcs',
      'submission_limits',
    ]);
    expect([part('oneOf', 0, 'required'), part('oneOf', 1, 'required')]).toEqual([
      ['title', 'id', 'type'],
      ['title', 'id', 'type'],
    ]);
  });

  it('states the limits validation applies, whole numbers as integers', () => {
    expect(electronic('id')).toMatchObject({ maxLength: 64, pattern: '^[A-Za-z0-9_-]{1,64}$' });
    expect(electronic('syllabus_bucket')).toMatchObject({ default: 'homework', enum: [...syllabusBuckets] });
    expect(electronic('rubric')).toMatchObject({ maxItems: 100, default: [] });
    expect(electronic('rubric', 'items', 'required')).toHaveLength(13);
    expect(electronic('autograding', 'properties', 'test_cases')).toMatchObject({ minItems: 1, maxItems: 100 });
    expect(testCase('name')).toEqual({ type: 'string', minLength: 1, maxLength: 200 });
    expect(testCase('timeout_seconds')).toEqual({ type: 'number', default: 10, exclusiveMinimum: 0, maximum: 600 });
    expect(testCase('expect', 'properties', 'exit_code')).toEqual({ type: 'integer', minimum: 0, maximum: 255 });
    expect(testCase('limits', 'properties')).toEqual(
      Object.fromEntries(
        Object.entries(LIMIT_SETTING_RANGES).map(([name, { min, max }]) => [name, { type: 'integer', minimum: min, maximum: max }]),
      ),
    );
    expect(electronic('autograding', 'properties', 'image', 'pattern')).toBe(IMAGE_NAME.source);
    expect(JSON.stringify(gradeableJsonSchema)).not.toContain('multipleOf');
  });

  it('describes dates by their form, with no default from the time it was made', () => {
    expect(keysOf(electronic('dates', 'properties'))).toEqual([
      ...electronicDates,
      'has_due_date',
      'has_release_date',
      'late_submission_allowed',
      'late_days',
    ]);
    for (const date of electronicDates) {
      expect(electronic('dates', 'properties', date)).toEqual({
        type: 'string',
        pattern: GRADEABLE_DATE_FORM.source,
        description: expect.any(String),
      });
    }
    expect(keysOf(graded('dates', 'properties'))).toEqual([
      'ta_view_start_date',
      'grade_start_date',
      'grade_due_date',
      'grade_released_date',
    ]);
  });
});
