/**
 * Every function's test rows (`functions/<name>/test-rows.ts`), by name: the IAM policy the stack
 * test expects of its role, a route's authorization cases and, for a route that writes, a body it
 * accepts (test/hardening/test-rows.ts says what each is for). Only tests import it: no handler
 * imports it, so no function's bundle carries the rows (`npm run lint:deps` checks it).
 */
import type { FunctionName, RouteName, Routes } from './definitions.ts';
import type { RouteRows, WorkerRows } from '../test/hardening/test-rows.ts';
import { rows as apiDocs } from './api-docs/test-rows.ts';
import { rows as apiDocsAsset } from './api-docs-asset/test-rows.ts';
import { rows as archiveCourse } from './archive-course/test-rows.ts';
import { rows as authMethods } from './auth-methods/test-rows.ts';
import { rows as changePassword } from './change-password/test-rows.ts';
import { rows as courseAudit } from './course-audit/test-rows.ts';
import { rows as courseConfig } from './course-config/test-rows.ts';
import { rows as courseGraders } from './course-graders/test-rows.ts';
import { rows as courseUsers } from './course-users/test-rows.ts';
import { rows as createCourse } from './create-course/test-rows.ts';
import { rows as createTerm } from './create-term/test-rows.ts';
import { rows as createUser } from './create-user/test-rows.ts';
import { rows as createWebhook } from './create-webhook/test-rows.ts';
import { rows as deleteGradeable } from './delete-gradeable/test-rows.ts';
import { rows as deleteTeam } from './delete-team/test-rows.ts';
import { rows as deleteWebhook } from './delete-webhook/test-rows.ts';
import { rows as downloadGradeable } from './download-gradeable/test-rows.ts';
import { rows as dropMember } from './drop-member/test-rows.ts';
import { rows as enrollMember } from './enroll-member/test-rows.ts';
import { rows as fileUploads } from './file-uploads/test-rows.ts';
import { rows as generateSummaries } from './generate-summaries/test-rows.ts';
import { rows as getUser } from './get-user/test-rows.ts';
import { rows as gradeableAttempts } from './gradeable-attempts/test-rows.ts';
import { rows as gradeableValues } from './gradeable-values/test-rows.ts';
import { rows as gradebook } from './gradebook/test-rows.ts';
import { rows as gradebookExport } from './gradebook-export/test-rows.ts';
import { rows as createGradebookExport } from './create-gradebook-export/test-rows.ts';
import { rows as createSimilarityRun } from './create-similarity-run/test-rows.ts';
import { rows as similarityRun } from './similarity-run/test-rows.ts';
import { rows as similarityRuns } from './similarity-runs/test-rows.ts';
import { rows as similarityPair } from './similarity-pair/test-rows.ts';
import { rows as decideSimilarityPair } from './decide-similarity-pair/test-rows.ts';
import { rows as courseGradebook } from './course-gradebook/test-rows.ts';
import { rows as gradingWorker } from './grading-worker/test-rows.ts';
import { rows as grantLateDays } from './grant-late-days/test-rows.ts';
import { rows as importClassList } from './import-class-list/test-rows.ts';
import { rows as invalidateToken } from './invalidate-token/test-rows.ts';
import { rows as issueToken } from './issue-token/test-rows.ts';
import { rows as linkIdentity } from './link-identity/test-rows.ts';
import { rows as listCourses } from './list-courses/test-rows.ts';
import { rows as listGradeables } from './list-gradeables/test-rows.ts';
import { rows as listInquiries } from './list-inquiries/test-rows.ts';
import { rows as openInquiry } from './open-inquiry/test-rows.ts';
import { rows as postToInquiry } from './post-to-inquiry/test-rows.ts';
import { rows as changeInquiryStatus } from './change-inquiry-status/test-rows.ts';
import { rows as listSummaries } from './list-summaries/test-rows.ts';
import { rows as listTeams } from './list-teams/test-rows.ts';
import { rows as listTerms } from './list-terms/test-rows.ts';
import { rows as listUsers } from './list-users/test-rows.ts';
import { rows as listWebhookDeliveries } from './list-webhook-deliveries/test-rows.ts';
import { rows as listWebhooks } from './list-webhooks/test-rows.ts';
import { rows as me } from './me/test-rows.ts';
import { rows as notFound } from './not-found/test-rows.ts';
import { rows as openapi } from './openapi/test-rows.ts';
import { rows as regrade } from './regrade/test-rows.ts';
import { rows as regradeStatus } from './regrade-status/test-rows.ts';
import { rows as replaceGradeable } from './replace-gradeable/test-rows.ts';
import { rows as replayWebhookDelivery } from './replay-webhook-delivery/test-rows.ts';
import { rows as saveTaGrade } from './save-ta-grade/test-rows.ts';
import { rows as setActiveVersion } from './set-active-version/test-rows.ts';
import { rows as setCourseConfig } from './set-course-config/test-rows.ts';
import { rows as setCourseLateDays } from './set-course-late-days/test-rows.ts';
import { rows as setExtension } from './set-extension/test-rows.ts';
import { rows as importTeams } from './import-teams/test-rows.ts';
import { rows as setTeam } from './set-team/test-rows.ts';
import { rows as setUserPassword } from './set-user-password/test-rows.ts';
import { rows as studentLateDays } from './student-late-days/test-rows.ts';
import { rows as submissionFiles } from './submission-files/test-rows.ts';
import { rows as gradingRecord } from './grading-record/test-rows.ts';
import { rows as recordKeys } from './record-keys/test-rows.ts';
import { rows as submitFiles } from './submit-files/test-rows.ts';
import { rows as submitVcs } from './submit-vcs/test-rows.ts';
import { rows as summariesJob } from './summaries-job/test-rows.ts';
import { rows as summariesWorker } from './summaries-worker/test-rows.ts';
import { rows as taGrade } from './ta-grade/test-rows.ts';
import { rows as tokenInfo } from './token-info/test-rows.ts';
import { rows as unarchiveCourse } from './unarchive-course/test-rows.ts';
import { rows as updateUser } from './update-user/test-rows.ts';
import { rows as uploadGradeable } from './upload-gradeable/test-rows.ts';
import { rows as userAudit } from './user-audit/test-rows.ts';
import { rows as createLtiRegistration } from './create-lti-registration/test-rows.ts';
import { rows as createLtiDeepLink } from './create-lti-deep-link/test-rows.ts';
import { rows as listLtiRegistrations } from './list-lti-registrations/test-rows.ts';
import { rows as getLtiRegistration } from './get-lti-registration/test-rows.ts';
import { rows as deleteLtiRegistration } from './delete-lti-registration/test-rows.ts';
import { rows as ltiJwks } from './lti-jwks/test-rows.ts';
import { rows as ltiConfig } from './lti-config/test-rows.ts';
import { rows as ltiLogin } from './lti-login/test-rows.ts';
import { rows as ltiLoginForm } from './lti-login-form/test-rows.ts';
import { rows as ltiLaunch } from './lti-launch/test-rows.ts';
import { rows as linkLtiContext } from './link-lti-context/test-rows.ts';
import { rows as ltiLinks } from './lti-links/test-rows.ts';
import { rows as unlinkLtiContext } from './unlink-lti-context/test-rows.ts';
import { rows as ltiRosterSync } from './lti-roster-sync/test-rows.ts';
import { rows as listLtiScores } from './list-lti-scores/test-rows.ts';
import { rows as replayLtiScore } from './replay-lti-score/test-rows.ts';
import { rows as publishLtiScores } from './publish-lti-scores/test-rows.ts';
import { rows as createLtiInvitation } from './create-lti-invitation/test-rows.ts';
import { rows as ltiRegister } from './lti-register/test-rows.ts';
import { rows as userSummary } from './user-summary/test-rows.ts';
import { rows as webhookDelivery } from './webhook-delivery/test-rows.ts';
import { rows as webhookRelay } from './webhook-relay/test-rows.ts';
import { rows as courseJobSweeper } from './course-job-sweeper/test-rows.ts';
import { rows as ltiScore } from './lti-score/test-rows.ts';

