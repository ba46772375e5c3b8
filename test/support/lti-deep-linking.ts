/**
 * The test platform's half of deep linking (Deep Linking 2.0): the settings claim of a
 * deep-linking launch, and the return endpoint, which verifies the tool's `LtiDeepLinkingResponse`
 * with jose against the tool's published key set (`iss` the client id, `aud` the issuer, the
 * launch's deployment and `data` echoed, content items) and keeps the resource links it creates
 * with their line items, as an LMS does, so that a later launch of such a link carries them.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export const DL = 'https://purl.imsglobal.org/spec/lti-dl/claim/';
const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';
export const RETURN_PATH = '/deep-links/return';

/** What a deep-linking launch offers (its settings claim). */
export interface DeepLinkingOffer {
  readonly acceptTypes?: readonly string[];
  readonly acceptMultiple?: boolean;
  /** The opaque value the tool must echo (undefined: a fresh one; null: none sent). */
  readonly data?: string | null;
  /** Where the response goes (default: the platform's return endpoint). */
  readonly returnUrl?: string;
}

/** A resource link the platform made from a tool's response, with its gradebook line item. */
export interface CreatedLink {
  readonly id: string;
  readonly contextId: string;
  readonly title: string;
  readonly url: string | undefined;
  readonly custom: Record<string, string>;
  readonly lineItem:
    { readonly id: string; readonly scoreMaximum: number; readonly label: string; readonly resourceId: string } | undefined;
}

/** What the return endpoint made of the last response it was posted. */
export type ReturnOutcome = { readonly accepted: readonly CreatedLink[] } | { readonly refused: string };

export interface DeepLinkingPlatform {
  /** The settings claim of a deep-linking launch in the context (its `data` remembered for the return). */
  settingsClaim(contextId: string, offer: DeepLinkingOffer): Record<string, unknown>;
  /** The claims a launch of a created link carries: its resource link, custom parameters and line item. */
  linkClaims(linkId: string): Record<string, unknown>;
  /** Answers the return endpoint. */
  handleReturn(req: IncomingMessage, res: ServerResponse): void;
  readonly links: readonly CreatedLink[];
  readonly outcomes: readonly ReturnOutcome[];
}

