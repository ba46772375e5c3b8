import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { flag } from '#shared/http/fields.ts';

export const definition = route({
  name: 'lti-roster-sync',
  method: 'POST',
  path: '/api/{semester}/{course}/lti/roster-sync',
  access: 'course:instructor',
  summary:
    "Sync the roster from the LMS (the Names and Role Provisioning Service of each linked LMS course): newcomers enrolled with the role the LMS gives (students in the link's section), students the LMS no longer lists as active dropped, staff never; sections set here kept. Answers as the class-list import does; dry_run writes nothing. The nightly schedule syncs every linked course.",
  // The course's links and their registrations, the LMS people's bindings; then the class-list import: the accounts and the
  // roster read in bulk, each member's change written with its audit entry. The nightly run lists the linked courses (Scan)
  // and reads each course.
  data: {
    lti: ['Query', 'GetItem', 'BatchGetItem', 'Scan'],
    users: ['BatchGetItem', 'PutItem'],
    credentials: ['PutItem'],
    enrollments: ['Query', 'PutItem', 'ConditionCheckItem', 'UpdateItem'],
    accessGroups: ['PutItem', 'DeleteItem'],
    terms: ['BatchGetItem'],
    courses: ['BatchGetItem'],
    audit: ['PutItem'],
  },
  // The service token's assertion is signed with the tool's key.
  ltiKey: 'read',
  settings: ['LTI_ALLOWED_HOSTS'],
  input: () => ({
    body: {
      dry_run: z.optional(flag({ description: 'Report what the sync would change; write nothing.' })),
    },
  }),
});
