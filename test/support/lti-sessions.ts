/**
 * What the LTI tests share: the test platform registered by the world's superuser with its people
 * (each known at the LMS as `lms-<user id>`, matched here by e-mail address), and launch sessions
 * from its LMS courses, and the score deliveries once the LTI score queue has settled.
 */
import { expect } from 'vitest';
import { scoreDeliveriesOf, type ScoreDelivery } from '#shared/data/lti-scores.ts';
import { tokenOf, type CourseWorld } from './courses.ts';
import type { TestApi } from './http.ts';
import type { LtiTestPlatform } from './lti-platform.ts';
import type { TestUser } from './users.ts';

/** A user's id at the LMS (their launches' `sub`). */
export const lmsSub = (user: Pick<TestUser, 'userId'>): string => `lms-${user.userId}`;

/** Registers the platform as the world's superuser (people matched by their e-mail address) and makes `users` its people. */
export async function registerPlatform(
  api: TestApi,
  world: CourseWorld,
  platform: LtiTestPlatform,
  users: readonly TestUser[],
): Promise<void> {
  const su = { Authorization: await tokenOf(api, world.users.superuser), Prefer: 'http-status' };
  const registered = await api.postJson(
    '/lti/registrations',
    platform.registration({ user_id_claim: 'email', user_id_suffix: '@example.edu' }),
    su,
  );
  expect(registered.json.status, registered.text).toBe('success');
  for (const user of users) {
    platform.addUser({ sub: lmsSub(user), email: user.email, email_verified: true, name: `${user.givenName} ${user.familyName}` });
  }
}

/** `user`'s launch from the LMS course `contextId` with `roles`, its code traded: the headers of a request with the launch session. */
export async function launchSession(
  api: TestApi,
  platform: LtiTestPlatform,
  user: TestUser,
  launch: { readonly roles: readonly string[]; readonly contextId: string },
): Promise<Record<string, string>> {
  const answer = await platform.launch(lmsSub(user), { roles: [...launch.roles], contextId: launch.contextId });
  const location = answer.headers.get('location') ?? '';
  expect(answer.status, await answer.text()).toBe(303);
  const code = new URLSearchParams(new URL(location).hash.slice(1)).get('lti_code') ?? '';
  const traded = await api.postJson('/token', { lti_code: code }, { Prefer: 'http-status' });
  expect(traded.json.status, traded.text).toBe('success');
  return { Authorization: traded.json.data.token as string, Prefer: 'http-status' };
}

/** The course's deliveries once none is pending (the outbox relayed, the LTI score queue idle) and `done` holds, polled. */
export async function settledDeliveries(
  api: TestApi,
  course: { readonly term: string; readonly course: string },
  done: (deliveries: ScoreDelivery[]) => boolean = () => true,
): Promise<ScoreDelivery[]> {
  for (let poll = 0; poll < 200; poll++) {
    await api.server.webhookOutbox.run();
    await api.server.ltiScoreQueue.idle();
    const deliveries = await scoreDeliveriesOf(course.term, course.course);
    if (deliveries.every((delivery) => delivery.state !== 'pending') && done(deliveries)) return deliveries;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the deliveries did not settle');
}

/** The delivery of `user`'s grade of `gradeableId` among `deliveries`. */
export const deliveryOf = (deliveries: readonly ScoreDelivery[], gradeableId: string, user: Pick<TestUser, 'userId'>) =>
  deliveries.find((delivery) => delivery.gradeableId === gradeableId && delivery.userId === user.userId);
