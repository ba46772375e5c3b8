import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { downloadForm, isVisible, sectionOf } from '#shared/gradeables/listing.ts';
import { repositoryUrl } from '#shared/gradeables/repository.ts';
import { fromLocalTime, parseGradeableDate, toLocalTime } from '#shared/gradeables/time-zone.ts';
import { validateGradeable } from '#shared/gradeables/validate.ts';

const now = new Date('2026-11-23T12:00:00Z');

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

  it('accepts ISO 8601 with an explicit offset', () => {
    expect(parseGradeableDate('2026-11-23T10:00:00+01:00', 'America/New_York')).toBe('2026-11-23T09:00:00.000Z');
    expect(parseGradeableDate('2026-11-23T10:00:00', 'UTC')).toBeUndefined();
  });
});

const electronic = (dates: Record<string, string>, extra: Partial<GradeableDocument> = {}): GradeableDocument => {
  const result = validateGradeable({ id: 'g', title: 'G', type: 'Electronic File', dates, ...extra }, { timeZone: 'UTC', now });
  if (!result.document) throw new Error(JSON.stringify(result.errors));
  return result.document;
};
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

  it('puts submitty-hosted repositories under VCS_BASE_URL', () => {
    expect(repositoryUrl({ repository_type: 'submitty-hosted', vcs_path: 'ignored', vcs_subdirectory: '' }, owner)).toBe(
      'https://git.example.edu/f26/cs1/hw1/amy',
    );
  });
});

describe('gradeable documents', () => {
  it('the README example is a valid gradeable', async () => {
    const readme = await readFile('README.md', 'utf8');
    const block = /```json\n(\{\n  "id": "hw_vcs"[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const result = validateGradeable(JSON.parse(block!), { timeZone: 'America/New_York', now });
    expect(result.errors).toEqual([]);
    expect(result.document!.autograding!.test_cases.map((test) => test.points_available)).toEqual([2, 3, 1, 4]);
  });

  it('the README’s C++, Java and Python autograding examples are valid, image names included', async () => {
    const readme = await readFile('README.md', 'utf8');
    const blocks = [...readme.matchAll(/```json\n(\{ "autograding": [\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!));
    expect(blocks).toHaveLength(3);
    const base = JSON.parse(/```json\n(\{\n  "id": "hw_vcs"[\s\S]*?)```/.exec(readme)![1]!);
    for (const block of blocks) {
      const result = validateGradeable({ ...base, ...block }, { timeZone: 'UTC', now });
      expect(result.errors).toEqual([]);
      expect(result.document!.autograding!.image).toBe(block.autograding.image);
    }
  });

  it('takes an image name, and refuses anything else', () => {
    const document = (image: unknown) => ({
      ...downloadForm(electronic({ submission_open_date: day(0), submission_due_date: day(5) }), 'UTC'),
      autograding: { image, test_cases: [{ name: 't', command: 'true' }] },
    });
    expect(validateGradeable(document('cpp-17'), { timeZone: 'UTC', now }).document!.autograding!.image).toBe('cpp-17');
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
