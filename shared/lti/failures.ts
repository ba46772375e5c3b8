/** LTI's fails (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';

export const registrationFieldsMissing = /* @__PURE__ */ failure(
  'invalid',
  'A registration needs issuer, client_id, auth_login_url, auth_token_url and jwks_url.',
);
export const badPlatformUrl = /* @__PURE__ */ failure(
  'invalid',
  'The {field} must be an absolute https:// URL without a user name, password or fragment.',
);
export const platformAddressRefused = /* @__PURE__ */ failure(
  'invalid',
  "The {field}'s host has the address {address}, which is {kind}; platforms are reached only on public addresses (or hosts LTI_ALLOWED_HOSTS names).",
);
export const platformHostUnknown = /* @__PURE__ */ failure('invalid', "The {field}'s host {host} could not be found.", {
  host: ECHOED_LENGTH,
});
export const badUserIdClaim = /* @__PURE__ */ failure(
  'invalid',
  'The user_id_claim must name a claim of the launch, such as email or sub, or a member of one, as claim-URI#member.',
);
export const registrationExists = /* @__PURE__ */ failure(
  'conflict',
  'The platform {issuer} with client id {client_id} is registered already, as {registration_id}.',
  { issuer: ECHOED_LENGTH, client_id: ECHOED_LENGTH },
);
export const registrationNotFound = /* @__PURE__ */ failure('not-found', 'No LTI registration {registration_id}.', {
  registration_id: ECHOED_LENGTH,
});
export const badDeploymentId = /* @__PURE__ */ failure('invalid', 'A deployment id is at most {max} characters long.');
export const loginFieldsMissing = /* @__PURE__ */ failure('invalid', 'An LTI login needs iss, login_hint and target_link_uri.');
export const platformNotRegistered = /* @__PURE__ */ failure(
  'not-found',
  'No LTI registration for the issuer {issuer} with client id {client_id}.',
  { issuer: ECHOED_LENGTH, client_id: ECHOED_LENGTH },
);
export const clientIdNeeded = /* @__PURE__ */ failure(
  'invalid',
  'The issuer {issuer} has several LTI registrations here; its login must name the client_id.',
  { issuer: ECHOED_LENGTH },
);
export const deploymentNotAllowed = /* @__PURE__ */ failure(
  'forbidden',
  'The deployment {deployment_id} is not one this LTI registration allows.',
  { deployment_id: ECHOED_LENGTH },
);
export const foreignTargetLink = /* @__PURE__ */ failure('invalid', 'The target_link_uri must lead to this tool ({launch_url}).');
export const launchFieldsMissing = /* @__PURE__ */ failure('invalid', 'An LTI launch needs id_token and state.');
export const launchStateUnknown = /* @__PURE__ */ failure(
  'invalid',
  "This launch's state is unknown, used already or older than ten minutes: open the tool again from the LMS.",
);
export const launchTokenRefused = /* @__PURE__ */ failure('unauthenticated', "The launch's ID token is refused: {reason}.");
export const launchUserUnknown = /* @__PURE__ */ failure(
  'forbidden',
  'No account here for the LMS user {user_id}; an administrator must create it (or let this platform create accounts).',
  { user_id: ECHOED_LENGTH },
);
// The claim is the registration's own user_id_claim (at most 300 characters), with what it must be.
export const launchUserUnnamed = /* @__PURE__ */ failure('forbidden', 'The launch does not say who the user is here: it has no {claim}.', {
  claim: 400,
});
export const launchAccountDisabled = /* @__PURE__ */ failure('forbidden', 'The account {user_id} is disabled.', { user_id: ECHOED_LENGTH });
export const contextNotLinked = /* @__PURE__ */ failure(
  'not-found',
  'This LMS course is not linked to a course here yet: its instructor links it by opening the tool from the LMS.',
);
export const launchCodeRefused = /* @__PURE__ */ failure(
  'unauthenticated',
  'The lti_code is unknown, used already or older than 60 seconds: open the tool again from the LMS.',
);
export const launchRoleNone = /* @__PURE__ */ failure(
  'forbidden',
  'Your roles in the LMS give you no role in the course {semester}/{course}: ask its instructor to enrol you.',
);
export const linkNeedsLaunch = /* @__PURE__ */ failure(
  'forbidden',
  'An LMS course is linked from its instructor’s launch while it is not linked yet: open the tool from that LMS course, then link it.',
);
export const contextLinkedAlready = /* @__PURE__ */ failure('conflict', 'This LMS course is linked already, to {semester}/{course}.');
export const linkNotFound = /* @__PURE__ */ failure('not-found', 'The LMS course {context_id} is not linked to this course.', {
  context_id: ECHOED_LENGTH,
});
export const unlinkFieldsMissing = /* @__PURE__ */ failure('invalid', 'Name the LMS course to unlink: registration_id and context_id.');
export const registerFieldsMissing = /* @__PURE__ */ failure(
  'invalid',
  'A dynamic registration needs invitation and openid_configuration: open the invitation URL from the LMS.',
);
export const invitationUnknown = /* @__PURE__ */ failure(
  'not-found',
  'This registration invitation is unknown or was used already; ask a superuser for a new one.',
);
export const invitationExpired = /* @__PURE__ */ failure(
  'forbidden',
  'This registration invitation expired at {expires_at}; ask a superuser for a new one.',
);
export const invitationInUse = /* @__PURE__ */ failure(
  'conflict',
  'This registration invitation is being used by another registration at this moment.',
);
export const platformConfigurationUnreadable = /* @__PURE__ */ failure(
  'unprocessable',
  "The platform's configuration could not be read: {problem}.",
);
export const platformConfigurationInvalid = /* @__PURE__ */ failure(
  'unprocessable',
  "The platform's configuration is not one this tool can register with: {problem}.",
);
export const issuerOriginMismatch = /* @__PURE__ */ failure(
  'invalid',
  "The platform's issuer {issuer} is not on the origin of its configuration's URL ({origin}).",
  { issuer: ECHOED_LENGTH, origin: ECHOED_LENGTH },
);
export const platformRefusedRegistration = /* @__PURE__ */ failure('unprocessable', 'The platform did not register the tool: {problem}.');
export const rosterNotLinked = /* @__PURE__ */ failure(
  'conflict',
  "This course is linked to no LMS course with a roster service: an instructor's launch from the LMS course links it (POST …/lti/link).",
);
export const rosterUnavailable = /* @__PURE__ */ failure(
  'unavailable',
  "The LMS's roster could not be read for now ({problem}); nothing was changed. Try again later.",
);
export const rosterRefused = /* @__PURE__ */ failure(
  'unprocessable',
  "The LMS's roster could not be read ({problem}); nothing was changed. The platform's LTI registration or its tool settings need checking.",
);
export const rosterTooLarge = /* @__PURE__ */ failure(
  'unprocessable',
  "The LMS's roster is larger than {limit} {what}; nothing was changed.",
);
export const deepLinkFieldsMissing = /* @__PURE__ */ failure(
  'invalid',
  'Name the gradeables to add to the LMS: gradeable_ids, a list of 1 to {max} gradeable ids.',
);
export const deepLinkNeedsLaunch = /* @__PURE__ */ failure(
  'forbidden',
  'Gradeables are added to the LMS from a deep-linking launch: open the tool from where the LMS adds content (an assignment’s or activity’s external tool), then pick them.',
);
export const deepLinkCourseNotLinked = /* @__PURE__ */ failure(
  'conflict',
  'This LMS course is not linked to a course here yet: its instructor links it from this launch first, then opens the tool again from the LMS to add gradeables.',
);
export const deepLinkNotInstructor = /* @__PURE__ */ failure(
  'forbidden',
  'Only an instructor of {semester}/{course} adds its gradeables to the LMS.',
);
export const deepLinkTypeRefused = /* @__PURE__ */ failure(
  'unprocessable',
  'The LMS takes no LTI resource links from this launch (its accept_types lack ltiResourceLink), so no gradeable can be added here.',
);
export const deepLinkOneOnly = /* @__PURE__ */ failure('invalid', 'The LMS takes one item from this launch: name one gradeable.');
export const gradeableNamedTwice = /* @__PURE__ */ failure('invalid', 'Each gradeable is named once: {gradeable_id} is named twice.', {
  gradeable_id: ECHOED_LENGTH,
});
export const deepLinkGradeableUnknown = /* @__PURE__ */ failure('not-found', 'No gradeable {gradeable_id} in {semester}/{course}.', {
  gradeable_id: ECHOED_LENGTH,
});
export const toolKeyMissing = /* @__PURE__ */ failure(
  'conflict',
  'The tool has no LTI signing key yet: an administrator makes one with npm run admin -- rotate-lti-key.',
);
export const badScoreDeliveryState = /* @__PURE__ */ failure('invalid', 'The state must be sent, failed, skipped or pending.');
export const scoreDeliveryNotFound = /* @__PURE__ */ failure('not-found', 'No LMS score delivery {delivery_id} of this course.', {
  delivery_id: ECHOED_LENGTH,
});
export const scoreDeliveryPending = /* @__PURE__ */ failure(
  'conflict',
  'This score delivery is being sent (its next try is queued); it can be replayed once it is sent, failed or skipped, or its try is an hour overdue.',
);
export const scoreDeliveryChanged = /* @__PURE__ */ failure(
  'conflict',
  'This score delivery changed while it was being replayed (a try of it ended meanwhile): read it again, and replay it if it still needs it.',
);
export const scoresNotLinked = /* @__PURE__ */ failure(
  'conflict',
  "This course is linked to no LMS course that takes scores: an instructor's launch from an LMS course with a grade service links it (POST …/lti/link).",
);
