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
    "the caller's enrollments come from a Query of the `byUser` index, and only then are their courses and terms known for a BatchGetItem; the token check cannot fold either in, since it does not know the keys. It would take denormalising course name, archive flag and term into the enrollment item (kept in step on course/term changes), so one Query after the token check answers: 2 round trips.",
  'course-users':
    "the course's enrollments are a Query, then every member's profile a BatchGetItem (keys known only from the Query). It would take copying the profile fields into the enrollment items (updated with the profile) to end after the Query: 2 round trips. A Query cannot be folded into the token check's BatchGetItem.",
  'course-graders':
    'the same reads as `course-users` (Query of enrollments, then BatchGetItem of profiles); the same denormalisation would bring it to 2.',
  'list-gradeables':
    "the course's gradeables are a Query (the token check's BatchGetItem cannot hold a Query), so 2 round trips is the floor with this table layout; 1 would take keeping a per-course gradeable index item that the token check reads with everything else.",
  'submit-vcs':
    'after the token check, the submission item and the queue counters are read in a second BatchGetItem (they give the next version and ticket), then the TransactWriteItems writes. Declaring the submission and queue as `reads` of the endpoint (as `values` does) would fold that read into the token check: 2 round trips, with the existing retry loop re-reading only after a lost race.',
  'create-course':
    "after the token check, a second BatchGetItem reads the head instructor, the base course, the instructor's enrollment in it, the new course (must not exist) and the term, then the transaction writes. All five keys come from the body, so they cannot be declared as `reads` (which see only path, query and caller); it would take letting `reads` see the parsed body to fold them into the token check: 2 round trips.",
  'list-summaries':
    "the summaries of the current generation are a Query, and the generation is only known from the course item the token check reads. A Query cannot join the token check's BatchGetItem, so 2 round trips is the floor unless the summaries are kept in one item (or a few, read by key).",
  'user-summary':
    "the summary's key holds the course's current generation, known only once the token check has read the course, so a second BatchGetItem follows. It would take keying the current summary by user alone (e.g. a `current#<userId>` copy written at the switch) so `reads` can declare it: 1 round trip.",
  'generate-summaries': 'a batch job: it pages through enrollments, gradeables and submissions; see the scale section.',
  regrade:
    "after the token check (which reads the gradeable and the queue counters), the student named in the body is read with their submission in a second BatchGetItem (their enrollment, and on team gradeables their team, whose submission is a third), then one TransactWriteItems takes the tickets and writes the jobs, the versions and the regrade: 3 round trips. The body's user_id cannot be declared as `reads` (which see only path, query and caller); letting `reads` see the parsed body would fold it into the token check: 2. Every active version is a Query of the submissions and a transaction per 49 versions: see the scale section.",
  'student-late-days':
    "a student's late days depend on every Electronic File gradeable of the course: after the token check (which reads the student's enrollment and late-day item), the course's gradeables are a Query, then the student's submissions of them a BatchGetItem whose keys the Query gives (and, on team gradeables, the team's submissions a third): 3 round trips. Fewer would take keeping each student's charges on their late-day item, updated by every submission, version choice, grant and extension.",
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
