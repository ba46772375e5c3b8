/** What `create-term` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import {
  badTermDates,
  badTermId,
  blankTermName,
  reservedTermId,
  termEndsBeforeStart,
  termExistsAlready,
  termFieldsMissing,
} from '#shared/courses/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

const { Term } = components;

export const contract: RouteContract = {
  tag: 'Courses',
  data: Term,
  fails: [
    fail(termFieldsMissing),
    fail(badTermId),
    fail(reservedTermId),
    fail(blankTermName),
    fail(badTermDates),
    fail(termEndsBeforeStart),
    fail(termExistsAlready),
  ],
};
