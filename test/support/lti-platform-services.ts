/**
 * The LTI Advantage services of the test platform (test/support/lti-platform.ts): the scopes its
 * token endpoint grants, and the check of a service request's bearer token. The token endpoint is
 * oidc-provider's own client credentials grant, the tool authenticated with `private_key_jwt`
 * against the tool's published `/api/lti/jwks`; the provider checks the assertion's signature,
 * audience, expiry and that its `jti` is used once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Provider } from 'oidc-provider';

export const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';
export const AGS_SCOPES = {
  lineitem: 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem',
  lineitemReadonly: 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly',
  resultReadonly: 'https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly',
  score: 'https://purl.imsglobal.org/spec/lti-ags/scope/score',
} as const;
/** Every scope a tool may ask the platform's token endpoint for. */
export const SERVICE_SCOPES: readonly string[] = [NRPS_SCOPE, ...Object.values(AGS_SCOPES)];

/** The provider settings that make its token endpoint the platform's service token endpoint. */
export const serviceTokenSettings = (toolUrl: string) => ({
  client: {
    token_endpoint_auth_method: 'private_key_jwt',
    token_endpoint_auth_signing_alg: 'RS256',
    jwks_uri: `${toolUrl}/lti/jwks`,
    grant_types: ['implicit', 'client_credentials'],
    scope: ['openid', ...SERVICE_SCOPES].join(' '),
  },
  provider: {
    scopes: ['openid', ...SERVICE_SCOPES],
    // The provider refuses to fetch a client's jwks_uri on a loopback address (its guard against SSRF); the tool is on one here.
    fetch: (url: string | URL, options: RequestInit & { dispatcher?: unknown }) => {
      const { dispatcher: _, ...rest } = options;
      // eslint-disable-next-line no-restricted-globals -- the tool's key set, fetched by the platform
      return fetch(url, rest);
    },
  },
  clientCredentials: { enabled: true },
});

/**
 * Checks a service request's `Authorization: Bearer …` against the tokens the provider granted:
 * true when the token is known, unexpired and holds `scope` (or one of the scopes given, as a
 * read is allowed by the read-only scope or the full one); otherwise answers 401 (or 403 for a
 * missing scope) and is false.
 */
/** The bearer tokens each provider's services were shown, and those the platform has since revoked. */
const bearers = new WeakMap<Provider, { seen: Set<string>; revoked: Set<string> }>();
const bearersOf = (provider: Provider) => {
  let held = bearers.get(provider);
  if (!held) bearers.set(provider, (held = { seen: new Set(), revoked: new Set() }));
  return held;
};

/** Revokes every token the services were shown so far (as an LMS that lost or revoked its tokens): each is answered 401 from now on. */
export function revokeSeenTokens(provider: Provider): void {
  const held = bearersOf(provider);
  for (const token of held.seen) held.revoked.add(token);
}

export async function checkBearer(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  scope: string | readonly string[],
): Promise<boolean> {
  const [kind, value] = (req.headers.authorization ?? '').split(' ');
  const token = kind?.toLowerCase() === 'bearer' && value ? await provider.ClientCredentials.find(value) : undefined;
  if (value) bearersOf(provider).seen.add(value);
  if (!token || token.isExpired || (value !== undefined && bearersOf(provider).revoked.has(value))) {
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' });
    res.end(JSON.stringify({ error: 'invalid_token' }));
    return false;
  }
  const granted = (token.scope ?? '').split(' ');
  if (!(typeof scope === 'string' ? [scope] : scope).some((wanted) => granted.includes(wanted))) {
    res.writeHead(403, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="insufficient_scope"' });
    res.end(JSON.stringify({ error: 'insufficient_scope' }));
    return false;
  }
  return true;
}

/** A token request posted to the platform's token endpoint as given (for assertions the tests make themselves). */
export async function requestToken(
  issuer: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  // eslint-disable-next-line no-restricted-globals -- the platform, not the API
  const answer = await fetch(`${issuer}/token`, { method: 'POST', body: new URLSearchParams(form) });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/** A member of an LMS course, as the platform's roster lists them (NRPS 2.0 §2.2). */
export interface PlatformMember {
  readonly user_id: string;
  readonly roles: readonly string[];
  readonly status?: 'Active' | 'Inactive' | 'Deleted';
  readonly name?: string;
  readonly given_name?: string;
  readonly family_name?: string;
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly lis_person_sourcedid?: string;
}

export const MEMBERSHIP_CONTAINER_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';

/**
 * The platform's Names and Role Provisioning Service: each LMS course's members (the test sets
 * them) at `/courses/{context}/memberships`, the bearer token checked for the NRPS scope, paged
 * by `limit` (else `pageSize`) with `Link: <…>; rel="next"`. A test may point the next links to
 * another origin, or make the service answer an error.
 */
export class RosterService {
  private readonly members = new Map<string, PlatformMember[]>();
  /** Members a page holds when the request names no `limit`. */
  pageSize = 100;
  /** Where the next links point instead of the platform (another origin). */
  nextOrigin: string | undefined;
  /** Every page request answers this instead (a status, and its headers). */
  failure: { status: number; headers?: Record<string, string> } | undefined;
  /** Page requests answered with members. */
  pagesServed = 0;

  setMembers(contextId: string, members: readonly PlatformMember[]): void {
    this.members.set(contextId, [...members]);
  }

  /** Answers a request of `/courses/{context}/memberships`; false for any other path. */
  serve(provider: Provider, issuer: string, req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', issuer);
    const contextId = /^\/courses\/([^/]+)\/memberships$/.exec(url.pathname)?.[1];
    if (contextId === undefined || req.method !== 'GET') return false;
    void this.answer(provider, issuer, decodeURIComponent(contextId), url, req, res).catch((error: unknown) =>
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
    );
    return true;
  }

  private async answer(provider: Provider, issuer: string, contextId: string, url: URL, req: IncomingMessage, res: ServerResponse) {
    if (!(await checkBearer(provider, req, res, NRPS_SCOPE))) return;
    if (this.failure) {
      res.writeHead(this.failure.status, { 'content-type': 'application/json', ...this.failure.headers });
      res.end(JSON.stringify({ error: 'unavailable' }));
      return;
    }
    const all = this.members.get(contextId) ?? [];
    const limit = Number(url.searchParams.get('limit') ?? this.pageSize);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const page = all.slice(offset, offset + limit);
    const headers: Record<string, string> = { 'content-type': MEMBERSHIP_CONTAINER_TYPE };
    if (offset + limit < all.length) {
      const next = new URL(`/courses/${encodeURIComponent(contextId)}/memberships`, this.nextOrigin ?? issuer);
      next.searchParams.set('limit', String(limit));
      next.searchParams.set('offset', String(offset + limit));
      headers.link = `<${next.href}>; rel="next"`;
    }
    this.pagesServed++;
    res.writeHead(200, headers);
    res.end(
      JSON.stringify({
        id: url.href,
        context: { id: contextId, label: 'CS 101', title: 'Intro' },
        members: page.map((member) => ({ status: 'Active', ...member })),
      }),
    );
  }
}
