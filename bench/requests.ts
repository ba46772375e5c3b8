import { existsSync } from 'node:fs';
import { progress, type Row, type SectionResult } from './common.ts';
import { describeWaves, record, waves } from './recorder.ts';
import { scenarios, unscripted, waveTarget, waveTargetText, type Scenario } from './scenarios.ts';
import { invoke, type Envelope, type World } from './world.ts';

const isSuccess = (answer: Envelope) => answer.status === 'success';

const SECTION = 'DynamoDB requests per call';

/** Why an endpoint needs more round trips than its budget, and what would bring it down. */
const explanations: Record<string, string> = {
  'list-courses':
    "the caller's enrollments are a Query of the `byUser` index started alongside the token check, but their courses and terms are a BatchGetItem whose keys only that Query gives: 2 round trips. One would take copying the course's display name, archive flag and term (name, start) onto each enrollment item, kept in step when a course is archived or a term renamed, so that the Query alone answers.",
  'course-users':
    "the course's enrollments are a Query started alongside the token check, then every member's profile a BatchGetItem whose keys only the Query gives: 2 round trips. One would take copying the profile's names and e-mail onto the member's enrollment items, kept in step wherever a profile changes (a class-list import updates users enrolled in other courses too).",
  'course-graders':
    'the same reads as `course-users` (a Query alongside the token check, then the profiles); the same copy would bring it to 1.',
  'submit-vcs':
    'after the token check, the submission item and the queue counters are read in a second BatchGetItem (they give the next version and ticket), then the TransactWriteItems writes. Declaring the submission and queue as `reads` of the endpoint (as `values` does) would fold that read into the token check: 2 round trips, with the existing retry loop re-reading only after a lost race.',
  'create-course':
    "the head instructor, the base course, the instructor's enrollment in it, the new course and the term are read with the token check (their keys come from the body, parsed right after the JWT), then one TransactWriteItems: 2. A head instructor who is staff of the base course only through its access group costs one Query more.",
  'list-summaries':
    "the page is read alongside the token check from the course's first summary (or the cursor's), before the course names its generation: 1 round trip. When an older generation is still stored (a run whose clean-up failed), the page is read again by its generation: 2.",
  'user-summary':
    "the summary's key holds the course's current generation, known only once the token check has read the course, so a second BatchGetItem follows. It would take keying the current summary by user alone (e.g. a `current#<userId>` copy written at the switch, in shared/summaries/generate.ts) so `reads` can declare it: 1 round trip.",
  'generate-summaries': 'a batch job: it pages through enrollments, gradeables and submissions; see the scale section.',
  regrade:
    "the gradeable, the queue counters and the student the body names (their enrollment, submission and team membership) are read with the token check, then one TransactWriteItems takes the tickets and writes the jobs, the versions and the regrade: 2 (on team gradeables the team's submission is a read more: 3). Every active version: the gradeable's submissions are a Query alongside the token check, then a transaction per chunk of versions: see the scale section.",
  'student-late-days':
    "a student's late days depend on every Electronic File gradeable of the course: the course's gradeables are a Query alongside the token check (which reads the student's enrollment and late-day item), then the student's submissions of them a BatchGetItem whose keys the Query gives (and, on team gradeables, the team's submissions a third): 2 round trips. One would take keeping each student's charges on their late-day item, updated by every submission, version choice, grant and extension.",
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
  for (const route of unscripted(world)) {
    rows.push({
      section: SECTION,
      name: route,
      target: '—',
      baseline: '—',
      measured: 'no scenario in bench/scenarios.ts yet',
      met: undefined,
    });
  }
  return { rows, notes };
}

async function measureOne(scenario: Scenario, notes: string[]): Promise<Row> {
  const target = waveTarget[scenario.kind];
  const base = { section: SECTION, name: scenario.route, target: waveTargetText[scenario.kind], baseline: '—' };
  if (!existsSync(`functions/${scenario.route}.ts`)) return { ...base, measured: 'handler not written yet', met: undefined };
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
