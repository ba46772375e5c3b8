import fc from 'fast-check';
import { repositoryTypes, syllabusBuckets } from '#shared/gradeables/gradeable.ts';

const text = (max: number) => fc.string({ maxLength: max });
const instant = (from: number, to: number) => fc.integer({ min: from, max: to }).map((seconds) => new Date(seconds * 1000).toISOString());

/** Ordered dates (each an offset in seconds from the one before), as ISO instants. */
const orderedDates = fc
  .tuple(fc.integer({ min: 0, max: 4_000_000_000 }), fc.array(fc.integer({ min: 0, max: 30 * 86_400 }), { minLength: 8, maxLength: 8 }))
  .map(([start, steps]) => {
    const at = steps
      .reduce<number[]>((list, step) => [...list, (list.at(-1) ?? start) + step], [start])
      .map((seconds) => new Date(seconds * 1000).toISOString());
    const [taView, open, due, gradeStart, gradeDue, released, inquiryStart, inquiryDue] = at as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    return { taView, open, due, gradeStart, gradeDue, released, inquiryStart, inquiryDue };
  });

const component = fc
  .tuple(fc.integer({ min: -20, max: 20 }), fc.integer({ min: 0, max: 40 }), fc.nat(), fc.nat())
  .chain(([lower, span, a, b]) => {
    const upper = lower + span;
    const clamp = (n: number) => lower + (n % (span + 1));
    return fc.record({
      title: text(40),
      ta_comment: text(40),
      student_comment: text(40),
      lower_clamp: fc.constant(lower),
      default: fc.constant(clamp(a)),
      max_value: fc.constant(Math.max(0, clamp(b))),
      upper_clamp: fc.constant(Math.max(upper, Math.max(0, clamp(b)))),
      text: fc.boolean(),
      peer_component: fc.boolean(),
      page: fc.integer({ min: -1, max: 20 }),
      is_itempool_linked: fc.boolean(),
      itempool: text(10),
      marks: fc.array(fc.record({ points: fc.integer({ min: -span, max: span }), title: text(30), publish: fc.boolean() }), {
        maxLength: 4,
      }),
    });
  })
  .filter((c) => c.max_value <= c.upper_clamp && c.max_value >= c.lower_clamp);

const testCases = fc.uniqueArray(
  fc.record({
    name: fc.string({ minLength: 1, maxLength: 20 }).filter((name) => name.trim() !== ''),
    details: text(30),
    command: fc.constantFrom('sh run.sh', 'make test', 'python3 main.py < input.txt'),
    points_available: fc.integer({ min: 0, max: 100 }),
    is_extra_credit: fc.boolean(),
    is_hidden: fc.boolean(),
    timeout_seconds: fc.integer({ min: 1, max: 600 }),
    expect: fc.oneof(
      fc.record({ exit_code: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ stdout: text(40) }),
      fc.record({ stdout_contains: text(20), files_exist: fc.array(fc.constantFrom('a.out', 'out/result.txt'), { maxLength: 2 }) }),
    ),
  }),
  { minLength: 1, maxLength: 5, selector: (test) => test.name },
);

/** Valid gradeable JSON documents of every type, with ISO 8601 dates. */
export const gradeableDocument = fc.oneof(
  fc.record({
    id: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
    title: fc.string({ minLength: 1, maxLength: 60 }),
    type: fc.constant('Electronic File'),
    instructions_url: fc.constantFrom('', 'https://example.edu/hw.pdf'),
    syllabus_bucket: fc.constantFrom(...syllabusBuckets),
    autograding_config_path: text(30),
    bulk_upload: fc.boolean(),
    team_gradeable: fc.option(fc.record({ team_size_max: fc.integer({ min: 1, max: 10 }), inherit_from: fc.constantFrom('', 'hw0') }), {
      nil: undefined,
    }),
    ta_grading: fc.boolean(),
    grade_inquiries: fc.boolean(),
    grade_inquiry_per_component_allowed: fc.boolean(),
    vcs: fc.option(
      fc.record({
        repository_type: fc.constantFrom(...repositoryTypes),
        vcs_path: fc.constantFrom('https://git.example.edu/{$user_id}', 'https://github.com/org/hw'),
        vcs_subdirectory: fc.constantFrom('', 'src', 'hw/1'),
      }),
      { nil: undefined },
    ),
    dates: fc
      .tuple(orderedDates, instant(0, 4_000_000_000), fc.boolean(), fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 30 }))
      .map(([d, teamLock, hasDue, hasRelease, late, lateDays]) => ({
        ta_view_start_date: d.taView,
        submission_open_date: d.open,
        submission_due_date: d.due,
        grade_start_date: d.gradeStart,
        grade_due_date: d.gradeDue,
        grade_released_date: d.released,
        grade_inquiry_start_date: d.inquiryStart,
        grade_inquiry_due_date: d.inquiryDue,
        team_lock_date: teamLock,
        has_due_date: hasDue,
        has_release_date: hasRelease,
        late_submission_allowed: late,
        late_days: lateDays,
      })),
    rubric: fc.array(component, { maxLength: 4 }),
    autograding: fc.option(fc.record({ test_cases: testCases }), { nil: undefined }),
  }),
  fc.record({
    id: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
    title: fc.string({ minLength: 1, maxLength: 60 }),
    type: fc.constantFrom('Checkpoints', 'Numeric'),
    instructions_url: fc.constantFrom('', 'http://example.edu/lab'),
    syllabus_bucket: fc.constantFrom(...syllabusBuckets),
    autograding_config_path: text(30),
    dates: orderedDates.map((d) => ({
      ta_view_start_date: d.taView,
      grade_start_date: d.gradeStart,
      grade_due_date: d.gradeDue,
      grade_released_date: d.released,
    })),
    rubric: fc.array(component, { maxLength: 4 }),
  }),
);

/** Drops the keys whose value is undefined (as JSON would). */
export const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
