/**
 * An LMS's side of LTI Dynamic Registration: a real OpenID provider (the `oidc-provider` package)
 * on loopback with dynamic client registration behind an initial access token (the registration
 * token an LMS hands the tool), accepting the LTI tool configuration as client metadata and
 * answering it with a deployment id, as Moodle and Canvas do. The tests read back what it stored
 * of the tool's client, and count the clients it registered.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { Provider } from 'oidc-provider';

export const TOOL_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-tool-configuration';
const LTI_SCOPES = [
  'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem',
  'https://purl.imsglobal.org/spec/lti-ags/scope/score',
  'https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly',
  'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
];

export interface RegistrationPlatform {
  /** `http://127.0.0.1:<port>`: the issuer, and the origin of every endpoint. */
  readonly issuer: string;
  /** `host:port` names the platform is reached by (for LTI_ALLOWED_HOSTS): on 127.0.0.1 and on localhost. */
  readonly hosts: readonly string[];
  readonly configurationUrl: string;
  /** The registration token the platform accepts. */
  readonly registrationToken: string;
  /** The deployment id it answers each registration with. */
  readonly deploymentId: string;
  /** How many clients it registered. */
  registered(): number;
  /** A client as the platform stored it (its metadata), or undefined. */
  client(clientId: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

export async function startRegistrationPlatform(): Promise<RegistrationPlatform> {
  const registrationToken = randomBytes(24).toString('base64url');
  const deploymentId = `deployment-${randomBytes(4).toString('hex')}`;
  let registered = 0;
  // The provider needs the server's port for its issuer, so it handles requests once it is made.
  const served: { handle?: ReturnType<Provider['callback']> } = {};
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/reg') res.on('finish', () => res.statusCode === 201 && registered++);
    served.handle?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'platform-key', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    scopes: ['openid', ...LTI_SCOPES],
    responseTypes: ['id_token', 'code'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: { enabled: true, initialAccessToken: registrationToken },
    },
    extraClientMetadata: {
      properties: [TOOL_CONFIGURATION],
      validator: (_ctx: unknown, key: string, value: unknown, metadata: Record<string, unknown>) => {
        if (key !== TOOL_CONFIGURATION) return;
        const configuration = value as { domain?: unknown; target_link_uri?: unknown; messages?: unknown } | undefined;
        if (
          typeof configuration?.domain !== 'string' ||
          typeof configuration.target_link_uri !== 'string' ||
          !Array.isArray(configuration.messages)
        )
          throw new Error('the LTI tool configuration needs domain, target_link_uri and messages');
        metadata[key] = { ...configuration, deployment_id: deploymentId };
      },
    },
  });
  // The tool's launch URL is on loopback in tests: the provider's rules for a web client's
  // implicit flow (https only, never localhost) are the platform's, not what is tested here.
  const schema = provider.Client.Schema.prototype as { invalidate(message: string, code?: string): void };
  const invalidate = schema.invalidate;
  schema.invalidate = function (message, code) {
    if (code === 'implicit-force-https' || code === 'implicit-forbid-localhost') return;
    invalidate.call(this, message, code);
  };
  served.handle = provider.callback();
  return {
    issuer,
    hosts: [`127.0.0.1:${port}`, `localhost:${port}`],
    configurationUrl: `${issuer}/.well-known/openid-configuration`,
    registrationToken,
    deploymentId,
    registered: () => registered,
    client: async (clientId) => (await provider.Client.find(clientId))?.metadata(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
