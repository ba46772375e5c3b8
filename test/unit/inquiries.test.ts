import { describe, expect, it } from 'vitest';
import { Refusal } from '#shared/errors.ts';
import { actingRole, checkInquiryWindow, checkStatusChange, inquirySubject, postContent } from '#shared/inquiries/rules.ts';

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
  return 'none';
};

const now = new Date('2026-12-10T12:00:00.000Z');
const gradeable = (dates: Record<string, string>, fields: Record<string, unknown> = {}) =>
  ({ type: 'Electronic File', grade_inquiries: true, dates, ...fields }) as Parameters<typeof checkInquiryWindow>[0];
const window = {
  grade_released_date: '2026-12-09T00:00:00.000Z',
  grade_inquiry_start_date: '2026-12-09T00:00:00.000Z',
  grade_inquiry_due_date: '2026-12-11T00:00:00.000Z',
};

describe('the inquiry window', () => {
  it('is open from the inquiry start to its due date, once grades are released, on gradeables that take inquiries', () => {
    expect(refusal(() => checkInquiryWindow(gradeable(window), 'UTC', now))).toBe('none');
    expect(refusal(() => checkInquiryWindow(gradeable(window, { grade_inquiries: false }), 'UTC', now))).toMatch(
      /takes no grade inquiries/,
    );
    expect(
      refusal(() => checkInquiryWindow(gradeable({ ...window, grade_released_date: '2026-12-11T00:00:00.000Z' }), 'UTC', now)),
    ).toMatch(/not released yet/);
    expect(
      refusal(() => checkInquiryWindow(gradeable({ ...window, grade_inquiry_start_date: '2026-12-10T13:00:00.000Z' }), 'UTC', now)),
    ).toBe('Grade inquiries on this gradeable open at 2026-12-10 13:00:00.');
    expect(
      refusal(() => checkInquiryWindow(gradeable({ ...window, grade_inquiry_due_date: '2026-12-10T11:00:00.000Z' }), 'UTC', now)),
    ).toBe('Grade inquiries on this gradeable closed at 2026-12-10 11:00:00.');
  });
});

describe('what an inquiry is about', () => {
  const rubric = [{}, {}] as never;
  it('is a component when the gradeable takes them per component, else the whole grade', () => {
    expect(inquirySubject({ rubric, grade_inquiry_per_component_allowed: true }, 1)).toBe(1);
    expect(refusal(() => inquirySubject({ rubric, grade_inquiry_per_component_allowed: true }, undefined))).toMatch(
      /component_id is required/,
    );
    expect(refusal(() => inquirySubject({ rubric, grade_inquiry_per_component_allowed: true }, 2))).toBe(
      'This gradeable has no rubric component 2.',
    );
    expect(inquirySubject({ rubric }, undefined)).toBeNull();
    expect(refusal(() => inquirySubject({ rubric }, 0))).toMatch(/about the whole grade/);
  });
});

describe('who acts on an inquiry', () => {
  const inquiry = { ownerId: 'team1', section: '2' };
  it('is its student or team member, staff, limited access graders of its section only', () => {
    expect(actingRole(inquiry, { userId: 'amy', group: 4, gradingSections: [] }, { teamId: 'team1' })).toBe('student');
    expect(actingRole(inquiry, { userId: 'amy', group: 4, gradingSections: [] }, { teamId: 'team2' })).toBeUndefined();
    expect(actingRole({ ownerId: 'amy', section: '2' }, { userId: 'amy', group: 4, gradingSections: [] }, undefined)).toBe('student');
    expect(actingRole(inquiry, { userId: 'ta', group: 2, gradingSections: [] }, undefined)).toBe('staff');
    expect(actingRole(inquiry, { userId: 'm', group: 3, gradingSections: ['2'] }, undefined)).toBe('staff');
    expect(refusal(() => actingRole(inquiry, { userId: 'm', group: 3, gradingSections: ['1'] }, undefined))).toBe(
      'You do not grade section 2.',
    );
  });
  it('resolves as staff only, and changes a status to another', () => {
    expect(refusal(() => checkStatusChange('open', 'resolved', 'student'))).toBe('Only graders resolve a grade inquiry.');
    expect(refusal(() => checkStatusChange('resolved', 'open', 'student'))).toBe('none');
    expect(refusal(() => checkStatusChange('open', 'open', 'staff'))).toBe('The grade inquiry is open already.');
  });
  it('keeps text with line breaks and refuses other control characters', () => {
    expect(postContent('Line one\n\tLine two\r\n')).toBe('Line one\n\tLine two\r\n');
    expect(refusal(() => postContent('a\u0000b'))).toMatch(/no control characters/);
    expect(refusal(() => postContent('a\u009bb'))).toMatch(/no control characters/);
  });
});
