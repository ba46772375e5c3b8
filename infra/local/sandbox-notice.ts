import { config } from '#shared/config.ts';
import { jobUser, sandboxProblem } from '#shared/grading/runner/launcher.ts';

/**
 * What `npm start` says at start-up when it cannot grade: no sandbox can be made here (bubblewrap
 * missing, user namespaces refused), so every submission's job would fail, each saying why, with
 * nothing on the console. Undefined when the sandbox works, or is not used (GRADING_SANDBOX).
 */
export async function sandboxNotice(bwrap = 'bwrap'): Promise<string | undefined> {
  if (config('GRADING_SANDBOX').mode !== 'bwrap') return undefined;
  // As the worker makes it: as a job's own uid when the server is root.
  const problem = await sandboxProblem(jobUser('start-up'), bwrap);
  if (problem === null) return undefined;
  return (
    `Submissions cannot be graded here: no sandbox can be made (${problem}), so every job fails until one can. ` +
    'Install bubblewrap 0.8 or newer (sudo apt-get install -y bubblewrap), with unprivileged user namespaces allowed; see docs/sandbox.md.'
  );
}
