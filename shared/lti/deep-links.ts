/**
 * Deep linking (Deep Linking 2.0): an instructor who opened the tool from where the LMS adds
 * content picks gradeables of the launch's course; the tool answers the `LtiDeepLinkingResponse`
 * its browser posts back to the platform, one LTI resource link per gradeable, each with the line
 * item the platform makes its gradebook column from. The response is signed with the tool's
 * current key (the one `GET /api/lti/jwks` publishes first). Nothing is written here: the platform
 * keeps the links, and their launches name the gradeable (`custom.gradeable_id`, the line item's
 * `resourceId`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { Caller } from '#shared/auth/caller.ts';
import { courseGroups, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems, type ItemRef } from '#shared/data/items.ts';
import { getLtiRegistration, type LtiDeepLinking } from '#shared/data/lti.ts';
import { launchDetailsRef, type LaunchDetails } from '#shared/data/sessions.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeableMaxPoints } from '#shared/gradeables/points.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import {
  deepLinkCourseNotLinked,
  deepLinkFieldsMissing,
  deepLinkGradeableUnknown,
  deepLinkNeedsLaunch,
  deepLinkNotInstructor,
  deepLinkOneOnly,
  deepLinkTypeRefused,
  gradeableNamedTwice,
  registrationNotFound,
  toolKeyMissing,
} from './failures.ts';
import { LTI_CLAIM } from './launch-rules.ts';
import { LTI_KEY_ALGORITHM, toolKeys } from './tool-keys.ts';
import { MAX_DEEP_LINK_ITEMS, toolUrls } from './registration.ts';

/** How long the platform may take the response (its browser posts it at once). */
const RESPONSE_TTL_SECONDS = 600;
const DL_CLAIM = 'https://purl.imsglobal.org/spec/lti-dl/claim/';
export const RESOURCE_LINK = 'ltiResourceLink';

/** A deep-linking launch session's details: the caller's own, current launch session, a deep-linking one. */
type DeepLinkingDetails = LaunchDetails & { readonly deepLinking: LtiDeepLinking };

/** What a deep link reads with the token check: the caller's launch session's details. */
export const deepLinkReads = (userId: string) => ({ launch: launchDetailsRef(userId) });

/** The launch a caller may add gradeables from, and its course, or the refusal that says why not. Pure. */
export function deepLinkLaunch(caller: Pick<Caller, 'token'>, details: LaunchDetails | undefined) {
  const { token } = caller;
  const launch = token.method === 'lti' ? token.launch : undefined;
  if (!launch || launch.messageType !== 'LtiDeepLinkingRequest' || details?.tokenId !== token.tokenId || !details.deepLinking) {
    throw deepLinkNeedsLaunch();
  }
  if (launch.semester === null || launch.course === null) throw deepLinkCourseNotLinked();
  return { details: details as DeepLinkingDetails, semester: launch.semester, course: launch.course };
}

/** The gradeable ids asked for, as the launch's settings allow them: 1…n, each once, several only when the LMS takes several. Pure. */
export function pickedGradeables(ids: readonly string[], settings: LtiDeepLinking): string[] {
  if (ids.length === 0 || ids.length > MAX_DEEP_LINK_ITEMS) throw deepLinkFieldsMissing({ max: MAX_DEEP_LINK_ITEMS });
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw gradeableNamedTwice({ gradeable_id: id });
    seen.add(id);
  }
  if (!settings.acceptTypes.includes(RESOURCE_LINK)) throw deepLinkTypeRefused();
  if (ids.length > 1 && !settings.acceptMultiple) throw deepLinkOneOnly();
  return [...ids];
}

/** The content item of one gradeable: a resource link to the tool's launch URL naming it, with its gradebook line item. Pure. */
export const contentItem = (
  gradeable: Pick<GradeableDocument, 'id' | 'title'> & Parameters<typeof gradeableMaxPoints>[0],
  launchUrl: string,
) => ({
  type: RESOURCE_LINK,
  title: gradeable.title,
  url: launchUrl,
  custom: { gradeable_id: gradeable.id },
  lineItem: { scoreMaximum: gradeableMaxPoints(gradeable), label: gradeable.title, resourceId: gradeable.id },
});

