import { existsSync } from 'node:fs';
import { progress, type Row, type SectionResult } from './common.ts';
import { describeWaves, record, waves } from './recorder.ts';
import { scenarios, waveTarget, waveTargetText, type Scenario } from './scenarios.ts';
import { invoke, type Envelope, type World } from './world.ts';

const isSuccess = (answer: Envelope) => answer.status === 'success';

const SECTION = 'DynamoDB requests per call';

/** Why an endpoint needs more round trips than its budget, and what would bring it down. */
const explanations: Record<string, string> = {
  'list-courses':
    "the caller's enrollments are a Query of the `byUser` index started alongside the token check; each enrollment item carries a copy of its course's and term's listed fields (shared/data/enrollment-copies.ts), so the Query answers alone: 1. Items without a copy (written before the copies, or while a change is under way) add a BatchGetItem of their courses and terms: 2.",
  'course-users':
    "the course's enrollments are a Query started alongside the token check; each carries a copy of its member's names and e-mail, so the Query answers alone: 1. Items without a copy add a BatchGetItem of those profiles: 2.",
  'course-graders': 'the same reads as `course-users`.',
  'submit-vcs':
    "the submission item, the queue counters, the student's jobs in flight and the course's count this minute are read with the token check: 1. A ticket is then reserved on one queue counter (an UpdateItem that also adds to the course's count this minute, and never fails): 2. One TransactWriteItems writes the version, its job and the student's count: 3. The ticket is what keeps `queue_position` exact at any length without the transactions of a rush conflicting on one counter; a ticket costing nothing would need the job keyed by arrival time and its position counted at read time (bench/RESULTS.md, Deadline rush). On team gradeables the team membership is a read more.",
  'create-course':
    "the head instructor, the base course, the instructor's enrollment in it, the new course and the term are read with the token check (their keys come from the body, parsed right after the JWT), then one TransactWriteItems: 2. A head instructor who is staff of the base course only through its access group costs one Query more.",
  'list-summaries':
    "the page is read alongside the token check from the course's first summary (or the cursor's), before the course names its generation: 1 round trip. When an older generation is still stored (a run whose clean-up failed), the page is read again by its generation: 2.",
  'user-summary':
    'the current summary is read by its `latest#<userId>` copy with the token check: 1. Until that copy lands after a generation switch, the summary is read by its generation once the course names it: 2.',
  'generate-summaries': 'a batch job: it pages through enrollments, gradeables and submissions; see the scale section.',
  regrade:
    "the gradeable, the queue counters and the student the body names (their enrollment, submission and team membership) are read with the token check, then one TransactWriteItems takes the tickets and writes the jobs, the versions and the regrade: 2 (on team gradeables the team's submission is a read more: 3). Every active version: the gradeable's submissions are a Query alongside the token check, then a transaction per chunk of versions: see the scale section.",
  'student-late-days':
    "the course's gradeables, the student's own submissions (the `byStudent` index of Submissions) and their team entries (the `byStudent` index of Teams, which carry copies of their teams' active versions) are three Queries alongside the token check: 1.",
  'ta-grade':
    "the grade's audit trail is a Query alongside the token check (which reads the gradeable, the student, their submission and team membership): 1. On team gradeables the team's submission and audit trail are read together once the team is known: 2.",
};

export async function measureRequests(world: World): Promise<SectionResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const scenario of scenarios(world)) {
    progress(`requests: ${scenario.route}`);
    rows.push(await measureOne(scenario, notes));
  }
  return { rows, notes };
}

async function measureOne(scenario: Scenario, notes: string[]): Promise<Row> {
  const target = waveTarget[scenario.kind];
  const base = { section: SECTION, name: scenario.route, target: waveTargetText[scenario.kind], baseline: '—' };
  if (!existsSync(`functions/${scenario.route}/handler.ts`)) return { ...base, measured: 'handler not written yet', met: undefined };
  await invoke(scenario.route, await scenario.prepare(0)); // warm: lazy initialisation is not per call
  const event = await scenario.prepare(1);
  const { value: answer, requests } = await record(() => invoke(scenario.route, event));
  if (!(scenario.ok ?? isSuccess)(answer)) {
    return { ...base, measured: `call failed: ${answer.message ?? answer.status}`, met: false };
  }
  const trips = waves(requests).length;
  const met = target === undefined ? undefined : trips <= target;
  if (met === false) {
    notes.push(
      `- **${scenario.route}** (${trips} round trips, budget ${target}): ${explanations[scenario.route] ?? describeWaves(requests)}`,
    );
  }
  return {
    ...base,
    measured: `${requests.length} request${requests.length === 1 ? '' : 's'}, ${trips} round trip${trips === 1 ? '' : 's'}: ${describeWaves(requests)}`,
    met,
  };
}
