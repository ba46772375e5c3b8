import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { list, required, text } from '#shared/http/fields.ts';
import { MAX_EXPORT_GRADEABLES } from '#shared/gradebook/export-limits.ts';
import { formatMissing } from '#shared/gradebook/failures.ts';

export const definition = route({
  name: 'create-gradebook-export',
  method: 'POST',
  path: '/api/{semester}/{course}/gradebook/exports',
  access: 'course:staff',
  summary:
    "Export the course's gradebook as CSV: the export is written on the summaries queue, never in the request, and answered at once as an export object (status queued) that GET …/gradebook/exports/{export_id} reads again, with a download link once done. A limited access grader's export covers their sections only.",
  data: {
    gradeables: ['Query'],
    // The export, written queued; failed at once if it cannot be queued.
    summaries: ['PutItem', 'UpdateItem'],
  },
  summariesQueue: 'send',
  input: () => ({
    body: {
      format: required(text(64, { description: 'The file format: `csv` (the only one).' }), formatMissing, { blankIsMissing: true }),
      gradeable_ids: z.optional(
        list({
          description: `The gradeables to export, in their columns' order (at most ${MAX_EXPORT_GRADEABLES}); left out: every gradeable released to staff, in the course's order.`,
          items: 'gradeable ids',
          maxItems: MAX_EXPORT_GRADEABLES,
        }),
      ),
    },
  }),
});