/** The response's claims (Deep Linking 2.0 §4.5): to the platform from the registration's client, echoing the deployment and `data`. Pure. */
export function deepLinkingResponseClaims(
  registration: { readonly clientId: string; readonly issuer: string },
  details: Pick<DeepLinkingDetails, 'deploymentId' | 'deepLinking'>,
  items: readonly object[],
  now: Date,
): Record<string, unknown> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return {
    iss: registration.clientId,
    aud: registration.issuer,
    iat: issuedAt,
    exp: issuedAt + RESPONSE_TTL_SECONDS,
    nonce: randomUUID(),
    [`${LTI_CLAIM}message_type`]: 'LtiDeepLinkingResponse',
    [`${LTI_CLAIM}version`]: '1.3.0',
    [`${LTI_CLAIM}deployment_id`]: details.deploymentId,
    ...(details.deepLinking.data === null ? {} : { [`${DL_CLAIM}data`]: details.deepLinking.data }),
    [`${DL_CLAIM}content_items`]: items,
  };
}

/** The script of the page that posts the response: static, so the page's policy allows it by its hash alone. */
const SUBMIT_SCRIPT = 'document.forms[0].submit();';
const SUBMIT_SCRIPT_HASH = createHash('sha256').update(SUBMIT_SCRIPT).digest('base64');
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/**
 * A page that posts the response as `JWT` to the return URL at once (a button where scripts do
 * not run). Its own policy allows only its static script and a form post to the platform's origin.
 */
export function autoPostPage(url: string, jwt: string): string {
  const origin = new URL(url).origin;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-${SUBMIT_SCRIPT_HASH}'; form-action ${escapeHtml(origin)}">`,
    '<title>Adding the gradeables to the LMS</title></head>',
    `<body><form method="post" action="${escapeHtml(url)}"><input type="hidden" name="JWT" value="${escapeHtml(jwt)}">`,
    '<button type="submit">Add to the LMS</button></form>',
    `<script>${SUBMIT_SCRIPT}</script>`,
    '</body></html>',
  ].join('\n');
}

async function signingKey(): Promise<JWK & { kid: string }> {
  const { current } = await toolKeys();
  if (!current?.kid) throw toolKeyMissing();
  return current as JWK & { kid: string };
}

/** `POST /api/lti/deep-links`: the signed response for the gradeables picked, where it goes, and a page that posts it. */
export async function deepLink(
  caller: Pick<Caller, 'userId' | 'token'>,
  loaded: LaunchDetails | undefined,
  ids: readonly string[],
  base: string,
  now = new Date(),
) {
  const { details, semester, course } = deepLinkLaunch(caller, loaded);
  const picked = pickedGradeables(ids, details.deepLinking);
  const refs: Record<string, ItemRef<unknown>> = { enrollment: enrollmentRef(semester, course, caller.userId) };
  picked.forEach((id, index) => (refs[`gradeable${index}`] = gradeableRef(semester, course, id)));
  const [loadedItems, registration, key] = await Promise.all([getItems(refs), getLtiRegistration(details.registrationId), signingKey()]);
  const enrollment = loadedItems.enrollment as Enrollment | undefined;
  if (enrollment?.group !== courseGroups.instructor) throw deepLinkNotInstructor({ semester, course });
  const gradeables = picked.map((id, index) => {
    const gradeable = loadedItems[`gradeable${index}`] as GradeableDocument | undefined;
    if (!gradeable) throw deepLinkGradeableUnknown({ gradeable_id: id, semester, course });
    return gradeable;
  });
  if (!registration) throw registrationNotFound({ registration_id: details.registrationId });
  const launchUrl = toolUrls(base).launch_url;
  const claims = deepLinkingResponseClaims(
    registration,
    details,
    gradeables.map((gradeable) => contentItem(gradeable, launchUrl)),
    now,
  );
  const jwt = await new SignJWT(claims)
    .setProtectedHeader({ alg: LTI_KEY_ALGORITHM, typ: 'JWT', kid: key.kid })
    .sign(await importJWK(key, LTI_KEY_ALGORITHM));
  const url = details.deepLinking.returnUrl;
  return { url, jwt, html: autoPostPage(url, jwt) };
}
