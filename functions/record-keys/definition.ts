import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'record-keys',
  method: 'GET',
  path: '/api/records/jwks',
  access: 'public',
  summary:
    'The public keys grading records are signed with, as a JSON Web Key Set (served as is, not in an envelope; cacheable for 5 minutes): a record verifies offline against it.',
  recordKeys: 'publish',
});
