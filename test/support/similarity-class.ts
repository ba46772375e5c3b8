import { readdirSync, readFileSync } from 'node:fs';

/** The labelled Python task: an original, three disguised copies of it, four independent solutions. */
const TASK = new URL('../fixtures/similarity/python-grades/', import.meta.url);

/** Each file of the task, as the student named after it submits it. */
export const FIXTURES = readdirSync(TASK)
  .sort()
  .map((name) => ({ name, student: name.replace(/\.py$/, ''), content: readFileSync(new URL(name, TASK), 'utf8') }));
/** The original and its disguised copies. */
export const COPIES = ['original', 'copy-renamed', 'copy-reordered', 'copy-deadcode'];
/** The pairs among them, which a run must rank first. */
export const COPY_PAIRS = (COPIES.length * (COPIES.length - 1)) / 2;
