import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Endpoint } from '#infra/local/s3-endpoint.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { putObject } from '#shared/storage/objects.ts';
import { makeZip } from '../test/support/zip.ts';
import { median, ms, progress, ratio, type Row, type SectionResult } from './common.ts';
import { multipartEvent } from './scenarios.ts';
import { createWorld, invoke, request, type World } from './world.ts';

const SECTION = 'Submitting files';
const SMALL_SAMPLES = 20;
const LARGE_SAMPLES = 3;
const LARGE_BYTES = 50 * 1024 * 1024;
const SMALL_FILE = Buffer.from('#include <iostream>\nint main() { std::cout << "Hello, World!" << std::endl; return 0; }\n'.repeat(20));

async function timed(body: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await body();
  return performance.now() - start;
}

/** The most the process's resident memory grew while `body` ran (sampled every 5 ms), in MiB. */
async function peakGrowth(body: () => Promise<void>): Promise<number> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    await body();
  } finally {
    clearInterval(sampler);
  }
  return (Math.max(peak, process.memoryUsage().rss) - before) / 2 ** 20;
}

/**
 * POST …/files in process (the handler as Lambda runs it) against the local S3 endpoint: a small
 * multipart submission, and a 50 MB archive through the presigned flow (declare, POST the form to
 * S3, confirm, which reads the archive back to check it), each against a plain S3 PUT of the same
 * bytes to the same endpoint.
 */
export async function measureFiles(withTables: <T>(prefix: string, body: () => Promise<T>) => Promise<T>): Promise<SectionResult> {
  const directory = await mkdtemp(join(tmpdir(), 'bench-s3-'));
  const s3 = await startS3Endpoint({ directory, bucket: 'bench-submissions' });
  process.env.S3_ENDPOINT = s3.url;
  process.env.SUBMISSIONS_BUCKET = s3.bucket;
  try {
    return await withTables('files-', async () => {
      progress('files: setting up');
      const world = await createWorld({ submit: false });
      const gradeableId = await uploadGradeable(world.course, filesGradeable());
      return measure(world, gradeableId);
    });
  } finally {
    await s3.close();
    await rm(directory, { recursive: true, force: true });
  }
}

function filesGradeable(): Record<string, unknown> {
  const at = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
  return {
    id: 'files_bench',
    title: 'Files bench',
    type: 'Electronic File',
    dates: { ta_view_start_date: at(-2), submission_open_date: at(-1), submission_due_date: at(7) },
    autograding: { test_cases: [{ name: 'Compiles', command: 'g++ -o /tmp/main main.cpp', expect: { exit_code: 0 } }] },
  };
}

