/**
 * Every route's answer contract (`functions/<name>/contract.ts`), by route name: read by the OpenAPI
 * document, the answer check (infra/answer-check.ts) and the docs. No handler imports it, so no
 * function's bundle carries the contracts (the openapi function's excepted).
 */
import type { RouteContract } from '#shared/http/contract.ts';
import type { RouteName } from '#shared/http/routes.ts';
import { contract as apiDocs } from './api-docs/contract.ts';
import { contract as apiDocsAsset } from './api-docs-asset/contract.ts';
import { contract as archiveCourse } from './archive-course/contract.ts';
import { contract as authMethods } from './auth-methods/contract.ts';
import { contract as changePassword } from './change-password/contract.ts';
import { contract as courseAudit } from './course-audit/contract.ts';
import { contract as courseConfig } from './course-config/contract.ts';
import { contract as courseGraders } from './course-graders/contract.ts';
import { contract as courseUsers } from './course-users/contract.ts';
import { contract as createCourse } from './create-course/contract.ts';
import { contract as createTerm } from './create-term/contract.ts';
import { contract as createUser } from './create-user/contract.ts';
import { contract as createWebhook } from './create-webhook/contract.ts';
import { contract as deleteGradeable } from './delete-gradeable/contract.ts';
import { contract as deleteTeam } from './delete-team/contract.ts';
import { contract as deleteWebhook } from './delete-webhook/contract.ts';
import { contract as downloadGradeable } from './download-gradeable/contract.ts';
import { contract as dropMember } from './drop-member/contract.ts';
import { contract as enrollMember } from './enroll-member/contract.ts';
import { contract as fileUploads } from './file-uploads/contract.ts';
import { contract as generateSummaries } from './generate-summaries/contract.ts';
import { contract as getUser } from './get-user/contract.ts';
import { contract as gradeableAttempts } from './gradeable-attempts/contract.ts';
import { contract as gradeableValues } from './gradeable-values/contract.ts';
import { contract as gradebook } from './gradebook/contract.ts';
import { contract as gradebookExport } from './gradebook-export/contract.ts';
import { contract as createGradebookExport } from './create-gradebook-export/contract.ts';
import { contract as createSimilarityRun } from './create-similarity-run/contract.ts';
import { contract as similarityRun } from './similarity-run/contract.ts';
import { contract as similarityRuns } from './similarity-runs/contract.ts';
import { contract as similarityPair } from './similarity-pair/contract.ts';
import { contract as decideSimilarityPair } from './decide-similarity-pair/contract.ts';
import { contract as courseGradebook } from './course-gradebook/contract.ts';
import { contract as grantLateDays } from './grant-late-days/contract.ts';
import { contract as importClassList } from './import-class-list/contract.ts';
import { contract as invalidateToken } from './invalidate-token/contract.ts';
import { contract as issueToken } from './issue-token/contract.ts';
import { contract as listCourses } from './list-courses/contract.ts';
import { contract as listInquiries } from './list-inquiries/contract.ts';
import { contract as changeInquiryStatus } from './change-inquiry-status/contract.ts';
import { contract as openInquiry } from './open-inquiry/contract.ts';
import { contract as postToInquiry } from './post-to-inquiry/contract.ts';
import { contract as listGradeables } from './list-gradeables/contract.ts';
import { contract as listSummaries } from './list-summaries/contract.ts';
import { contract as listTeams } from './list-teams/contract.ts';
import { contract as listTerms } from './list-terms/contract.ts';
import { contract as listUsers } from './list-users/contract.ts';
import { contract as listWebhookDeliveries } from './list-webhook-deliveries/contract.ts';
import { contract as listWebhooks } from './list-webhooks/contract.ts';
import { contract as me } from './me/contract.ts';
import { contract as openapi } from './openapi/contract.ts';
import { contract as regrade } from './regrade/contract.ts';
import { contract as regradeStatus } from './regrade-status/contract.ts';
import { contract as replaceGradeable } from './replace-gradeable/contract.ts';
import { contract as replayWebhookDelivery } from './replay-webhook-delivery/contract.ts';
import { contract as saveTaGrade } from './save-ta-grade/contract.ts';
import { contract as setActiveVersion } from './set-active-version/contract.ts';
import { contract as setCourseConfig } from './set-course-config/contract.ts';
import { contract as setCourseLateDays } from './set-course-late-days/contract.ts';
import { contract as setExtension } from './set-extension/contract.ts';
import { contract as importTeams } from './import-teams/contract.ts';
import { contract as setTeam } from './set-team/contract.ts';
import { contract as setUserPassword } from './set-user-password/contract.ts';
import { contract as linkIdentity } from './link-identity/contract.ts';
import { contract as studentLateDays } from './student-late-days/contract.ts';
import { contract as submissionFiles } from './submission-files/contract.ts';
import { contract as gradingRecord } from './grading-record/contract.ts';
import { contract as recordKeys } from './record-keys/contract.ts';
import { contract as submitFiles } from './submit-files/contract.ts';
import { contract as submitVcs } from './submit-vcs/contract.ts';
import { contract as summariesJob } from './summaries-job/contract.ts';
import { contract as taGrade } from './ta-grade/contract.ts';
import { contract as tokenInfo } from './token-info/contract.ts';
import { contract as unarchiveCourse } from './unarchive-course/contract.ts';
import { contract as updateUser } from './update-user/contract.ts';
import { contract as uploadGradeable } from './upload-gradeable/contract.ts';
import { contract as userAudit } from './user-audit/contract.ts';
import { contract as createLtiRegistration } from './create-lti-registration/contract.ts';
import { contract as createLtiDeepLink } from './create-lti-deep-link/contract.ts';
import { contract as listLtiRegistrations } from './list-lti-registrations/contract.ts';
import { contract as getLtiRegistration } from './get-lti-registration/contract.ts';
import { contract as deleteLtiRegistration } from './delete-lti-registration/contract.ts';
import { contract as ltiJwks } from './lti-jwks/contract.ts';
import { contract as ltiConfig } from './lti-config/contract.ts';
import { contract as ltiLogin } from './lti-login/contract.ts';
import { contract as ltiLoginForm } from './lti-login-form/contract.ts';
import { contract as ltiLaunch } from './lti-launch/contract.ts';
import { contract as linkLtiContext } from './link-lti-context/contract.ts';
import { contract as ltiLinks } from './lti-links/contract.ts';
import { contract as unlinkLtiContext } from './unlink-lti-context/contract.ts';
import { contract as ltiRosterSync } from './lti-roster-sync/contract.ts';
import { contract as listLtiScores } from './list-lti-scores/contract.ts';
import { contract as replayLtiScore } from './replay-lti-score/contract.ts';
import { contract as publishLtiScores } from './publish-lti-scores/contract.ts';
import { contract as createLtiInvitation } from './create-lti-invitation/contract.ts';
import { contract as ltiRegister } from './lti-register/contract.ts';
import { contract as userSummary } from './user-summary/contract.ts';

/** By route name; type-checking fails while a route has none. */
export const contracts: Record<RouteName, RouteContract> = {
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
  'list-courses': listCourses,
  'list-gradeables': listGradeables,
  'list-inquiries': listInquiries,
  'change-inquiry-status': changeInquiryStatus,
  'open-inquiry': openInquiry,
  'post-to-inquiry': postToInquiry,
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
  'link-identity': linkIdentity,
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
