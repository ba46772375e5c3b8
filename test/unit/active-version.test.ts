import { describe, expect, it } from 'vitest';
import { AFTER_CHOICE_CANCELLED, afterChoiceCancelled, choiceAnswer } from '#shared/submissions/active-version.ts';

// Choosing the active version: what a cancelled choice does next, and its answer.

describe('afterChoiceCancelled', () => {
  it('reads the submission again when it changed, and the team again when its members changed', () => {
    expect(afterChoiceCancelled([{ name: 'active', index: 0 }])).toEqual(new Set(['read again']));
    expect(afterChoiceCancelled([{ name: 'copies', index: 2 }])).toEqual(new Set(['read the team again']));
    expect(
      afterChoiceCancelled([
        { name: 'copies', index: 0 },
        { name: 'active', index: 0 },
        { name: 'copies', index: 1 },
      ]),
    ).toEqual(new Set(['read again', 'read the team again']));
  });

  it('has a next step for every item of the transaction', () => {
    expect(Object.keys(AFTER_CHOICE_CANCELLED).sort()).toEqual(['active', 'copies', 'passback']);
  });
});

describe('choiceAnswer', () => {
  it('says which version is active now, and for whom when staff chose it', () => {
    expect(choiceAnswer('Homework 1', 2, 3, undefined)).toEqual({
      active_version: 2,
      highest_version: 3,
      message: 'Updated the active version of Homework 1 to version 2.',
    });
    expect(choiceAnswer('Homework 1', 1, 3, 'student').message).toBe('Updated the active version of Homework 1 to version 1 for student.');
  });

  it('says the submission is cancelled when the version chosen is 0', () => {
    expect(choiceAnswer('Homework 1', 0, 3, undefined).message).toBe('Cancelled the submission of Homework 1.');
    expect(choiceAnswer('Homework 1', 0, 3, 'student').message).toBe('Cancelled the submission of Homework 1 for student.');
  });
});
