import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ caller: { token } }) => ({
    user_id: token.userId,
    issued_at: token.issuedAt.toISOString(),
    expires_at: token.expiresAt?.toISOString() ?? null,
    method: token.method ?? 'password',
    ...(token.launch
      ? {
          launch: {
            registration_id: token.launch.registrationId,
            semester: token.launch.semester,
            course: token.launch.course,
            gradeable_id: token.launch.gradeableId,
            roles: [...token.launch.roles],
            message_type: token.launch.messageType,
          },
        }
      : {}),
  }),
});
