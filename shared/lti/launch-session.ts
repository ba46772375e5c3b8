/**
 * A launch session: `POST /api/token` with the `lti_code` a launch answered. The code is taken once
 * (its delete is conditional, in the transaction that writes the session) within 60 seconds of
 * the launch; the session it starts is the user's launch session, apart from their API token
 * (shared/data/sessions.ts), held to what the launch opened (shared/auth/launch-scope.ts), and
 * lasts at most eight hours.
 */
import { randomUUID } from 'node:crypto';
import { signToken, type TokenClaims } from '#shared/auth/jwt.ts';
import { tokenTtlSeconds } from '#shared/config.ts';
import { getItems } from '#shared/data/items.ts';
import { consumeLtiLaunchCode, ltiLaunchCodeRef, type LtiLaunchCode } from '#shared/data/lti.ts';
import { putLaunchSession } from '#shared/data/sessions.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { userStillEnabled } from '#shared/data/users.ts';
import { launchAccountDisabled, launchCodeRefused } from './failures.ts';
import { hashOf } from './login.ts';

/** The longest a launch session lasts (shorter where TOKEN_TTL_SECONDS is). */
export const LAUNCH_SESSION_MAX_SECONDS = 8 * 60 * 60;

/** How long a launch session started now lasts: eight hours, or the API token's lifetime when that is shorter. */
export const launchSessionSeconds = (tokenTtl: number): number =>
  tokenTtl === 0 ? LAUNCH_SESSION_MAX_SECONDS : Math.min(tokenTtl, LAUNCH_SESSION_MAX_SECONDS);

/** The claims of the launch session a launch code starts. */
export function launchSessionClaims(code: LtiLaunchCode, now: Date, seconds: number): TokenClaims & { expiresAt: Date } {
  const issuedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return {
    userId: code.userId,
    tokenId: randomUUID(),
    issuedAt,
    expiresAt: new Date(issuedAt.getTime() + seconds * 1000),
    method: 'lti',
    launch: {
      registrationId: code.registrationId,
      semester: code.semester,
      course: code.course,
      gradeableId: code.gradeableId,
      roles: [...code.roles],
      messageType: code.messageType,
    },
  };
}

/** `POST /api/token` with `lti_code`: the launch session's token; the user's earlier launch session ends. */
export async function issueLaunchSession(launchCode: string, now = new Date()): Promise<string> {
  const codeHash = hashOf(launchCode);
  const { code } = await getItems({ code: ltiLaunchCodeRef(codeHash) });
  if (!code || code.expiresAt <= now) throw launchCodeRefused();
  const claims = launchSessionClaims(code, now, launchSessionSeconds(tokenTtlSeconds()));
  const token = await signToken(claims);
  try {
    await transactWrite([
      consumeLtiLaunchCode(codeHash),
      userStillEnabled(code.userId),
      putLaunchSession(claims, {
        registrationId: code.registrationId,
        deploymentId: code.deploymentId,
        contextId: code.contextId,
        mayLink: code.mayLink,
        membershipsUrl: code.membershipsUrl,
        grades: code.grades,
        deepLinking: code.deepLinking,
      }),
    ]);
  } catch (error) {
    const failed = failedConditions(error);
    if (failed.includes(0)) throw launchCodeRefused();
    if (failed.includes(1)) throw launchAccountDisabled({ user_id: code.userId });
    throw error;
  }
  return token;
}
