/**
 * Similarity runs over versions submitted from git repositories beside uploaded ones: a class that
 * uploaded files until its instructor moved the gradeable to git, the rest submitting from their
 * repositories (the commit bound at submission). The worker checks each repository version's recorded commit out of the
 * test git server (the grading's checkout and address guard), compares exactly the gradeable's
 * subdirectory, keeps the compared text for the pairs' passages, and skips, saying why, a version
 * whose commit the repository no longer has. The local API over HTTP, the worker in process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createCourseWorld, tokenOf, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { editStoredGradeable, perStudentRepositories, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import type { GitServer } from '../support/git-server.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';
import { closeAll, startAllowedGitServer } from '../support/allowed-servers.ts';
import { COPIES, COPY_PAIRS, FIXTURES } from '../support/similarity-class.ts';

let api: TestApi;
let world: CourseWorld;
let git: GitServer;

/** Submitted from their repositories once the gradeable takes them; the others uploaded files before. */
const FROM_GIT = new Set(['original', 'copy-reordered', FIXTURES.find(({ student }) => !COPIES.includes(student))!.student]);
/** Submitted from git, then replaced its history: its version's commit is gone from the repository. */
const GONE = 'gone';
/** Outside the gradeable's subdirectory: never compared, though a copy of the original. */
const NOISE = 'notes/original-again.py';

const gradeableId = uniqueCode('simgit');
const students = new Map<string, { userId: string; token: Record<string, string> }>();
const fixtureOf = (userId: string) => [...students].find(([, student]) => student.userId === userId)?.[0];
const base = () => `/${world.course.term}/${world.course.course}/gradeable/${gradeableId}`;

interface Side {
  owner: string;
  version: number;
}
interface Pair {
  pair_id: string;
  left: Side;
  right: Side;
  similarity: number;
}
interface Run {
  status: string;
  submissions: number;
  skipped: number | null;
  skipped_versions: (Side & { semester: string; course: string; gradeable_id: string; reason: string })[];
  fingerprints_reused: number;
  pairs: Pair[];
}

async function runToEnd(): Promise<{ runId: string; data: Run }> {
  const posted = await api.postJson(`${base()}/similarity`, {}, { ...world.tokens.instructor, Prefer: 'http-status' });
  expect(posted.httpStatus, posted.text).toBe(202);
  const runId = posted.json.data.run_id as string;
  for (let attempt = 0; attempt < 1200; attempt++) {
    const answer = await api.get(`${base()}/similarity/${runId}?page_size=500`, world.tokens.instructor);
    expect(answer.json.status, answer.text).toBe('success');
    if (answer.json.data.status === 'done' || answer.json.data.status === 'failed') {
      expect(answer.json.data.status, answer.text).toBe('done');
      return { runId, data: answer.json.data as Run };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} did not end`);
}

const repositoryOf = (userId: string) => `${gradeableId}-${userId}`;

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  for (const student of [...FIXTURES.map(({ student }) => student), GONE]) {
    const user = await createUser('user', student);
    await addMember(world.course, user, 4, '1');
    students.set(student, { userId: user.userId, token: { Authorization: await tokenOf(api, user) } });
  }
  const original = FIXTURES.find(({ student }) => student === 'original')!;
  const repositories = Object.fromEntries([
    ...FIXTURES.filter(({ student }) => FROM_GIT.has(student)).map(({ name, student, content }) => [
      repositoryOf(students.get(student)!.userId),
      { [`hw/${name}`]: content, ...(student === 'original' ? {} : { [NOISE]: original.content }) },
    ]),
    [repositoryOf(students.get(GONE)!.userId), { 'hw/solution.py': original.content }],
  ]);
  git = await startAllowedGitServer(repositories);
  const { vcs, ...uploads } = selfHostedGradeableJson(gradeableId, perStudentRepositories(git.url));
  await uploadGradeable(api, world, uploads);
  for (const { name, student, content } of FIXTURES.filter(({ student }) => !FROM_GIT.has(student))) {
    const form = new FormData();
    form.append('files', new Blob([content]), name);
    const answer = await api.call('POST', `${base()}/files`, { headers: students.get(student)!.token, body: form });
    expect(answer.json.status, answer.text).toBe('success');
  }
  // The instructor moves the gradeable to git, its submissions in the repositories' hw/: the rest of the class submits from git.
  await editStoredGradeable(world.course, gradeableId, (document) => {
    document.vcs = { ...(vcs as object), vcs_subdirectory: 'hw' };
  });
  for (const student of [...FROM_GIT, GONE]) {
    const answer = await api.postForm(`${base()}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, students.get(student)!.token);
    expect(answer.json.status, answer.text).toBe('success');
  }
  await git.push(repositoryOf(students.get(GONE)!.userId), { 'hw/solution.py': 'print(1)\n' }, { replaceHistory: true });
}, 180_000);

