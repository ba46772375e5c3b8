import { endpoint } from '#shared/http/endpoint.ts';
import { wholeOrPaged } from '#shared/http/paging.ts';
import { allAccounts } from '#shared/users/accounts.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: async ({ query, url }) =>
    wholeOrPaged({ url, query }, await allAccounts(), {
      list: 'users list',
      keys: 1,
      position: (user) => [user.user_id],
      compare: (user, [after = '']) => user.user_id.localeCompare(after),
    }),
});
