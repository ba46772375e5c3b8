/** The similarity reports' fails (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';

export const similarityGradeableNotFound = /* @__PURE__ */ failure('not-found', 'No gradeable {gradeable_id} in this course to compare.', {
  gradeable_id: ECHOED_LENGTH,
});
export const similarityLanguageUnknown = /* @__PURE__ */ failure(
  'invalid',
  'Similarity compares python, java, c, cpp, javascript or text, not {language}.',
  { language: ECHOED_LENGTH },
);
export const similarityRunNotFound = /* @__PURE__ */ failure('not-found', 'No similarity run {run_id} of this gradeable.', {
  run_id: ECHOED_LENGTH,
});
export const similarityPairNotFound = /* @__PURE__ */ failure(
  'not-found',
  'No pair {pair_id} in similarity run {run_id} of this gradeable.',
  {
    pair_id: ECHOED_LENGTH,
    run_id: ECHOED_LENGTH,
  },
);
export const decisionMissing = /* @__PURE__ */ failure('invalid', 'Give decision: dismissed or confirmed.');
export const decisionUnknown = /* @__PURE__ */ failure('invalid', 'A decision is dismissed or confirmed, not {decision}.', {
  decision: ECHOED_LENGTH,
});
export const pairRevisionMissing = /* @__PURE__ */ failure(
  'invalid',
  'Give revision: the revision of the pair you read, so that a decision made since is not undone.',
);
export const similarityPairChanged = /* @__PURE__ */ failure(
  'conflict',
  'The pair changed since revision {revision}: it is at revision {current}. Reload it and decide again.',
);
export const similarityPairRace = /* @__PURE__ */ failure(
  'conflict',
  'Another reviewer decided this pair at the same moment. Reload it and decide again.',
);
export const compareCourseNotYours = /* @__PURE__ */ failure(
  'forbidden',
  'You are not an instructor of {semester}/{course}: compare_with names gradeables of your own courses only.',
  { semester: ECHOED_LENGTH, course: ECHOED_LENGTH },
);
export const compareGradeableNotFound = /* @__PURE__ */ failure(
  'not-found',
  'No gradeable {gradeable_id} in {semester}/{course} to compare with.',
  {
    gradeable_id: ECHOED_LENGTH,
    semester: ECHOED_LENGTH,
    course: ECHOED_LENGTH,
  },
);
export const compareTermLater = /* @__PURE__ */ failure(
  'invalid',
  'Term {semester} begins after this one: compare_with names gradeables of this or earlier terms.',
  { semester: ECHOED_LENGTH },
);
export const compareWithItself = /* @__PURE__ */ failure('invalid', 'compare_with names the gradeable compared itself.');
