/** The deployed day's steps of `create-similarity-run` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, FILES, GRADEABLE, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

/** A short Python program: two copies of it are a pair, whatever else the students handed in. */
const GRADES_PY = [
  'def mean(marks):',
  '    total = 0',
  '    for mark in marks:',
  '        total += mark',
  '    return total / len(marks)',
  '',
  'def letter(score):',
  '    if score >= 90:',
  "        return 'A'",
  '    if score >= 80:',
  "        return 'B'",
  "    return 'C'",
  '',
  'print(letter(mean([int(word) for word in input().split()])))',
  '',
].join('\n');

export const day: RouteDay = [
  {
    title:
      'both students hand in the same Python; the instructor asks for a similarity report of the files gradeable: queued (202) for the summaries worker; the grader is refused',
    phase: 'similarity compared',
    run: async () => {
      for (const as of ['student', 'student2'] as const)
        await call('POST', `/api/${TERM}/${COURSE}/gradeable/${FILES}/files`, { as, files: { 'grades.py': GRADES_PY } });
      const path = `/api/${TERM}/${COURSE}/gradeable/${FILES}/similarity`;
      const posted = await call('POST', path, { as: 'prof', json: {}, successStatus: 202 });
      const data = posted.json?.data as { run_id?: string; status?: string } | undefined;
      if (data && (!data.run_id || data.status !== 'queued')) fail('similarity run', posted.text.slice(0, 500));
      handedOn.similarityRun = data?.run_id;
      await call('POST', path, { as: 'ta', json: {}, expect: { fail: "You don't have access to this endpoint.", status: 403 } });
    },
  },
  {
    title: 'the instructor asks for a similarity report of the gradeable the students submitted from git: queued (202)',
    phase: 'similarity compared',
    run: async () => {
      const posted = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/similarity`, {
        as: 'prof',
        json: {},
        successStatus: 202,
      });
      const data = posted.json?.data as { run_id?: string; status?: string } | undefined;
      if (data && (!data.run_id || data.status !== 'queued')) fail('similarity run of git versions', posted.text.slice(0, 500));
      handedOn.repositorySimilarityRun = data?.run_id;
    },
  },
];