/** By route name; type-checking fails while a route has none, or a route that writes has no valid body. */
export const routeRows: { readonly [Name in RouteName]: RouteRows<Routes[Name]['method']> } = {
  'api-docs': apiDocs,
  'api-docs-asset': apiDocsAsset,
  'archive-course': archiveCourse,
  'auth-methods': authMethods,
  'change-password': changePassword,
  'course-audit': courseAudit,
  'course-config': courseConfig,
  'course-graders': courseGraders,
  'course-users': courseUsers,
  'create-course': createCourse,
  'create-term': createTerm,
  'create-user': createUser,
  'create-webhook': createWebhook,
  'delete-gradeable': deleteGradeable,
  'delete-team': deleteTeam,
  'delete-webhook': deleteWebhook,
  'download-gradeable': downloadGradeable,
  'drop-member': dropMember,
  'enroll-member': enrollMember,
  'file-uploads': fileUploads,
  'generate-summaries': generateSummaries,
  'get-user': getUser,
  'gradeable-attempts': gradeableAttempts,
  'gradeable-values': gradeableValues,
  gradebook: gradebook,
  'gradebook-export': gradebookExport,
  'create-gradebook-export': createGradebookExport,
  'create-similarity-run': createSimilarityRun,
  'similarity-run': similarityRun,
  'similarity-runs': similarityRuns,
  'similarity-pair': similarityPair,
  'decide-similarity-pair': decideSimilarityPair,
  'course-gradebook': courseGradebook,
  'grant-late-days': grantLateDays,
  'import-class-list': importClassList,
  'invalidate-token': invalidateToken,
  'issue-token': issueToken,
  'link-identity': linkIdentity,
  'list-courses': listCourses,
  'list-gradeables': listGradeables,
  'list-inquiries': listInquiries,
  'open-inquiry': openInquiry,
  'post-to-inquiry': postToInquiry,
  'change-inquiry-status': changeInquiryStatus,
  'list-summaries': listSummaries,
  'list-teams': listTeams,
  'list-terms': listTerms,
  'list-users': listUsers,
  'list-webhook-deliveries': listWebhookDeliveries,
  'list-webhooks': listWebhooks,
  me: me,
  openapi: openapi,
  regrade: regrade,
  'regrade-status': regradeStatus,
  'replace-gradeable': replaceGradeable,
  'replay-webhook-delivery': replayWebhookDelivery,
  'save-ta-grade': saveTaGrade,
  'set-active-version': setActiveVersion,
  'set-course-config': setCourseConfig,
  'set-course-late-days': setCourseLateDays,
  'set-extension': setExtension,
  'import-teams': importTeams,
  'set-team': setTeam,
  'set-user-password': setUserPassword,
  'student-late-days': studentLateDays,
  'submission-files': submissionFiles,
  'grading-record': gradingRecord,
  'record-keys': recordKeys,
  'submit-files': submitFiles,
  'submit-vcs': submitVcs,
  'summaries-job': summariesJob,
  'ta-grade': taGrade,
  'token-info': tokenInfo,
  'unarchive-course': unarchiveCourse,
  'update-user': updateUser,
  'upload-gradeable': uploadGradeable,
  'user-audit': userAudit,
  'create-lti-registration': createLtiRegistration,
  'create-lti-deep-link': createLtiDeepLink,
  'list-lti-registrations': listLtiRegistrations,
  'get-lti-registration': getLtiRegistration,
  'delete-lti-registration': deleteLtiRegistration,
  'lti-jwks': ltiJwks,
  'lti-config': ltiConfig,
  'lti-login': ltiLogin,
  'lti-login-form': ltiLoginForm,
  'lti-launch': ltiLaunch,
  'link-lti-context': linkLtiContext,
  'lti-links': ltiLinks,
  'unlink-lti-context': unlinkLtiContext,
  'lti-roster-sync': ltiRosterSync,
  'list-lti-scores': listLtiScores,
  'replay-lti-score': replayLtiScore,
  'publish-lti-scores': publishLtiScores,
  'create-lti-invitation': createLtiInvitation,
  'lti-register': ltiRegister,
  'user-summary': userSummary,
};

/** By worker name (the functions that serve no route); type-checking fails while a worker has none. */
export const workerRows: { readonly [Name in Exclude<FunctionName, RouteName>]: WorkerRows } = {
  'grading-worker': gradingWorker,
  'not-found': notFound,
  'summaries-worker': summariesWorker,
  'webhook-delivery': webhookDelivery,
  'webhook-relay': webhookRelay,
  'course-job-sweeper': courseJobSweeper,
  'lti-score': ltiScore,
};
