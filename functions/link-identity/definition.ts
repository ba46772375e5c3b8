import { route } from '#shared/http/routes.ts';
import { required, text } from '#shared/http/fields.ts';
import { subjectMissing } from '#shared/auth/failures.ts';
import { SIGN_IN_SETTINGS } from '#shared/config.ts';

export const definition = route({
  name: 'link-identity',
  method: 'PUT',
  path: '/api/users/{user_id}/identity',
  access: 'superuser',
  summary:
    "Link a user account to its owner's identity at the identity provider (their `sub`): only that identity signs in to it afterwards. For an owner refused as linked to another identity, after their user name there was renamed or reused.",
  // Links to the identity provider the sign-in settings name.
  settings: SIGN_IN_SETTINGS,
  data: { users: ['GetItem', 'UpdateItem'], audit: ['PutItem'] },
  input: () => ({
    body: {
      subject: required(
        text(255, { description: "The identity provider's `sub` for the account's owner, as the refused sign-in named it." }),
        subjectMissing,
        { blankIsMissing: true },
      ),
    },
  }),
});
