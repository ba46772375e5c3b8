import { describe, expect, it } from 'vitest';
import { authenticationRequest, chooseRegistration, checkTargetLink, deploymentAllowed } from '#shared/lti/login.ts';
import type { LtiRegistration } from '#shared/lti/registration.ts';

const registration = (issuer: string, clientId: string): LtiRegistration => ({
  registrationId: `${issuer} ${clientId}`,
  issuer,
  clientId,
  authLoginUrl: 'https://lms.example.edu/auth?x=1',
  authTokenUrl: 'https://lms.example.edu/token',
  jwksUrl: 'https://lms.example.edu/jwks',
  deploymentIds: [],
  authTokenAudience: null,
  userIdClaim: 'email',
  userIdSuffix: null,
  createUsers: false,
  label: null,
  createdAt: '2026-11-29T00:00:00.000Z',
  createdBy: 'root',
});

describe('chooseRegistration', () => {
  const canvasA = registration('https://canvas.instructure.com', 'A');
  const canvasB = registration('https://canvas.instructure.com', 'B');
  const moodle = registration('https://moodle.example.edu', 'M');

  it('takes the issuer and client id; without a client id, the issuer’s one registration', () => {
    expect(chooseRegistration([canvasA, canvasB, moodle], 'https://canvas.instructure.com', 'B')).toBe(canvasB);
    expect(chooseRegistration([canvasA, canvasB, moodle], 'https://moodle.example.edu', undefined)).toBe(moodle);
  });

  it('refuses an issuer with several registrations and no client id, and one not registered', () => {
    expect(() => chooseRegistration([canvasA, canvasB], 'https://canvas.instructure.com', undefined)).toThrow(
      'The issuer https://canvas.instructure.com has several LTI registrations here; its login must name the client_id.',
    );
    expect(() => chooseRegistration([canvasA], 'https://canvas.instructure.com', 'C')).toThrow(
      'No LTI registration for the issuer https://canvas.instructure.com with client id C.',
    );
  });
});

describe('the login rules', () => {
  it('asks the platform for an ID token by form post, without a prompt, keeping its own query', () => {
    const url = new URL(
      authenticationRequest(registration('https://i', 'c'), { loginHint: 'h', messageHint: 'm' }, 'https://tool/api/lti/launch', 's', 'n'),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      x: '1',
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: 'c',
      redirect_uri: 'https://tool/api/lti/launch',
      login_hint: 'h',
      lti_message_hint: 'm',
      state: 's',
      nonce: 'n',
    });
  });

  it('takes a deployment the registration names, or any when it names none; a target link on this tool only', () => {
    expect(deploymentAllowed({ deploymentIds: [] }, 'any')).toBe(true);
    expect(deploymentAllowed({ deploymentIds: ['1'] }, '1')).toBe(true);
    expect(deploymentAllowed({ deploymentIds: ['1'] }, '2')).toBe(false);
    expect(() => checkTargetLink('https://tool/api/lti/launch?x', 'https://tool/api/lti/launch')).not.toThrow();
    expect(() => checkTargetLink('https://evil/api/lti/launch', 'https://tool/api/lti/launch')).toThrow(/must lead to this tool/);
    expect(() => checkTargetLink('not a url', 'https://tool/api/lti/launch')).toThrow(/must lead to this tool/);
  });
});
