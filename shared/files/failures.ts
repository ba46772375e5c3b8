/** Submitting files: their fails (declared once: the code throws them, the API contract lists them). */
import { failure } from '#shared/errors.ts';

// The reference's own wording, word for word.
export const noFiles = /* @__PURE__ */ failure('invalid', 'No files to be submitted.');
export const quotesInName = /* @__PURE__ */ failure(
  'invalid',
  'Error: You may not use quotes, backslashes or angle brackets in your file name {name}.',
);
export const quotesInZip = /* @__PURE__ */ failure(
  'invalid',
  'Error: You may not use quotes, backslashes or angle brackets in your filename for files inside {name}.',
);
export const tooLarge = /* @__PURE__ */ failure(
  'invalid',
  'File(s) uploaded too large.  Maximum size is {max} kb. Uploaded file(s) was {size} kb.',
);
/** The reference's words, then which archive and which of its entries take the submission over its size. */
export const zipTooLarge = /* @__PURE__ */ failure(
  'invalid',
  'File(s) uploaded too large.  Maximum size is {max} kb. Uploaded file(s) was {size} kb: the file {name} holds {entry}, which unpacks to {entry_size} kb.',
);
export const corruptZip = /* @__PURE__ */ failure('invalid', 'Corrupted ZIP file for {name}.');

// Ours: each names the file and the rule.
export const separatorInName = /* @__PURE__ */ failure(
  'invalid',
  'The file name {name} contains a folder separator: send the file itself, or a .zip to keep folders.',
);
export const dotName = /* @__PURE__ */ failure('invalid', 'The file name {name} is not allowed: . and .. name folders.');
export const emptyName = /* @__PURE__ */ failure('invalid', 'A file was sent without a name.');
export const controlInName = /* @__PURE__ */ failure('invalid', 'The file name {name} contains a control character.');
export const longName = /* @__PURE__ */ failure('invalid', 'The file name {name} is longer than {limit} bytes.');
export const duplicateName = /* @__PURE__ */ failure('invalid', 'The file {name} is sent twice: file names must differ.');
export const tooManyFiles = /* @__PURE__ */ failure('invalid', 'This gradeable takes at most {limit} files; the submission has {count}.');
export const zipEntryOutside = /* @__PURE__ */ failure('invalid', 'The file {name} holds {entry}, which lies outside its folder.');
export const zipEntryLink = /* @__PURE__ */ failure('invalid', 'The file {name} holds {entry}, a link: links are not accepted.');
export const zipEntrySpecial = /* @__PURE__ */ failure('invalid', 'The file {name} holds {entry}, which is not a regular file or folder.');
export const zipEntryEncrypted = /* @__PURE__ */ failure('invalid', 'The file {name} holds {entry}, which is encrypted.');
export const zipEntryName = /* @__PURE__ */ failure('invalid', 'The file {name} holds an entry whose name {entry} is not allowed: {rule}.');
export const zipTooManyEntries = /* @__PURE__ */ failure('invalid', 'The file {name} holds more than {limit} entries.');
export const onlyFileGradeables = /* @__PURE__ */ failure(
  'invalid',
  'Only Electronic File gradeables without version control take files; submit a VCS gradeable with POST …/upload.',
);
export const filesOrUploads = /* @__PURE__ */ failure(
  'invalid',
  'Send files (multipart/form-data, field files) or upload_ids (JSON), not both.',
);
export const unknownUpload = /* @__PURE__ */ failure(
  'invalid',
  'The upload {upload_id} is not one of yours, has expired or was never uploaded.',
);
export const uploadSizeDiffers = /* @__PURE__ */ failure('invalid', 'The upload {upload_id} ({name}) is not the size declared.');
export const noSuchFileVersion = /* @__PURE__ */ failure('not-found', 'Version {version} of this submission has no files.');
