import { endpoint } from '#shared/http/endpoint.ts';
import { gradebookExportNotFound } from '#shared/gradebook/failures.ts';
import { gradebookExportReads, gradebookExportStatus } from '#shared/gradebook/exports.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => gradebookExportReads(params),
  malformed: { export_id: (exportId) => gradebookExportNotFound({ export_id: exportId }) },
  handle: ({ caller, params, items }) => gradebookExportStatus(params.export_id, caller, items.record),
});
