import { describe, expect, it } from 'vitest';
import { contentItem, deepLinkingResponseClaims, deepLinkLaunch, pickedGradeables } from '#shared/lti/deep-links.ts';
import { DEEP_LINKING_SETTINGS_CLAIM, deepLinkingSettings, LTI_CLAIM } from '#shared/lti/launch-rules.ts';
import { gradeableMaxPoints } from '#shared/gradeables/points.ts';
import { rubricComponent } from '../support/rubric.ts';
import { greets, runs } from '../support/gradeables.ts';

const settings = { returnUrl: 'https://lms.example.edu/return', acceptTypes: ['ltiResourceLink'], acceptMultiple: false, data: 'abc' };

describe("a deep-linking launch's settings", () => {
  const claims = (value: Record<string, unknown>) => ({ [DEEP_LINKING_SETTINGS_CLAIM]: value });
  it('keeps the return URL, accepted types, whether several items are taken, and data', () => {
    expect(
      deepLinkingSettings(
        claims({
          deep_link_return_url: ' https://lms.example.edu/return ',
          accept_types: ['ltiResourceLink', 7],
          accept_multiple: true,
          data: 'x',
        }),
        [],
      ),
    ).toEqual({ returnUrl: 'https://lms.example.edu/return', acceptTypes: ['ltiResourceLink'], acceptMultiple: true, data: 'x' });
    expect(deepLinkingSettings(claims({ deep_link_return_url: 'https://lms/r', accept_types: [] }), [])).toMatchObject({
      acceptMultiple: false,
      data: null,
    });
  });
  it('refuses settings missing, a return URL that is not a platform URL, data not a short string', () => {
    expect(() => deepLinkingSettings({}, [])).toThrow('no deep_linking_settings');
    expect(() => deepLinkingSettings(claims({ accept_types: [] }), [])).toThrow('no deep_link_return_url');
    expect(() => deepLinkingSettings(claims({ deep_link_return_url: 'http://lms/r', accept_types: [] }), [])).toThrow('https://');
    expect(() => deepLinkingSettings(claims({ deep_link_return_url: 'https://u:p@lms/r', accept_types: [] }), [])).toThrow('https://');
    expect(deepLinkingSettings(claims({ deep_link_return_url: 'http://lms:8080/r', accept_types: [] }), ['lms:8080']).returnUrl).toBe(
      'http://lms:8080/r',
    );
    expect(() => deepLinkingSettings(claims({ deep_link_return_url: 'https://lms/r' }), [])).toThrow('no accept_types');
    expect(() => deepLinkingSettings(claims({ deep_link_return_url: 'https://lms/r', accept_types: [], data: 5 }), [])).toThrow('data');
    expect(() =>
      deepLinkingSettings(claims({ deep_link_return_url: 'https://lms/r', accept_types: [], data: 'x'.repeat(4097) }), []),
    ).toThrow('data');
  });
});

describe('the gradeables a deep link adds', () => {
  it('takes 1 to 50 ids, each once, several only where the LMS takes several, and only where it takes resource links', () => {
    expect(pickedGradeables(['a'], settings)).toEqual(['a']);
    expect(pickedGradeables(['a', 'b'], { ...settings, acceptMultiple: true })).toEqual(['a', 'b']);
    expect(() => pickedGradeables(['a', 'b'], settings)).toThrow('takes one item');
    expect(() => pickedGradeables(['a', 'a'], { ...settings, acceptMultiple: true })).toThrow('a is named twice');
    expect(() => pickedGradeables([], settings)).toThrow('1 to 50');
    expect(() => pickedGradeables(['a'], { ...settings, acceptTypes: ['link'] })).toThrow('lack ltiResourceLink');
  });
  it('is only for the caller’s own current deep-linking launch session in a linked course', () => {
    const token = {
      userId: 'u',
      tokenId: 't',
      method: 'lti',
      launch: { semester: 's', course: 'c', messageType: 'LtiDeepLinkingRequest' },
    };
    const details = { tokenId: 't', deepLinking: settings } as unknown as Parameters<typeof deepLinkLaunch>[1];
    const caller = (changes: Record<string, unknown> = {}) =>
      ({ token: { ...token, ...changes } }) as unknown as Parameters<typeof deepLinkLaunch>[0];
    expect(deepLinkLaunch(caller(), details)).toMatchObject({ semester: 's', course: 'c' });
    expect(() => deepLinkLaunch(caller({ method: 'password' }), details)).toThrow('deep-linking launch');
    expect(() => deepLinkLaunch(caller({ launch: { ...token.launch, messageType: 'LtiResourceLinkRequest' } }), details)).toThrow(
      'deep-linking launch',
    );
    expect(() => deepLinkLaunch(caller({ tokenId: 'replaced' }), details)).toThrow('deep-linking launch');
    expect(() => deepLinkLaunch(caller({ launch: { ...token.launch, semester: null, course: null } }), details)).toThrow('not linked');
  });
  it('makes a resource link per gradeable with its line item, and the response claims echo deployment and data', () => {
    const gradeable = {
      id: 'hw1',
      title: 'Homework 1',
      autograding: { test_cases: [runs(5), { ...greets(3), is_hidden: true }, { ...runs(2), is_extra_credit: true }] },
      rubric: [rubricComponent('Style', { max_value: 2.5 })],
    } as unknown as Parameters<typeof contentItem>[0];
    expect(gradeableMaxPoints(gradeable)).toBe(10.5);
    const item = contentItem(gradeable, 'https://api/api/lti/launch');
    expect(item).toEqual({
      type: 'ltiResourceLink',
      title: 'Homework 1',
      url: 'https://api/api/lti/launch',
      custom: { gradeable_id: 'hw1' },
      lineItem: { scoreMaximum: 10.5, label: 'Homework 1', resourceId: 'hw1' },
    });
    const now = new Date('2026-01-01T00:00:00Z');
    const claims = deepLinkingResponseClaims(
      { clientId: 'cid', issuer: 'https://lms' },
      { deploymentId: 'd1', deepLinking: settings },
      [item],
      now,
    );
    expect(claims).toMatchObject({
      iss: 'cid',
      aud: 'https://lms',
      iat: now.getTime() / 1000,
      [`${LTI_CLAIM}message_type`]: 'LtiDeepLinkingResponse',
      [`${LTI_CLAIM}deployment_id`]: 'd1',
      'https://purl.imsglobal.org/spec/lti-dl/claim/data': 'abc',
      'https://purl.imsglobal.org/spec/lti-dl/claim/content_items': [item],
    });
    expect(
      deepLinkingResponseClaims(
        { clientId: 'cid', issuer: 'https://lms' },
        { deploymentId: 'd1', deepLinking: { ...settings, data: null } },
        [],
        now,
      ),
    ).not.toHaveProperty('https://purl.imsglobal.org/spec/lti-dl/claim/data');
  });
});
