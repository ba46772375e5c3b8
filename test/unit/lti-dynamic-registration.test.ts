import { describe, expect, it } from 'vitest';
import { Refusal } from '#shared/errors.ts';
import { clientRegistration, readPlatformConfiguration, registeredClient, TOOL_CONFIGURATION } from '#shared/lti/dynamic-registration.ts';
import { TOOL_SCOPES } from '#shared/lti/tool-config.ts';
import { refusalMessage } from '../support/refusals.ts';

const at = new URL('https://canvas.instructure.com/api/lti/security/openid-configuration?registration_token=x');
/** Canvas's configuration, trimmed to what the tool reads. */
const canvas = {
  issuer: 'https://canvas.instructure.com',
  authorization_endpoint: 'https://sso.canvaslms.com/api/lti/authorize_redirect',
  token_endpoint: 'https://sso.canvaslms.com/login/oauth2/token',
  jwks_uri: 'https://sso.canvaslms.com/api/lti/security/jwks',
  registration_endpoint: 'https://canvas.instructure.com/api/lti/registrations',
  id_token_signing_alg_values_supported: ['RS256'],
  'https://purl.imsglobal.org/spec/lti-platform-configuration': { product_family_code: 'canvas', version: 'OpenSource' },
};

describe("a platform's OpenID configuration", () => {
  it('gives its issuer and four endpoints, which may be on other hosts than the issuer', () => {
    const read = readPlatformConfiguration(at, canvas, []);
    expect(read.issuer).toBe('https://canvas.instructure.com');
    expect(read.authorizationEndpoint.href).toBe(canvas.authorization_endpoint);
    expect(read.tokenEndpoint.href).toBe(canvas.token_endpoint);
    expect(read.jwksUri.href).toBe(canvas.jwks_uri);
    expect(read.registrationEndpoint.href).toBe(canvas.registration_endpoint);
  });

  it("is refused when its issuer is not on its URL's origin, so a platform cannot register as another", () => {
    expect(refusalMessage(() => readPlatformConfiguration(new URL('https://evil.example.edu/openid-configuration'), canvas, []))).toBe(
      "The platform's issuer https://canvas.instructure.com is not on the origin of its configuration's URL (https://evil.example.edu).",
    );
    // The port is part of the origin.
    expect(() => readPlatformConfiguration(new URL('https://canvas.instructure.com:8443/c'), canvas, [])).toThrow(Refusal);
  });

  it('is refused, naming what is wrong, when it is not a configuration the tool can use', () => {
    const problem = (document: unknown) => refusalMessage(() => readPlatformConfiguration(at, document, []));
    expect(problem([])).toBe("The platform's configuration is not one this tool can register with: it is not a JSON object.");
    expect(problem({ ...canvas, issuer: undefined })).toBe(
      "The platform's configuration is not one this tool can register with: it names no issuer.",
    );
    expect(problem({ ...canvas, id_token_signing_alg_values_supported: ['HS256'] })).toBe(
      "The platform's configuration is not one this tool can register with: it does not sign ID tokens with RS256 (id_token_signing_alg_values_supported).",
    );
    for (const endpoint of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'registration_endpoint']) {
      expect(problem({ ...canvas, [endpoint]: undefined })).toBe(
        `The platform's configuration is not one this tool can register with: it names no ${endpoint}.`,
      );
    }
    expect(problem({ ...canvas, jwks_uri: 'http://sso.canvaslms.com/jwks' })).toBe(
      'The jwks_uri must be an absolute https:// URL without a user name, password or fragment.',
    );
    expect(problem({ ...canvas, issuer: 'https://canvas.instructure.com?x=1' })).toBe(
      'The issuer must be an absolute https:// URL without a user name, password or fragment.',
    );
  });
});

describe("the tool's client registration", () => {
  it('asks for ID-token launches to the launch URL, logins at the login URL, its keys, and the grade and roster services', () => {
    const asked = clientRegistration('https://api.example.edu', 'Our Moodle');
    expect(asked).toEqual({
      application_type: 'web',
      response_types: ['id_token'],
      grant_types: ['implicit', 'client_credentials'],
      initiate_login_uri: 'https://api.example.edu/api/lti/login',
      redirect_uris: ['https://api.example.edu/api/lti/launch'],
      client_name: 'Our Moodle',
      jwks_uri: 'https://api.example.edu/api/lti/jwks',
      token_endpoint_auth_method: 'private_key_jwt',
      scope: TOOL_SCOPES.join(' '),
      [TOOL_CONFIGURATION]: {
        domain: 'api.example.edu',
        target_link_uri: 'https://api.example.edu/api/lti/launch',
        custom_parameters: { user_username: '$User.username' },
        claims: ['iss', 'sub', 'name', 'given_name', 'family_name', 'email'],
        messages: [
          { type: 'LtiResourceLinkRequest' },
          { type: 'LtiDeepLinkingRequest', target_link_uri: 'https://api.example.edu/api/lti/launch' },
        ],
      },
    });
    expect(TOOL_SCOPES).toContain('https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly');
    expect(clientRegistration('https://api.example.edu', null).client_name).toBe('Course Submission API');
  });

  it('is answered with a client id and, when the platform made one, a deployment id', () => {
    expect(registeredClient({ client_id: '10000000000042', [TOOL_CONFIGURATION]: { deployment_id: '7:abc' } })).toEqual({
      clientId: '10000000000042',
      deploymentId: '7:abc',
    });
    expect(registeredClient({ client_id: 'c', [TOOL_CONFIGURATION]: { deployment_id: '' } })).toEqual({
      clientId: 'c',
      deploymentId: undefined,
    });
    expect(registeredClient({ client_id: 'c', [TOOL_CONFIGURATION]: { deployment_id: 'd'.repeat(256) } }).deploymentId).toBeUndefined();
    expect(registeredClient({ client_id: 'c' })).toEqual({ clientId: 'c', deploymentId: undefined });
    for (const answer of [undefined, {}, { client_id: 42 }, { client_id: '' }, { client_id: 'c'.repeat(256) }]) {
      expect(refusalMessage(() => registeredClient(answer))).toBe('The platform did not register the tool: its answer names no client_id.');
    }
  });
});
