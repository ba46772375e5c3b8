import { describe, expect, it } from 'vitest';
import { launchMayCall } from '#shared/auth/launch-scope.ts';
import { courseGroupOf, gradeableCandidates, launchMessage, launchUserId, LTI_CLAIM } from '#shared/lti/launch-rules.ts';
import { LAUNCH_SESSION_MAX_SECONDS, launchSessionSeconds } from '#shared/lti/launch-session.ts';

const MEMBERSHIP = 'http://purl.imsglobal.org/vocab/lis/v2/membership';

describe('the course role of LMS roles', () => {
  it('maps the context roles, by URI or short name, and takes the highest', () => {
    expect(courseGroupOf([`${MEMBERSHIP}#Instructor`])).toBe(1);
    expect(courseGroupOf([`${MEMBERSHIP}#Administrator`])).toBe(1);
    expect(courseGroupOf([`${MEMBERSHIP}/Instructor#TeachingAssistant`])).toBe(2);
    expect(courseGroupOf([`${MEMBERSHIP}/Instructor#Grader`])).toBe(3);
    expect(courseGroupOf([`${MEMBERSHIP}#Learner`])).toBe(4);
    expect(courseGroupOf(['Learner', 'TeachingAssistant'])).toBe(2);
    expect(courseGroupOf(['Instructor'])).toBe(1);
    expect(courseGroupOf([`${MEMBERSHIP}#Learner`, `${MEMBERSHIP}#Instructor`])).toBe(1);
  });

  it('gives none for other roles: mentors, content developers, institution and system roles', () => {
    expect(courseGroupOf([])).toBeUndefined();
    expect(courseGroupOf([`${MEMBERSHIP}#Mentor`, `${MEMBERSHIP}#ContentDeveloper`])).toBeUndefined();
    expect(courseGroupOf(['http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor'])).toBeUndefined();
    expect(courseGroupOf(['http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator'])).toBeUndefined();
  });
});

describe("a first launch's user id", () => {
  const rule = { userIdClaim: 'email', userIdSuffix: '@example.edu' };
  it('reads a verified e-mail address, its suffix removed (any case)', () => {
    expect(launchUserId({ email: 'ada@EXAMPLE.edu', email_verified: true }, rule)).toBe('ada');
  });
  it('never an e-mail address the token does not mark verified', () => {
    expect(() => launchUserId({ email: 'ada@example.edu' }, rule)).toThrow('it has no verified email');
    expect(() => launchUserId({ email: 'ada@example.edu', email_verified: 'true' }, rule)).toThrow('it has no verified email');
  });
  it('reads a member of a claim URI (a custom field), and refuses another suffix or no user id', () => {
    const custom = { userIdClaim: `${LTI_CLAIM}custom#user_username`, userIdSuffix: null };
    expect(launchUserId({ [`${LTI_CLAIM}custom`]: { user_username: 'ada' } }, custom)).toBe('ada');
    expect(() => launchUserId({}, custom)).toThrow('it has no');
    expect(() => launchUserId({ email: 'ada@elsewhere.edu', email_verified: true }, rule)).toThrow('ending with @example.edu');
    expect(() => launchUserId({ [`${LTI_CLAIM}custom`]: { user_username: 'not a user id' } }, custom)).toThrow('a user id here');
  });
});

