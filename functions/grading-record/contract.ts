/** What `grading-record` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { dateTime, integer, number, object, string } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';
import { fieldFails } from '#shared/http/fields.ts';
import { noSuchRecordVersion, recordNotKept, recordVersionMissing, versionNotGraded } from '#shared/grading/failures.ts';
import { noGradedGradeable, notSameUser } from '#shared/submissions/failures.ts';
import { notYourSection } from '#shared/tagrading/failures.ts';

const sha256 = string.regex(/^[0-9a-f]{64}$/).describe('A SHA-256, hex.');

const payload = object({
  iss: string.describe('The deployment (its TOKEN_ISSUER).'),
  iat: integer.describe('When the record was signed, in seconds since the epoch.'),
  course: string.describe('`<semester>/<course>`.'),
  gradeable: string,
  owner: z.union([object({ user_id: string }), object({ team_id: string })]),
  version: integer,
  graded: z
    .union([object({ commit: string }), object({ files: z.record(z.string(), sha256) }), object({})])
    .describe("What was graded: the commit checked out, or each stored file's SHA-256 by name (neither for a folder without history)."),
  test_cases_sha256: sha256.describe(
    "The SHA-256 of the canonical JSON of the gradeable's autograding configuration the version was graded by.",
  ),
  environment: object({
    sandbox: z.enum(['bubblewrap', 'none', 'codebuild']),
    image: string.nullable().describe('The build image the gradeable asked for, by its name in this deployment (in AWS), null locally.'),
    image_digest: string
      .nullable()
      .describe(
        "The digest of the image the build ran, when the build's own reported image pins one (`…@sha256:…`); null otherwise, as for CodeBuild's curated images, whose digest CodeBuild reports nowhere.",
      ),
    build: object({
      arn: string.describe('The ARN of the CodeBuild build that ran the grading.'),
      image: string
        .nullable()
        .describe("The build's image as CodeBuild reported the build's environment (e.g. aws/codebuild/standard:7.0)."),
    })
      .nullable()
      .optional()
      .describe(
        'The CodeBuild build that ran the grading (in AWS), as CodeBuild reported it; null locally; absent from records signed before builds were recorded.',
      ),
  }),
  result_sha256: sha256.describe('The SHA-256 of the canonical JSON of the result as stored when graded.'),
  graded_at: dateTime.describe('When the result was stored.'),
});

export const contract: RouteContract = {
  tag: 'Submissions',
  data: object({
    record: string.describe('The grading record: a compact JWS (EdDSA), its `kid` one of GET /api/records/jwks.'),
    payload: payload.describe("The record's payload, decoded (unverified: verify `record` itself)."),
    result_sha256: sha256.describe(
      "The SHA-256 of the canonical JSON of the version's result as stored now: unequal to the record's when the result changed since it was graded.",
    ),
    result: object({ version: integer, testCases: z.array(z.unknown()), points: number })
      .optional()
      .describe('Instructors and graders: the result as stored, `result_sha256` the hash of its canonical JSON.'),
  }),
  fails: [
    gradeableNotFound,
    fail(notSameUser),
    fail(notYourSection),
    fail(noGradedGradeable),
    fail(noSuchRecordVersion),
    fail(versionNotGraded),
    fail(recordNotKept),
    fail(recordVersionMissing),
    // Its query's typed field (a body's are listed from the definition).
    { status: 400, message: fieldFails.mustBe('version', 'a version number') },
  ],
};
