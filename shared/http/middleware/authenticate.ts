import type { MiddlewareObj } from '@middy/core';
import { tokenFromAuthorization } from '#shared/auth/authorization-header.ts';
import { verifyToken } from '#shared/auth/jwt.ts';
import { getItems, type ItemRefs } from '#shared/data/items.ts';
import { sessionRef } from '#shared/data/sessions.ts';
import { userRef } from '#shared/data/users.ts';
import { isFaculty, isSuperuser, type User } from '#shared/users/user.ts';
import { forbidden, unauthenticated } from '../failures.ts';
import type { Access } from '../routes.ts';
import type { ApiContext, ApiEvent, ApiResult } from '../types.ts';

/** What a handler may use to name the items it needs before anything is read. */
export interface ReadScope {
  readonly userId: string;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | undefined>>;
}

export type ReadDeclaration = (scope: ReadScope) => ItemRefs;

const SESSION = '#session';
const CALLER = '#caller';

const allowedBy: Record<Access, (user: User) => boolean> = {
  public: () => true,
  'token-optional': () => true,
  user: () => true,
  faculty: isFaculty,
  superuser: isSuperuser,
};

/**
 * The token check, folded into the handler's own reads: after the JWT is verified locally, the
 * user's session item, the caller's profile and every item the handler declared are fetched in
 * one BatchGetItem, so an authenticated read costs one DynamoDB round trip.
 */
export const authenticate = (
  access: Access,
  reads: ReadDeclaration | undefined,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async ({ event, context }) => {
    context.items = {};
    if (access === 'public') return;
    const header = event.headers?.authorization;
    if (access === 'token-optional' && !header) return;

    const token = tokenFromAuthorization(header);
    const claims = token ? await verifyToken(token) : undefined;
    if (!claims) throw unauthenticated();

    const declared = reads?.({
      userId: claims.userId,
      params: event.pathParameters ?? {},
      query: event.queryStringParameters ?? {},
    });
    const {
      [SESSION]: session,
      [CALLER]: user,
      ...items
    } = await getItems({ ...declared, [SESSION]: sessionRef(claims.userId), [CALLER]: userRef(claims.userId) });
    if (!session || session.tokenId !== claims.tokenId || !user) throw unauthenticated();
    if (!allowedBy[access](user)) throw forbidden();

    context.caller = { ...user, token: claims };
    context.items = items;
  },
});
