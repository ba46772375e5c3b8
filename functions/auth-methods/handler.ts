import { signInMethods } from '#shared/auth/sign-in-methods.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, { handle: () => signInMethods() });
