import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { median, ms, progress, quantile, ratio, type Row } from './common.ts';
import { invoke, request, vcsGradeable, type World } from './world.ts';

const ITERATIONS = 60;
const WARM_UP = 10;

/**
 * What binding a version to its commit adds to a submission: the submit handler called in process,
 * in turns, on a gradeable whose repositories are on the bench's local git server (the head read
 * with ls-remote: two HTTP requests) and on one whose repositories are local folders without
 * history (nothing to read: the baseline, the same handler and DynamoDB requests otherwise).
 */
export async function measureCommitBinding(world: World): Promise<Row> {
  progress(`latency: submit-vcs with and without reading the repository's head (${ITERATIONS} calls each)`);
  const folders = await mkdtemp(join(tmpdir(), 'bench-folders-'));
  const previous = process.env.FILE_REPOSITORIES_DIR;
  try {
    process.env.FILE_REPOSITORIES_DIR = folders;
    await mkdir(join(folders, world.users.submitter.userId));
    const withHead = await uploadGradeable(world.course, vcsGradeable('hw_head'));
    const folder = vcsGradeable('hw_folder');
    const withoutHead = await uploadGradeable(world.course, {
      ...folder,
      vcs: { repository_type: 'self-hosted', vcs_path: `file://${folders}/{$user_id}`, vcs_subdirectory: '' },
    });
    const times: Record<'head' | 'folder', number[]> = { head: [], folder: [] };
    let failures = 0;
    for (let i = 0; i < WARM_UP + ITERATIONS; i++) {
      // In turns (A B B A …), so that a busy moment of the machine hits both alike.
      const order = i % 2 === 0 ? (['head', 'folder'] as const) : (['folder', 'head'] as const);
      for (const kind of order) {
        const gradeableId = kind === 'head' ? withHead : withoutHead;
        const event = request('POST', `/api/${world.course.term}/${world.course.course}/gradeable/${gradeableId}/upload`, {
          token: world.tokens.submitter,
          form: { vcs_checkout: 'true', git_repo_id: 'none' },
        });
        const started = performance.now();
        const answer = await invoke('submit-vcs', event);
        const elapsed = performance.now() - started;
        if (i < WARM_UP) continue;
        if (answer.status !== 'success') failures++;
        times[kind].push(elapsed);
      }
    }
    const [h50, h99, f50, f99] = [median(times.head), quantile(times.head, 0.99), median(times.folder), quantile(times.folder, 0.99)];
    return {
      section: 'Warm latency (in process)',
      name: "submit-vcs, reading the repository's head (ls-remote of a local git server)",
      target: 'overhead shown',
      baseline: `the same submission to a folder without history (nothing to read): p50 ${ms(f50)}, p99 ${ms(f99)}`,
      measured: `p50 ${ms(h50)}, p99 ${ms(h99)} (${ratio(h50 / f50)}, +${ms(h50 - f50)})${failures ? `; ${failures} calls failed` : ''}`,
      met: failures ? false : undefined,
    };
  } finally {
    if (previous === undefined) delete process.env.FILE_REPOSITORIES_DIR;
    else process.env.FILE_REPOSITORIES_DIR = previous;
    await rm(folders, { recursive: true, force: true });
  }
}
