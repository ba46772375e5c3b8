import { readClassList } from '#shared/courses/class-list.ts';
import { importClassList } from '#shared/courses/enroll.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { claimJob } from '#shared/queue/claim.ts';
import { progress, ratio, type Row, type SectionResult } from './common.ts';
import { createWorld, invoke, request, sessionToken, vcsGradeable, type World } from './world.ts';

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

type WithTables = <T>(prefix: string, body: () => Promise<T>) => Promise<T>;

const SECTION = 'Fair grading';
const CLASS = 30;
const FLOOD_GRADEABLES = 3;
const FLOOD_VERSIONS = 10;
/** The class's places with the flood ahead: at most this many more than without it, on average. */
const TARGET_EXTRA = 1;

interface Case {
  /** Each class member's queue_position right after the class submitted. */
  readonly positions: number[];
  /** Each class member's jobs taken by workers before theirs (the wait, in jobs). */
  readonly ahead: number[];
  /** The flood's submissions accepted, and its jobs the workers took. */
  readonly flood: { accepted: number; graded: number };
}

/**
 * A class of 30 students each submitting once, through the submit handler in this process, with
 * and without a flood just before it: one student (not in the class) submitting 10 versions of
 * each of 3 gradeables at once. Each case has its own tables; after the class submits, every
 * member's `queue_position` is read, then a worker takes every job, which gives each member's wait
 * in jobs (the jobs taken before theirs) and checks the positions were exact for the order used.
 */
export async function measureFairness(withTables: WithTables): Promise<SectionResult> {
  const quiet = await withTables('fair-quiet-', () => runCase(false));
  const flooded = await withTables('fair-flood-', () => runCase(true));
  const rows: Row[] = [];
  const notes: string[] = [];
  const describe = (item: Case) =>
    `positions mean ${mean(item.positions).toFixed(1)}, max ${Math.max(...item.positions)}; jobs taken before theirs mean ${mean(item.ahead).toFixed(1)}, max ${Math.max(...item.ahead)}`;
  const exact = (item: Case) => item.positions.every((position, index) => position === (item.ahead[index] ?? -2) + 1);
  rows.push({
    section: SECTION,
    name: `baseline: a class of ${CLASS} submits once each, queue otherwise empty`,
    target: '—',
    baseline: '—',
    measured: describe(quiet),
    met: undefined,
  });
  const extra = mean(flooded.positions) - mean(quiet.positions);
  const met = extra <= TARGET_EXTRA && exact(quiet) && exact(flooded);
  rows.push({
    section: SECTION,
    name: `the same class just after one student submitted ${FLOOD_VERSIONS} versions of each of ${FLOOD_GRADEABLES} gradeables at once`,
    target: `class's mean position ≤ baseline + ${TARGET_EXTRA}; positions exact (a job's position − 1 = jobs taken before it)`,
    baseline: `no flood: mean position ${mean(quiet.positions).toFixed(1)}`,
    measured: `${describe(flooded)} (mean position ${ratio(mean(flooded.positions) / mean(quiet.positions))}); the flood: ${flooded.flood.accepted} of ${FLOOD_GRADEABLES * FLOOD_VERSIONS} accepted, ${flooded.flood.graded} jobs graded, the rest superseded`,
    met,
  });
  if (!exact(quiet) || !exact(flooded))
    notes.push('- **Fair grading**: a queue_position differed from the jobs the worker took before it.');
  if (extra > TARGET_EXTRA) notes.push(`- **Fair grading**: the flood put the class ${extra.toFixed(1)} places back on average.`);
  return { rows, notes };
}

async function runCase(flood: boolean): Promise<Case> {
  progress(`fairness: a class of ${CLASS}${flood ? ' after a flood' : ''} (setting up)`);
  const world = await createWorld({ submit: false });
  const others = await Promise.all(
    Array.from({ length: FLOOD_GRADEABLES - 1 }, (_, index) => uploadGradeable(world.course, vcsGradeable(`hw_flood${index}`))),
  );
  const members = await enroll(world, CLASS);
  let accepted = 0;
  if (flood) {
    progress('fairness: the flood');
    const answers = await Promise.all(
      [world.gradeableId, ...others].flatMap((gradeableId) =>
        Array.from({ length: FLOOD_VERSIONS }, () => invoke('submit-vcs', upload(world, gradeableId, world.tokens.submitter))),
      ),
    );
    accepted = answers.filter((answer) => answer.status === 'success').length;
  }
  progress('fairness: the class submits');
  const answers = await Promise.all(members.map(({ token }) => invoke('submit-vcs', upload(world, world.gradeableId, token))));
  const failed = answers.filter((answer) => answer.status !== 'success');
  if (failed.length > 0) throw new Error(`bench: ${failed.length} class submissions failed: ${JSON.stringify(failed[0])}`);
  const { course, gradeableId } = world;
  const positions = await Promise.all(
    members.map(async ({ token }) => {
      const values = await invoke(
        'gradeable-values',
        request('GET', `/api/${course.term}/${course.course}/gradeable/${gradeableId}/values`, { token }),
      );
      return (values.data as { queue_position: number }).queue_position;
    }),
  );
  const order: string[] = [];
  for (let job = await claimJob(); job; job = await claimJob()) order.push(job.ownerId);
  return {
    positions,
    ahead: members.map(({ userId }) => order.indexOf(userId)),
    flood: { accepted, graded: order.filter((owner) => owner === world.users.submitter.userId).length },
  };
}

const upload = (world: World, gradeableId: string, token: string) =>
  request('POST', `/api/${world.course.term}/${world.course.course}/gradeable/${gradeableId}/upload`, {
    token,
    form: { vcs_checkout: 'true', git_repo_id: 'none' },
  });

async function enroll(world: World, count: number): Promise<{ userId: string; token: string }[]> {
  const csv = [
    'user_id,first_name,last_name,email,registration_section,group',
    ...Array.from({ length: count }, (_, i) => `fair${i},First${i},Last${i},fair${i}@example.edu,1,4`),
  ].join('\n');
  await importClassList(world.course, readClassList(csv), { actor: 'admin' });
  return Promise.all(Array.from({ length: count }, async (_, i) => ({ userId: `fair${i}`, token: await sessionToken(`fair${i}`) })));
}
