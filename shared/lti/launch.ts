/**
 * The LTI 1.3 launch (`POST /api/lti/launch`): the platform's browser posts the ID token and the
 * state of the login. The state is read, the token checked against the platform's keys (its nonce
 * the state's), the user found (by the binding of the launch's `sub`, else by the registration's
 * user-id rule, or created), and the course found from the context's link. Then one transaction
 * consumes the state and the nonce, binds the user, records a new deployment, enrols a new member
 * of a linked course and stores a launch code, which a client trades for a launch session within
 * 60 seconds. A refused launch writes nothing (its state stays, unused, until it expires).
 */
import { newUserFromClaims } from '#shared/auth/oidc-rules.ts';
import { courseGroups, groupLabels, type Course, type CourseGroup, type Enrollment } from '#shared/courses/course.ts';
import { newMemberItems } from '#shared/courses/enroll.ts';
import { auditEntry } from '#shared/data/audit.ts';
import { courseRef } from '#shared/data/courses.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { gradeableRef } from '#shared/data/gradeables.ts';
import { getItems, type ItemRef } from '#shared/data/items.ts';
import {
  bindLtiPerson,
  consumeLtiState,
  getLtiRegistration,
  ltiContextLinkRef,
  ltiPersonRef,
  ltiStateRef,
  putLtiLaunchCode,
  recordLtiDeployment,
  recordLtiNonce,
  type LtiContextLink,
  type LtiLaunchCode,
} from '#shared/data/lti.ts';
import { termRef } from '#shared/data/terms.ts';
import { recordLtiSubject } from '#shared/data/lti-scores.ts';
import { failedConditions, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import { newUserItem, userRef, userStillEnabled, type User } from '#shared/data/users.ts';
import { newUserFrom } from '#shared/users/profile.ts';
import {
  contextNotLinked,
  launchAccountDisabled,
  launchRoleNone,
  launchFieldsMissing,
  launchStateUnknown,
  launchTokenRefused,
  launchUserUnknown,
} from './failures.ts';
import { courseGroupOf, gradeableCandidates, launchMessage, launchUserId, type LaunchMessage } from './launch-rules.ts';
import { hashOf, randomToken } from './login.ts';
import { allowedPlatformHosts, checkPlatformAddress } from './platform-address.ts';
import { verifyLaunchToken } from './platform-keys.ts';
import type { LtiRegistration } from './registration.ts';

/** How long a launch code waits for its client. */
export const LAUNCH_CODE_TTL_SECONDS = 60;
/** How often a launch whose binding, account or membership changed meanwhile is tried again. */
const ATTEMPTS = 3;

/** What the platform's browser posts. */
export interface LaunchForm {
  readonly id_token?: string | undefined;
  readonly state?: string | undefined;
}

/** A launch done: its code (for the client to trade) and what it opened. */
export interface Launched {
  readonly code: string;
  readonly launch: Omit<LtiLaunchCode, 'codeHash' | 'expiresAt'>;
}

/** The launch's claims checked: the state's registration, the ID token and its LTI message. */
async function checkedLaunch(form: LaunchForm, now: Date) {
  if (!form.id_token || !form.state) throw launchFieldsMissing();
  const stateHash = hashOf(form.state);
  const { state } = await getItems({ state: ltiStateRef(stateHash) });
  if (!state || state.expiresAt <= now) throw launchStateUnknown();
  const registration = await getLtiRegistration(state.registrationId);
  if (!registration) throw launchStateUnknown();
  const claims: Record<string, unknown> = await verifyLaunchToken(form.id_token, registration, state.nonce, allowedPlatformHosts(), now);
  const message = launchMessage(claims, registration, allowedPlatformHosts());
  if (message.deepLinking)
    await checkPlatformAddress('deep_link_return_url', new URL(message.deepLinking.returnUrl), allowedPlatformHosts());
  if (state.deploymentId !== null && state.deploymentId !== message.deploymentId) {
    throw launchTokenRefused({ reason: 'its deployment is not the one its login named' });
  }
  return { stateHash, registration, claims, message, sub: claims.sub as string, expiresAt: new Date((claims.exp as number) * 1000) };
}

/** `POST /api/lti/launch`. */
export async function launch(form: LaunchForm, now = new Date()): Promise<Launched> {
  const checked = await checkedLaunch(form, now);
  for (let attempt = 1; ; attempt++) {
    const plan = await planLaunch(checked, now);
    const code = randomToken();
    const stored: LtiLaunchCode = {
      ...plan.launch,
      codeHash: hashOf(code),
      expiresAt: new Date(now.getTime() + LAUNCH_CODE_TTL_SECONDS * 1000),
    };
    const items: TransactItem[] = [
      consumeLtiState(checked.stateHash),
      recordLtiNonce(hashOf(`${checked.registration.issuer}\n${checked.claims.nonce as string}`), checked.expiresAt),
      putLtiLaunchCode(stored),
      ...plan.items,
    ];
    try {
      await transactWrite(items);
    } catch (error) {
      const failed = failedConditions(error);
      if (failed.includes(0)) throw launchStateUnknown();
      if (failed.includes(1)) throw launchTokenRefused({ reason: 'its nonce was used already' });
      // The binding, the account or the membership changed meanwhile: plan again from what holds now.
      if (failed.length > 0 && attempt < ATTEMPTS) continue;
      throw error;
    }
    await plan.settle?.();
    return { code, launch: plan.launch };
  }
}

type Checked = Awaited<ReturnType<typeof checkedLaunch>>;

interface LaunchPlan {
  readonly launch: Launched['launch'];
  readonly items: TransactItem[];
  readonly settle?: (() => Promise<unknown>) | undefined;
}

/** What the launch writes, from what it reads now: the user (bound or found), the course (linked or none). */
async function planLaunch({ registration, claims, message, sub }: Checked, now: Date): Promise<LaunchPlan> {
  const { person, link } = await getItems({
    person: ltiPersonRef(registration.issuer, sub),
    ...(message.contextId ? { link: ltiContextLinkRef(registration.registrationId, message.contextId) } : {}),
  } as { person: ItemRef<{ userId: string }>; link?: ItemRef<LtiContextLink> });
  const userId = person?.userId ?? launchUserId(claims, registration);
  const group = courseGroupOf(message.roles);
  if (!link && group !== courseGroups.instructor) throw contextNotLinked();
  const { user, enrollment, course, term, candidates } = await getItems({
    user: userRef(userId),
    ...(link
      ? {
          enrollment: enrollmentRef(link.semester, link.course, userId),
          course: courseRef(link.semester, link.course),
          term: termRef(link.semester),
          ...Object.fromEntries(
            gradeableCandidates(claims, message.messageType).map((id, index) => [
              `gradeable${index}`,
              gradeableRef(link.semester, link.course, id),
            ]),
          ),
        }
      : {}),
  } as Record<string, ItemRef<unknown>>).then((loaded) => ({
    user: loaded.user as User | undefined,
    enrollment: loaded.enrollment as Enrollment | undefined,
    course: loaded.course as Course | undefined,
    term: loaded.term as Parameters<typeof newMemberItems>[1],
    candidates: gradeableCandidates(claims, message.messageType).filter((_, index) => loaded[`gradeable${index}`] !== undefined),
  }));
  if (!user && !registration.createUsers) throw launchUserUnknown({ user_id: userId });
  if (user?.disabled) throw launchAccountDisabled({ user_id: userId });
  const account = user ?? newUserFrom(newUserFromClaims(userId, claims, { emailsVerified: false }));
  const binding = { issuer: registration.issuer, subject: sub, userId };
  // The reverse of the binding too: a grade sent back to the LMS names the student by their `sub`.
  const items: TransactItem[] = [bindLtiPerson(binding, now), recordLtiSubject(binding)];
  if (user) items.push(userStillEnabled(userId));
  else items.push(...newAccountItems(account, registration));
  if (registration.deploymentIds.length === 0) items.push(recordLtiDeployment(registration.registrationId, message.deploymentId, now));

  const base = {
    userId,
    registrationId: registration.registrationId,
    deploymentId: message.deploymentId,
    contextId: message.contextId,
    messageType: message.messageType,
    membershipsUrl: message.membershipsUrl,
    grades: message.grades,
    deepLinking: message.deepLinking,
  };
  if (!link || !course) {
    // An instructor in the LMS from a context not linked yet: a launch session without a course, which may link it.
    return {
      items,
      launch: { ...base, semester: null, course: null, gradeableId: null, roles: [groupLabels[courseGroups.instructor]], mayLink: true },
    };
  }
  let member = enrollment;
  let settle: (() => Promise<unknown>) | undefined;
  if (!member) {
    if (group === undefined) throw launchRoleNone({ semester: link.semester, course: link.course });
    member = newMember(link, userId, group);
    const enrolment = newMemberItems(course, term, account, member, userId, now);
    items.push(...enrolment.items);
    settle = enrolment.settle;
  }
  return {
    items,
    settle,
    launch: {
      ...base,
      semester: link.semester,
      course: link.course,
      gradeableId: candidates[0] ?? null,
      roles: [groupLabels[member.group]],
      mayLink: false,
    },
  };
}

/** A member a launch enrols: students in the link's section, staff without one. */
const newMember = (link: LtiContextLink, userId: string, group: CourseGroup): Enrollment => ({
  term: link.semester,
  course: link.course,
  userId,
  group,
  registrationSection: group === courseGroups.student ? link.section : null,
  rotatingSection: null,
  gradingSections: [],
});

/** A first launch's account (the registration creates accounts) and its audit entry, made by the user themselves. */
function newAccountItems(user: User, registration: LtiRegistration): TransactItem[] {
  const after = {
    first_name: user.givenName,
    last_name: user.familyName,
    email: user.email,
    level: user.accessLevel,
    lti: registration.registrationId,
  };
  return [
    newUserItem(user),
    auditEntry({ userId: user.userId }, { actor: user.userId, action: 'user.created', target: user.userId, after }),
  ];
}

export type { LaunchMessage };
