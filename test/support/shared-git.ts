import { inject } from 'vitest';

/**
 * A `vcs_path` on the run's git server (test/support/global-setup.ts), which serves the same
 * passing repository at every path: for gradeables whose tests are not about repositories, now
 * that a submission reads its repository's head. `path` may hold the placeholders (`{$user_id}`…).
 */
export const anyRepository = (path = 'org/x'): string => `${inject('gitServer').url}/${path}`;
