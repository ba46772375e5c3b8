import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('token-info', {
  handle: ({ caller: { token } }) => ({
    user_id: token.userId,
    issued_at: token.issuedAt.toISOString(),
    expires_at: token.expiresAt?.toISOString() ?? null,
  }),
});