async function measure(world: World, gradeableId: string): Promise<SectionResult> {
  const base = `/api/${world.course.term}/${world.course.course}/gradeable/${gradeableId}`;
  // Staff submitting for a student: neither the student's queued-jobs bound nor the course's burst counts them.
  const token = world.tokens.instructor;
  const forStudent = world.users.student.userId;
  const succeeded = (what: string, answer: { status: string }) => {
    if (answer.status !== 'success') throw new Error(`bench files: ${what} failed: ${JSON.stringify(answer)}`);
  };
  const plainPut = async (key: string, bytes: Buffer) => {
    const { runAsFunction } = await import('#shared/environment.ts');
    const { localFunctionScope } = await import('#infra/local/functions.ts');
    await runAsFunction(localFunctionScope('submit-files'), () => putObject(key, bytes));
  };

  progress(`files: ${SMALL_SAMPLES} small multipart submissions`);
  const small: number[] = [];
  const smallPut: number[] = [];
  const vcs: number[] = [];
  const vcsPath = `/api/${world.course.term}/${world.course.course}/gradeable/${world.gradeableId}/upload`;
  for (let sample = 0; sample < SMALL_SAMPLES; sample++) {
    // The same version transaction, from a repository's head instead of files.
    const fromRepository = request('POST', vcsPath, { token, form: { user_id: forStudent, vcs_checkout: 'true', git_repo_id: 'none' } });
    vcs.push(await timed(async () => succeeded('VCS submission', await invoke('submit-vcs', fromRepository))));
    const withUser = await multipartEvent(`${base}/files`, token, forStudent, SMALL_FILE);
    small.push(await timed(async () => succeeded('multipart', await invoke('submit-files', withUser))));
    smallPut.push(await timed(() => plainPut(`versions/bench/put/${sample}/main.cpp`, SMALL_FILE)));
  }

  progress(`files: ${LARGE_SAMPLES} uploads of 50 MB through presigned POSTs`);
  // Incompressible bytes, stored: the confirmation reads the whole archive through.
  const padding = Buffer.alloc(LARGE_BYTES - 4096);
  for (let index = 0; index < padding.length; index += 4) padding.writeUInt32LE((index * 2_654_435_761) >>> 0, index);
  const archive = makeZip([
    { name: 'main.cpp', content: SMALL_FILE },
    { name: 'data.bin', content: padding, deflate: false },
  ]);
  const large: number[] = [];
  const confirms: number[] = [];
  const largePut: number[] = [];
  const posts: number[] = [];
  let confirmMemory = 0;
  for (let sample = 0; sample < LARGE_SAMPLES; sample++) {
    largePut.push(await timed(() => plainPut(`versions/bench/put/large-${sample}/work.zip`, archive)));
    large.push(
      await timed(async () => {
        const declared = await invoke(
          'file-uploads',
          request('POST', `${base}/files/uploads`, { token, json: { files: [{ name: 'work.zip', size: archive.length }] } }),
        );
        succeeded('declaring an upload', declared);
        const [form] = (declared.data as { uploads: { upload_id: string; url: string; fields: Record<string, string> }[] }).uploads;
        const body = new FormData();
        for (const [name, value] of Object.entries(form!.fields)) body.append(name, value);
        body.append('file', new Blob([new Uint8Array(archive)]));
        let stored: Response | undefined;
        posts.push(await timed(async () => void (stored = await fetch(form!.url, { method: 'POST', body }))));
        if (!stored || stored.status >= 300)
          throw new Error(`bench files: presigned POST answered ${stored?.status}: ${await stored?.text()}`);
        const confirm = request('POST', `${base}/files`, { token, json: { upload_ids: [form!.upload_id], user_id: forStudent } });
        let spent = 0;
        const grew = await peakGrowth(async () => {
          spent = await timed(async () => succeeded('confirming an upload', await invoke('submit-files', confirm)));
        });
        confirms.push(spent);
        confirmMemory = Math.max(confirmMemory, grew);
      }),
    );
  }

  const rows: Row[] = [
    {
      section: SECTION,
      name: `multipart submission of one ${(SMALL_FILE.length / 1024).toFixed(1)} KB file (median of ${SMALL_SAMPLES}), vs a plain S3 PUT of it and a VCS submission`,
      target: '—',
      baseline: `PUT ${ms(median(smallPut))}; VCS submission ${ms(median(vcs))}`,
      measured: ms(median(small)),
      met: undefined,
    },
    {
      section: SECTION,
      name: `50 MB archive: the presigned POST to S3 alone (median of ${LARGE_SAMPLES}), vs a plain S3 PUT of the same bytes`,
      target: '—',
      baseline: ms(median(largePut)),
      measured: `${ms(median(posts))} (${ratio(median(posts) / median(largePut))})`,
      met: undefined,
    },
    {
      section: SECTION,
      name: `50 MB archive: declare, presigned POST, confirm (median of ${LARGE_SAMPLES}), vs a plain S3 PUT of the same bytes`,
      target: '—',
      baseline: ms(median(largePut)),
      measured: `${ms(median(large))} (${ratio(median(large) / median(largePut))})`,
      met: undefined,
    },
    {
      section: SECTION,
      name: '50 MB archive: the confirmation alone (copied into the version, read back and checked as a zip), and its peak memory growth',
      target: '—',
      baseline: '—',
      measured: `${ms(median(confirms))}, +${confirmMemory.toFixed(0)} MiB`,
      met: undefined,
    },
  ];
  const notes: string[] = [];
  return { rows, notes };
}