describe("a launch's LTI claims", () => {
  const claims = {
    [`${LTI_CLAIM}version`]: '1.3.0',
    [`${LTI_CLAIM}message_type`]: 'LtiResourceLinkRequest',
    [`${LTI_CLAIM}deployment_id`]: 'd1',
    [`${LTI_CLAIM}roles`]: [`${MEMBERSHIP}#Learner`],
    [`${LTI_CLAIM}context`]: { id: 'ctx' },
    'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice': { context_memberships_url: 'https://lms/m' },
    'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint': { lineitems: 'https://lms/li', scope: ['s'] },
  };
  it('reads the deployment, context, roles and service endpoints', () => {
    expect(launchMessage(claims, { deploymentIds: [] })).toEqual({
      messageType: 'LtiResourceLinkRequest',
      deploymentId: 'd1',
      contextId: 'ctx',
      roles: [`${MEMBERSHIP}#Learner`],
      membershipsUrl: 'https://lms/m',
      grades: { lineitems: 'https://lms/li', lineitem: null, scope: ['s'] },
      deepLinking: null,
    });
  });
  it('refuses another version, message type, a missing or unknown deployment', () => {
    expect(() => launchMessage({ ...claims, [`${LTI_CLAIM}version`]: '1.1' }, { deploymentIds: [] })).toThrow('1.3.0');
    expect(() => launchMessage({ ...claims, [`${LTI_CLAIM}message_type`]: 'Other' }, { deploymentIds: [] })).toThrow('message type');
    expect(() => launchMessage({ ...claims, [`${LTI_CLAIM}deployment_id`]: undefined }, { deploymentIds: [] })).toThrow('deployment_id');
    expect(() => launchMessage(claims, { deploymentIds: ['d2'] })).toThrow('The deployment d1 is not one');
  });
  it('names the gradeable from custom.gradeable_id first, then the line item resourceId, for resource links only', () => {
    const named = { [`${LTI_CLAIM}custom`]: { gradeable_id: 'hw1' }, [`${LTI_CLAIM}lti-ags`]: { resourceId: 'hw2' } };
    expect(gradeableCandidates(named, 'LtiResourceLinkRequest')).toEqual(['hw1', 'hw2']);
    expect(gradeableCandidates(named, 'LtiDeepLinkingRequest')).toEqual([]);
    expect(gradeableCandidates({ [`${LTI_CLAIM}custom`]: { gradeable_id: '../x' } }, 'LtiResourceLinkRequest')).toEqual([]);
  });
});

describe('what a launch session may call', () => {
  const launch = {
    registrationId: 'r',
    semester: 's26',
    course: 'cs1',
    gradeableId: null,
    roles: ['Student'],
    messageType: 'LtiResourceLinkRequest',
  };
  const course = { semester: 's26', course: 'cs1' };
  it("its course's routes, what it is, its logout and the caller's profile", () => {
    expect(launchMayCall(launch, 'GET /api/{semester}/{course}/gradeables', course)).toBe(true);
    expect(launchMayCall(launch, 'GET /api/token', undefined)).toBe(true);
    expect(launchMayCall(launch, 'HEAD /api/token', undefined)).toBe(true);
    expect(launchMayCall(launch, 'POST /api/token/invalidate', undefined)).toBe(true);
    expect(launchMayCall(launch, 'GET /api/me', undefined)).toBe(true);
  });
  it("never another course's routes, or any other route", () => {
    expect(launchMayCall(launch, 'GET /api/{semester}/{course}/gradeables', { semester: 's26', course: 'cs2' })).toBe(false);
    expect(launchMayCall(launch, 'GET /api/users', undefined)).toBe(false);
    expect(launchMayCall(launch, 'GET /api/courses', undefined)).toBe(false);
    expect(launchMayCall(launch, 'POST /api/{semester}/{course}/lti/link', { semester: 's26', course: 'cs2' })).toBe(false);
  });
  it('without a course: only what it is, its logout and the link route', () => {
    const unlinked = { ...launch, semester: null, course: null };
    expect(launchMayCall(unlinked, 'POST /api/{semester}/{course}/lti/link', course)).toBe(true);
    expect(launchMayCall(unlinked, 'GET /api/token', undefined)).toBe(true);
    expect(launchMayCall(unlinked, 'GET /api/me', undefined)).toBe(false);
    expect(launchMayCall(unlinked, 'GET /api/{semester}/{course}/gradeables', course)).toBe(false);
  });
});

describe("a launch session's length", () => {
  it('is eight hours, or the API token lifetime when shorter', () => {
    expect(launchSessionSeconds(0)).toBe(LAUNCH_SESSION_MAX_SECONDS);
    expect(launchSessionSeconds(86_400)).toBe(8 * 3600);
    expect(launchSessionSeconds(3600)).toBe(3600);
  });
});
