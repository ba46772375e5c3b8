import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { gradeableList, text, textFiles, wholeNumber } from '#shared/http/fields.ts';
import { KEPT_PAIRS, MAX_COMPARE_WITH, MAX_STARTER_CHARACTERS, MAX_STARTER_FILES } from '#shared/similarity/limits.ts';

export const definition = route({
  name: 'create-similarity-run',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/similarity',
  access: 'course:instructor',
  successStatus: 202,
  summary: `Compare the active versions of a gradeable's submissions for code copied between them (a similarity report): the run is a job on the summaries queue, never work in the request, answered at once (202 with Prefer: http-status) as a run object, status queued, that GET …/similarity/{run_id} reads again, with the ${KEPT_PAIRS} most similar pairs once done. A version submitted from a repository is compared at the commit recorded on it; one that cannot be read is skipped, saying why.`,
  data: {
    // The gradeable, and those compare_with names, with the caller's enrollments there and their terms.
    gradeables: ['BatchGetItem'],
    enrollments: ['BatchGetItem'],
    terms: ['BatchGetItem'],
    // The run, written queued; failed at once if it cannot be queued.
    summaries: ['PutItem', 'UpdateItem'],
  },
  summariesQueue: 'send',
  input: () => ({
    body: {
      language: z.optional(
        text(32, {
          description:
            "The files' language: `python`, `java`, `c`, `cpp`, `javascript` or `text`; left out: each file's extension's (text when none fits).",
        }),
      ),
      starter_code: z.optional(
        textFiles({
          description: `Files every student was given (at most ${MAX_STARTER_FILES}, ${MAX_STARTER_CHARACTERS} characters in all): code matching them counts for no pair.`,
          maxItems: MAX_STARTER_FILES,
          maxCharacters: MAX_STARTER_CHARACTERS,
        }),
      ),
      compare_with: z.optional(
        gradeableList({
          description: `Gradeables (at most ${MAX_COMPARE_WITH}) of this or earlier terms, of courses you are an instructor of, whose submissions are compared with this gradeable's (never with each other): a copy of an earlier solution is found. Their stored fingerprints are read, not their files parsed again.`,
          maxItems: MAX_COMPARE_WITH,
        }),
      ),
      min_match_tokens: z.optional(
        wholeNumber({
          description:
            'Keep only pairs sharing a run of at least this many tokens (about 10 a line of code); left out: every pair sharing a fingerprint (a run of 39 tokens is always found).',
          mustBe: 'a whole number from 0 to 100000',
          max: 100_000,
        }),
      ),
    },
  }),
});
