/** The part of oidc-provider (which ships no types) that test/support/oidc-provider.ts, lti-platform.ts and lti-platform-services.ts use. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId?: string };
    grantId?: string;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  /** A token of the client credentials grant (lti-platform-services.ts checks a service's bearer token with it). */
  export interface ClientCredentialsToken {
    clientId?: string;
    scope?: string;
    readonly isExpired: boolean;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Grant: { new (properties: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    ClientCredentials: { find(value: string): Promise<ClientCredentialsToken | undefined> };
    on(event: string, listener: (...args: unknown[]) => void): this;
    /** Clients and their metadata's schema, whose `invalidate` refuses client metadata (lti-platform.ts lets an http loopback redirect URI pass; lti-registration-platform.ts reads what a registration stored). */
    Client: {
      Schema: { prototype: { invalidate(message: string, code?: string): void } };
      find(id: string): Promise<{ metadata(): Record<string, unknown> } | undefined>;
    };
  }
  export default Provider;
}
