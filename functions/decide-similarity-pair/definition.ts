import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { required, text, wholeNumber } from '#shared/http/fields.ts';
import { decisionMissing, pairRevisionMissing } from '#shared/similarity/failures.ts';

export const definition = route({
  name: 'decide-similarity-pair',
  method: 'PATCH',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/similarity/{run_id}/pairs/{pair_id}',
  access: 'course:instructor',
  summary:
    "Record a reviewer's decision on a pair of a similarity run: dismissed or confirmed, with a note, who and when, in the course's audit trail; refused (409) unless the pair is still at the revision sent, so a decision made meanwhile is never undone. Nothing is penalised automatically. Answers the pair.",
  data: {
    summaries: ['BatchGetItem', 'UpdateItem'],
    audit: ['PutItem'],
  },
  input: () => ({
    body: {
      decision: required(text(32, { description: '`dismissed` or `confirmed`.' }), decisionMissing, { blankIsMissing: true }),
      note: z.optional(text(2000, { description: 'Why, for whoever reads the decision later.' })),
      revision: required(
        wholeNumber({ description: "The pair's revision as read (0 before any decision).", mustBe: 'a whole number from 0' }),
        pairRevisionMissing,
      ),
    },
  }),
});
