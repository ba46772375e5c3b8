import type { SandboxMode } from './runner-protocol.ts';

/** The value of GRADING_SANDBOX that runs student code without any sandbox. */
export const UNSAFE_NO_SANDBOX = 'unsafe-none';

/**
 * `GRADING_SANDBOX`: unset, empty or `bwrap` for the bubblewrap sandbox; exactly `unsafe-none`
 * for none. Anything else is a mistake, reported, and the sandbox is kept.
 */
export function sandboxMode(env: Readonly<Record<string, string | undefined>>): { mode: SandboxMode; problem?: string } {
  const raw = env.GRADING_SANDBOX?.trim() ?? '';
  if (raw === '' || raw === 'bwrap') return { mode: 'bwrap' };
  if (raw === UNSAFE_NO_SANDBOX) return { mode: 'unsafe-none' };
  return {
    mode: 'bwrap',
    problem: `GRADING_SANDBOX must be "bwrap" or "${UNSAFE_NO_SANDBOX}", not ${JSON.stringify(raw)}; the sandbox is used`,
  };
}