export function deepLinkingPlatform(options: {
  issuer: string;
  clientId: string;
  deploymentId: string;
  toolUrl: string;
}): DeepLinkingPlatform {
  const { issuer, clientId, deploymentId, toolUrl } = options;
  const toolKeys = createRemoteJWKSet(new URL(`${toolUrl}/lti/jwks`));
  /** Each launch's `data` (its key) and context; a response echoing none of them is refused. */
  const offers = new Map<string, { contextId: string; offer: DeepLinkingOffer }>();
  const links: CreatedLink[] = [];
  const outcomes: ReturnOutcome[] = [];

  const accept = async (jwt: string): Promise<CreatedLink[]> => {
    const { payload } = await jwtVerify(jwt, toolKeys, { issuer: clientId, audience: issuer, algorithms: ['RS256'], maxTokenAge: '10m' });
    const claim = (name: string) => (payload as Record<string, unknown>)[name];
    if (claim(`${LTI}message_type`) !== 'LtiDeepLinkingResponse') throw new Error('message_type is not LtiDeepLinkingResponse');
    if (claim(`${LTI}version`) !== '1.3.0') throw new Error('version is not 1.3.0');
    if (claim(`${LTI}deployment_id`) !== deploymentId) throw new Error('deployment_id is not echoed');
    if (typeof payload.nonce !== 'string' || payload.nonce === '') throw new Error('no nonce');
    const data = claim(`${DL}data`);
    const offered = typeof data === 'string' ? offers.get(data) : undefined;
    if (!offered) throw new Error('data is not the one a launch sent');
    offers.delete(data as string);
    const items = claim(`${DL}content_items`);
    if (!Array.isArray(items)) throw new Error('content_items is not a list');
    const accepted = offered.offer.acceptTypes ?? ['ltiResourceLink'];
    if (items.length > 1 && offered.offer.acceptMultiple === false) throw new Error('several items where one was accepted');
    return items.map((item: Record<string, unknown>) => {
      if (typeof item.type !== 'string' || !accepted.includes(item.type)) throw new Error(`an item of type ${String(item.type)}`);
      const lineItem = item.lineItem as Record<string, unknown> | undefined;
      if (lineItem && (typeof lineItem.scoreMaximum !== 'number' || !(lineItem.scoreMaximum >= 0)))
        throw new Error('a line item without scoreMaximum');
      const id = `link-${randomUUID().slice(0, 8)}`;
      return {
        id,
        contextId: offered.contextId,
        title: String(item.title ?? ''),
        url: typeof item.url === 'string' ? item.url : undefined,
        custom: (item.custom as Record<string, string> | undefined) ?? {},
        lineItem: lineItem
          ? {
              id: `${issuer}/courses/${offered.contextId}/lineitems/${id}`,
              scoreMaximum: lineItem.scoreMaximum as number,
              label: String(lineItem.label ?? item.title ?? ''),
              resourceId: String(lineItem.resourceId ?? ''),
            }
          : undefined,
      };
    });
  };

  return {
    settingsClaim: (contextId, offer) => {
      const data = offer.data === undefined ? `dl-${randomUUID()}` : offer.data;
      if (data !== null) offers.set(data, { contextId, offer });
      return {
        deep_link_return_url: offer.returnUrl ?? `${issuer}${RETURN_PATH}`,
        accept_types: [...(offer.acceptTypes ?? ['ltiResourceLink'])],
        accept_presentation_document_targets: ['iframe', 'window'],
        accept_multiple: offer.acceptMultiple ?? true,
        accept_lineitem: true,
        auto_create: true,
        ...(data === null ? {} : { data }),
      };
    },
    linkClaims: (linkId) => {
      const link = links.find((candidate) => candidate.id === linkId);
      if (!link) throw new Error(`the platform has no link ${linkId}`);
      return {
        [`${LTI}resource_link`]: { id: link.id, title: link.title },
        ...(Object.keys(link.custom).length > 0 ? { [`${LTI}custom`]: link.custom } : {}),
        ...(link.lineItem
          ? {
              'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint': {
                scope: ['https://purl.imsglobal.org/spec/lti-ags/scope/lineitem', 'https://purl.imsglobal.org/spec/lti-ags/scope/score'],
                lineitems: `${issuer}/courses/${link.contextId}/lineitems`,
                lineitem: link.lineItem.id,
              },
              'https://purl.imsglobal.org/spec/lti-ags/claim/lineitem': { ...link.lineItem },
            }
          : {}),
      };
    },
    handleReturn: (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const jwt = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('JWT') ?? '';
        accept(jwt).then(
          (created) => {
            links.push(...created);
            outcomes.push({ accepted: created });
            res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>Added ${created.length} item(s).</p>`);
          },
          (error: unknown) => {
            outcomes.push({ refused: error instanceof Error ? error.message : String(error) });
            res.writeHead(400, { 'content-type': 'text/plain' }).end(`The deep-linking response is refused: ${String(error)}`);
          },
        );
      });
    },
    links,
    outcomes,
  };
}

/** What a browser does with the tool's auto-post page: posts its form's fields to its action. Answers the form and the platform's answer. */
export async function postAutoPostPage(html: string): Promise<{ action: string; fields: Record<string, string>; answer: Response }> {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  if (!action) throw new Error(`the page has no form: ${html.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[name!] = unescape(value!);
  const target = unescape(action);
  // eslint-disable-next-line no-restricted-globals -- the platform is not the API
  const answer = await fetch(target, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
  return { action: target, fields, answer };
}

const unescape = (text: string): string => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
