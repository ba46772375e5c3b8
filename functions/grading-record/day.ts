/** The deployed day's steps of `grading-record` (test/deployed/day.ts says how the day runs them). */
import { compactVerify, createRemoteJWKSet } from 'jose';
import { call, COURSE, fail, git, GRADEABLE, stack, TERM, type RouteDay } from '../../test/deployed/day.ts';

const recordPath = (version: number) => `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/record?version=${version}`;

export const day: RouteDay = [
  {
    title: 'a version that does not exist has no grading record',
    phase: 'gradeables',
    run: async () => {
      await call('GET', recordPath(99), { as: 'student', expect: { fail: 'Version 99 of this submission does not exist.', status: 404 } });
    },
  },
  {
    title:
      "the student's graded version has a grading record that verifies against the published keys, naming the commit graded and the CodeBuild build that ran it",
    phase: 'graded read',
    builds: true,
    run: async () => {
      const answer = await call('GET', recordPath(1), { as: 'student' });
      const data = answer.json?.data as { record: string; result_sha256: string } | undefined;
      if (!data) return;
      const keys = createRemoteJWKSet(new URL(`${stack!.gateway.url}/api/records/jwks`));
      const verified = await compactVerify(data.record, keys).catch((error: unknown) => {
        fail('record as student', `does not verify against GET /api/records/jwks: ${String(error)}`);
        return undefined;
      });
      if (!verified) return;
      const payload = JSON.parse(new TextDecoder().decode(verified.payload)) as {
        graded: { commit?: string };
        result_sha256: string;
        environment: { sandbox: string; image_digest: string | null; build?: { arn: string; image: string | null } | null };
      };
      const graded = await git.head(`${GRADEABLE}-student`);
      if (payload.graded.commit !== graded) fail('record as student', `should name commit ${graded}: ${answer.text.slice(0, 800)}`);
      if (payload.result_sha256 !== data.result_sha256)
        fail('record as student', `the stored result changed: ${answer.text.slice(0, 800)}`);
      if (payload.environment.sandbox !== 'codebuild') fail('record as student', `not graded in CodeBuild: ${answer.text.slice(0, 800)}`);
      // The build as CodeBuild reported it: its ARN and its curated image's tag, which pins no digest.
      const { build, image_digest: digest } = payload.environment;
      if (
        !/^arn:aws:codebuild:[^:]+:\d{12}:build\//.test(build?.arn ?? '') ||
        !/^aws\/codebuild\//.test(build?.image ?? '') ||
        digest !== null
      )
        fail('record as student', `should name the build that ran it and its image, with no digest: ${answer.text.slice(0, 800)}`);
    },
  },
];