afterAll(() => closeAll(api, git));

describe('a similarity run over a class mixing repository and uploaded submissions', () => {
  it("ranks the disguised copies first across both kinds, compares only the gradeable's subdirectory, and skips a commit gone from its repository, saying why", async () => {
    const { data } = await runToEnd();
    expect(data.submissions).toBe(FIXTURES.length);
    const top = data.pairs.slice(0, COPY_PAIRS).map((pair) => [fixtureOf(pair.left.owner), fixtureOf(pair.right.owner)]);
    expect(top.filter((names) => names.every((name) => name !== undefined && COPIES.includes(name)))).toHaveLength(COPY_PAIRS);
    // Among them the original from git with its copies uploaded, and a copy from git with an uploaded one.
    expect(top).toContainEqual(expect.arrayContaining(['original', 'copy-renamed']));
    expect(top).toContainEqual(expect.arrayContaining(['copy-reordered', 'copy-deadcode']));
    // The independent solution from git would rank with the original had its notes/ copy been compared.
    expect(data.pairs[COPY_PAIRS]!.similarity).toBeLessThan(data.pairs[COPY_PAIRS - 1]!.similarity / 2);
    expect(data.skipped).toBe(1);
    expect(data.skipped_versions).toEqual([
      {
        owner: students.get(GONE)!.userId,
        version: 1,
        semester: world.course.term,
        course: world.course.course,
        gradeable_id: gradeableId,
        reason: expect.stringMatching(/^Its repository could not be read: .*no longer/),
      },
    ]);
  });

  it("shows a pair's passages from the repository's commit as from the uploaded files, and a later run fetches no repository again", async () => {
    const { runId, data } = await runToEnd();
    const pair = data.pairs.find(
      (one) => [fixtureOf(one.left.owner), fixtureOf(one.right.owner)].sort().join() === 'copy-renamed,original',
    )!;
    const detail = await api.get(`${base()}/similarity/${runId}/pairs/${pair.pair_id}`, world.tokens.instructor);
    expect(detail.json.status, detail.text).toBe('success');
    const originalLines = FIXTURES.find(({ student }) => student === 'original')!.content.split('\n');
    const fragments = detail.json.data.fragments as {
      left: { path: string; first_line: number; lines: string[] | null };
      right: (typeof fragments)[0]['left'];
    }[];
    expect(fragments.length).toBeGreaterThan(0);
    for (const fragment of fragments) {
      const fromGit = fixtureOf(pair.left.owner) === 'original' ? fragment.left : fragment.right;
      expect(fromGit.path).toBe('original.py');
      expect(fromGit.lines).toEqual(originalLines.slice(fromGit.first_line - 1, fromGit.first_line - 1 + fromGit.lines!.length));
      expect((fromGit === fragment.left ? fragment.right : fragment.left).lines).not.toBeNull();
    }
    const connections = git.connections();
    const again = await runToEnd();
    // Every compared version's fingerprints as stored: no repository was read again.
    expect(again.data.fingerprints_reused).toBe(FIXTURES.length);
    expect(again.data.pairs.slice(0, COPY_PAIRS).map(({ similarity }) => similarity)).toEqual(
      data.pairs.slice(0, COPY_PAIRS).map(({ similarity }) => similarity),
    );
    // The skipped version is tried again (its repository may be back), and nothing else.
    expect(git.connections() - connections).toBeLessThanOrEqual(4);
  });
});
