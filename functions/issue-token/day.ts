/** The deployed day's steps of `issue-token` (test/deployed/day.ts says how the day runs them). */
import { expect } from 'vitest';
import { call, identityProvider, login, personas, tokens, type RouteDay, type PersonaName } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'logs everyone in with their passwords',
    phase: 'signed in',
    run: async () => {
      for (const persona of Object.keys(personas) as PersonaName[]) await login(persona);
      expect(Object.keys(tokens).sort(), 'logins that issued a token').toEqual(Object.keys(personas).sort());
    },
  },
  {
    title: "the student signs in through the institution's identity provider (the device flow) instead: a new token",
    phase: 'signed in through the identity provider',
    run: async () => {
      identityProvider.addAccount({ sub: 'student', preferred_username: 'student' });
      const signedIn = await call('POST', '/api/token', { form: { id_token: await identityProvider.deviceFlow('student') } });
      if (typeof signedIn.json?.data?.token === 'string') tokens.student = signedIn.json.data.token;
    },
  },
];
