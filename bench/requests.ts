import { existsSync } from 'node:fs';
import type { RouteName } from '#functions/definitions.ts';
import { progress, type Row, type SectionResult } from './common.ts';
import { describeWaves, record, waves } from './recorder.ts';
import { measureValuesReads } from './standing.ts';
import { scenarios, waveTarget, waveTargetText, type Scenario } from './scenarios.ts';
import { invoke, type Envelope, type World } from './world.ts';

const isSuccess = (answer: Envelope) => answer.status === 'success';

const SECTION = 'DynamoDB requests per call';

/** Why an endpoint needs more round trips than its budget, and what would bring it down. */
const explanations: Partial<Record<RouteName, string>> = {
  'list-courses':
    "the caller's enrollments are a Query of the `byUser` index started alongside the token check; each enrollment item carries a copy of its course's and term's listed fields (shared/data/enrollment-copies.ts), so the Query answers alone: 1. Items without a copy (written before the copies, or while a change is under way) add a BatchGetItem of their courses and terms: 2.",
  'course-users':
    "the course's enrollments are a Query started alongside the token check; each carries a copy of its member's names and e-mail, so the Query answers alone: 1. Items without a copy add a BatchGetItem of those profiles: 2.",
  'course-graders': 'the same reads as `course-users`.',
  'submit-vcs':
    "the submission item, the student's jobs in flight and the course's two queue counters of the minute (its count of first-lane submissions this minute) are read with the token check, 9 items (10 with an Idempotency-Key): 1. A ticket drawn from the clock is then added to one queue counter's set without reading the queue (an UpdateItem that also adds to the course's count this minute, refused only by the same ticket drawn in the same millisecond): 2. One TransactWriteItems writes the version, its job and the student's count: 3. The ticket is what keeps `queue_position` exact at any length (the number of queued tickets below it, over the 16 counters `values` reads) without the transactions of a rush conflicting on one counter; a ticket costing nothing would need the job keyed by arrival time and its position counted at read time (bench/RESULTS.md, Deadline rush). On team gradeables the team membership is a read more.",
  'create-course':
    "the head instructor, the base course, the instructor's enrollment in it, the new course and the term are read with the token check (their keys come from the body, parsed right after the JWT), then one TransactWriteItems: 2. A head instructor who is staff of the base course only through its access group costs one Query more.",
  'list-summaries':
    "the page is read alongside the token check from the course's first summary (or the cursor's), before the course names its generation: 1 round trip. When an older generation is still stored (a run whose clean-up failed), the page is read again by its generation: 2.",
  'user-summary':
    'the current summary is read by its `latest#<userId>` copy with the token check: 1. Until that copy lands after a generation switch, the summary is read by its generation once the course names it: 2.',
  'generate-summaries': 'a batch job: it pages through enrollments, gradeables and submissions; see the scale section.',
  regrade:
    "the gradeable and the student the body names (their enrollment, submission and team membership) are read with the token check, then one TransactWriteItems adds the tickets (drawn from the clock, in a row on one queue counter) and writes the jobs, the versions and the regrade: 2 (on team gradeables the team's submission is a read more: 3). Every active version: the gradeable's submissions are a Query alongside the token check, then a transaction per chunk of versions: see the scale section.",
  'student-late-days':
    "the course's gradeables, the student's own submissions (the `byStudent` index of Submissions) and their team entries (the `byStudent` index of Teams, which carry copies of their teams' active versions) are three Queries alongside the token check: 1.",
  'create-webhook':
    "the course's webhooks are counted (a Query) once the token check answered, then one TransactWriteItems writes the webhook, its secret and the course's count: 3. The Query started alongside the token check (as `course-users` starts its own) would make it 2.",
  'replay-webhook-delivery':
    'the restart and its first attempt are one TransactWriteItems (the attempt held in the outbox); once the attempt is queued its outbox entry is deleted: 3. The outbox is what keeps an attempt from being lost when the queue refuses it.',
  'set-course-config':
    "a change of a field the enrollments copy (course_name) goes in steps: the course marks the change, the copies on every enrollment are updated (a Query and an UpdateItem each), then the change is finished and its audit entry written, the copies settled: linear in the course's members, by design, so that no reader sees a course half changed.",
  'archive-course': 'the same steps as `set-course-config`: `archived` is copied onto every enrollment.',
  'unarchive-course': 'the same steps as `set-course-config`.',
  'update-user':
    "the profile's copies on the user's enrollments (the users and graders lists) follow a change of names, in steps as a course's: linear in the user's enrollments.",
  'enroll-member':
    'one TransactWriteItems writes the membership with its copies of the course, term and profile; then the copies are settled (a strongly consistent BatchGetItem of their sources), so that a change of the course finished meanwhile never leaves a stale copy: 3.',
  'drop-member': 'the same as `enroll-member`: the membership written, then its copies settled: 3.',
  'change-password':
    "the current password is checked as a login checks it, after the token check: the account is read (GetItem), then the attempt is counted (PutItem) as the credentials are read (Query), then one TransactWriteItems writes the new password, the new session and the audit entry: 4, a login's 3 (`issue-token`) after the token check. The account read in the token check's BatchGetItem would make it 3.",
  'list-webhooks':
    "the Query of the course's webhooks waits for the token check; started alongside it (`alongside`, as `course-users` does) it would be 1.",
  'list-webhook-deliveries': 'the Query of the deliveries waits for the token check; started alongside it it would be 1.',
  'list-teams': "the Query of the gradeable's teams waits for the token check; started alongside it it would be 1.",
  'list-users': 'the Scan of the accounts waits for the token check; started alongside it it would be 1.',
  'get-user': 'the account (GetItem) is read once the token check answered; read in its BatchGetItem (`reads`) it would be 1.',
  'list-terms': 'the Scan of the terms waits for the token check; started alongside it it would be 1.',
  'user-audit': "the Query of the user's audit trail waits for the token check; started alongside it it would be 1.",
  'course-audit': "the Query of the course's audit trail waits for the token check; started alongside it it would be 1.",
  'link-identity':
    "the account is read (GetItem) once the token check answered, then one TransactWriteItems links it and writes the audit entry: 3; read in the token check's BatchGetItem (`reads`) it would be 2.",
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
  rows.push(
    await measureValuesReads(
      world,
      `/api/${world.course.term}/${world.course.course}/gradeable/${world.gradeableId}/values`,
      world.tokens.student,
    ),
  );
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
