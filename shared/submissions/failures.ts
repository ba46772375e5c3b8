/** Submitting, reading and choosing versions: their fails (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';

export const notSameUser = /* @__PURE__ */ failure('invalid', 'API key and specified user_id are not for the same user.');
export const onlyVcs = /* @__PURE__ */ failure('invalid', 'Student API for upload only supports VCS gradeables');
export const gitRepoIdMissing = /* @__PURE__ */ failure('invalid', 'API requires git_repo_id variable to be set.');
export const badIdempotencyKey = /* @__PURE__ */ failure(
  'invalid',
  'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
);
export const idempotencyKeyReused = /* @__PURE__ */ failure(
  'unprocessable',
  'This Idempotency-Key was already used for a different request.',
);
export const noGradedGradeable = /* @__PURE__ */ failure('not-found', 'Graded gradeable for user with id {user_id} does not exist', {
  user_id: ECHOED_LENGTH,
});
export const onlyElectronicVersions = /* @__PURE__ */ failure('invalid', 'Only Electronic File gradeables have versions.');
export const versionMissing = /* @__PURE__ */ failure('invalid', 'The field version is required (0 cancels the submission).');
export const noActiveVersionFiles = /* @__PURE__ */ failure(
  'not-found',
  'This submission has no active version (nothing submitted, or cancelled): name the version whose files to list with version.',
);
export const nothingSubmitted = /* @__PURE__ */ failure('invalid', 'There is no submission to choose a version of.');
export const tooManySubmissions = /* @__PURE__ */ failure(
  'too-many-requests',
  'Too many submissions of this gradeable: at most {limit} a minute. Try again in {seconds}.',
);
export const tooManyJobs = /* @__PURE__ */ failure(
  'too-many-requests',
  'Too many of your submissions are waiting for grading: at most {limit} at a time. Try again in {seconds}.',
);
export const tooManyVersions = /* @__PURE__ */ failure('unprocessable', 'This submission has reached its limit of {limit} versions.');
export const tooManyUploadsForTeam = /* @__PURE__ */ failure(
  'invalid',
  'A version of a team of {members} members can confirm at most {limit} uploads at once.',
);
export const teamTooLargeToSubmit = /* @__PURE__ */ failure(
  'unprocessable',
  'A version of a team of {members} members cannot be saved: a team that submits has at most {limit} members.',
);
export const repositoryUnreadable = /* @__PURE__ */ failure(
  'unprocessable',
  'Could not read the repository {repository}: {reason}. Nothing was submitted; submit again once it can be read.',
);

// Late days.
export const onlyElectronicLateDays = /* @__PURE__ */ failure('invalid', 'Only Electronic File gradeables have late days.');
export const daysRequired = /* @__PURE__ */ failure('invalid', 'The field {field} is required.');
export const badGrantStart = /* @__PURE__ */ failure(
  'invalid',
  "since must be a date (YYYY-MM-DD, in the course's time zone {time_zone}) or a time (YYYY-MM-DD HH:MM:SS, or ISO 8601 with an offset).",
);
