/**
 * Every route's steps in the deployed day (`functions/<name>/day.ts`), by name: what the day
 * (test/deployed/ordinary-day.test.ts) runs, phase by phase (DAY_PHASES in test/deployed/day.ts).
 * Type-checking fails while a route has none. Only tests import it: no handler imports it, so no
 * function's bundle carries the steps (`npm run lint:deps` checks it).
 */
import type { RouteName } from './definitions.ts';
import type { RouteDay } from '../test/deployed/day.ts';
import { day as openInquiry } from './open-inquiry/day.ts';
import { day as listInquiries } from './list-inquiries/day.ts';
import { day as postToInquiry } from './post-to-inquiry/day.ts';
import { day as changeInquiryStatus } from './change-inquiry-status/day.ts';
import { day as apiDocs } from './api-docs/day.ts';
import { day as apiDocsAsset } from './api-docs-asset/day.ts';
import { day as archiveCourse } from './archive-course/day.ts';
import { day as authMethods } from './auth-methods/day.ts';
import { day as changePassword } from './change-password/day.ts';
import { day as courseAudit } from './course-audit/day.ts';
import { day as createLtiRegistration } from './create-lti-registration/day.ts';
import { day as createLtiDeepLink } from './create-lti-deep-link/day.ts';
import { day as listLtiRegistrations } from './list-lti-registrations/day.ts';
import { day as getLtiRegistration } from './get-lti-registration/day.ts';
import { day as deleteLtiRegistration } from './delete-lti-registration/day.ts';
import { day as ltiJwks } from './lti-jwks/day.ts';
import { day as ltiConfig } from './lti-config/day.ts';
import { day as ltiLogin } from './lti-login/day.ts';
import { day as ltiLoginForm } from './lti-login-form/day.ts';
import { day as ltiLaunch } from './lti-launch/day.ts';
import { day as linkLtiContext } from './link-lti-context/day.ts';
import { day as ltiLinks } from './lti-links/day.ts';
import { day as unlinkLtiContext } from './unlink-lti-context/day.ts';
import { day as ltiRosterSync } from './lti-roster-sync/day.ts';
import { day as listLtiScores } from './list-lti-scores/day.ts';
import { day as replayLtiScore } from './replay-lti-score/day.ts';
import { day as publishLtiScores } from './publish-lti-scores/day.ts';
import { day as createLtiInvitation } from './create-lti-invitation/day.ts';
import { day as ltiRegister } from './lti-register/day.ts';
import { day as courseConfig } from './course-config/day.ts';
import { day as courseGraders } from './course-graders/day.ts';
import { day as courseUsers } from './course-users/day.ts';
import { day as createCourse } from './create-course/day.ts';
import { day as createTerm } from './create-term/day.ts';
import { day as createUser } from './create-user/day.ts';
import { day as createWebhook } from './create-webhook/day.ts';
import { day as deleteGradeable } from './delete-gradeable/day.ts';
import { day as deleteTeam } from './delete-team/day.ts';
import { day as deleteWebhook } from './delete-webhook/day.ts';
import { day as downloadGradeable } from './download-gradeable/day.ts';
import { day as dropMember } from './drop-member/day.ts';
import { day as enrollMember } from './enroll-member/day.ts';
import { day as fileUploads } from './file-uploads/day.ts';
import { day as generateSummaries } from './generate-summaries/day.ts';
import { day as getUser } from './get-user/day.ts';
import { day as gradeableAttempts } from './gradeable-attempts/day.ts';
import { day as gradeableValues } from './gradeable-values/day.ts';
import { day as gradebook } from './gradebook/day.ts';
import { day as gradebookExport } from './gradebook-export/day.ts';
import { day as createGradebookExport } from './create-gradebook-export/day.ts';
import { day as createSimilarityRun } from './create-similarity-run/day.ts';
import { day as similarityRun } from './similarity-run/day.ts';
import { day as similarityRuns } from './similarity-runs/day.ts';
import { day as similarityPair } from './similarity-pair/day.ts';
import { day as decideSimilarityPair } from './decide-similarity-pair/day.ts';
import { day as courseGradebook } from './course-gradebook/day.ts';
import { day as grantLateDays } from './grant-late-days/day.ts';
import { day as importClassList } from './import-class-list/day.ts';
import { day as importTeams } from './import-teams/day.ts';
import { day as invalidateToken } from './invalidate-token/day.ts';
import { day as issueToken } from './issue-token/day.ts';
import { day as linkIdentity } from './link-identity/day.ts';
import { day as listCourses } from './list-courses/day.ts';
import { day as listGradeables } from './list-gradeables/day.ts';
import { day as listSummaries } from './list-summaries/day.ts';
import { day as listTeams } from './list-teams/day.ts';
import { day as listTerms } from './list-terms/day.ts';
import { day as listUsers } from './list-users/day.ts';
import { day as listWebhookDeliveries } from './list-webhook-deliveries/day.ts';
import { day as listWebhooks } from './list-webhooks/day.ts';
import { day as me } from './me/day.ts';
import { day as openapi } from './openapi/day.ts';
import { day as regrade } from './regrade/day.ts';
import { day as regradeStatus } from './regrade-status/day.ts';
import { day as replaceGradeable } from './replace-gradeable/day.ts';
import { day as replayWebhookDelivery } from './replay-webhook-delivery/day.ts';
import { day as saveTaGrade } from './save-ta-grade/day.ts';
import { day as setActiveVersion } from './set-active-version/day.ts';
import { day as setCourseConfig } from './set-course-config/day.ts';
import { day as setCourseLateDays } from './set-course-late-days/day.ts';
import { day as setExtension } from './set-extension/day.ts';
import { day as setTeam } from './set-team/day.ts';
import { day as setUserPassword } from './set-user-password/day.ts';
import { day as studentLateDays } from './student-late-days/day.ts';
import { day as submissionFiles } from './submission-files/day.ts';
import { day as gradingRecord } from './grading-record/day.ts';
import { day as recordKeys } from './record-keys/day.ts';
import { day as submitFiles } from './submit-files/day.ts';
import { day as submitVcs } from './submit-vcs/day.ts';
import { day as summariesJob } from './summaries-job/day.ts';
import { day as taGrade } from './ta-grade/day.ts';
import { day as tokenInfo } from './token-info/day.ts';
import { day as unarchiveCourse } from './unarchive-course/day.ts';
import { day as updateUser } from './update-user/day.ts';
import { day as uploadGradeable } from './upload-gradeable/day.ts';
import { day as userAudit } from './user-audit/day.ts';
import { day as userSummary } from './user-summary/day.ts';

export const daySteps: { readonly [Name in RouteName]: RouteDay } = {
  'issue-token': issueToken,
  'invalidate-token': invalidateToken,
  'token-info': tokenInfo,
  'auth-methods': authMethods,
  me: me,
  'list-courses': listCourses,
  'create-course': createCourse,
  'course-users': courseUsers,
  'course-graders': courseGraders,
  'create-term': createTerm,
  'upload-gradeable': uploadGradeable,
  'download-gradeable': downloadGradeable,
  'list-gradeables': listGradeables,
  'submit-vcs': submitVcs,
  'submit-files': submitFiles,
  'file-uploads': fileUploads,
  'submission-files': submissionFiles,
  'grading-record': gradingRecord,
  'record-keys': recordKeys,
  'gradeable-values': gradeableValues,
  'gradeable-attempts': gradeableAttempts,
  'save-ta-grade': saveTaGrade,
  'ta-grade': taGrade,
  'set-active-version': setActiveVersion,
  gradebook: gradebook,
  'gradebook-export': gradebookExport,
  'create-gradebook-export': createGradebookExport,
  'create-similarity-run': createSimilarityRun,
  'similarity-run': similarityRun,
  'similarity-runs': similarityRuns,
  'similarity-pair': similarityPair,
  'decide-similarity-pair': decideSimilarityPair,
  'course-gradebook': courseGradebook,
  regrade: regrade,
  'regrade-status': regradeStatus,
  'generate-summaries': generateSummaries,
  'summaries-job': summariesJob,
  'list-summaries': listSummaries,
  'user-summary': userSummary,
  'set-course-late-days': setCourseLateDays,
  'grant-late-days': grantLateDays,
  'set-extension': setExtension,
  'student-late-days': studentLateDays,
  'create-webhook': createWebhook,
  'list-webhooks': listWebhooks,
  'delete-webhook': deleteWebhook,
  'list-webhook-deliveries': listWebhookDeliveries,
  'replay-webhook-delivery': replayWebhookDelivery,
  'list-teams': listTeams,
  'import-teams': importTeams,
  'set-team': setTeam,
  'delete-team': deleteTeam,
  'replace-gradeable': replaceGradeable,
  'delete-gradeable': deleteGradeable,
  'course-config': courseConfig,
  'set-course-config': setCourseConfig,
  'archive-course': archiveCourse,
  'unarchive-course': unarchiveCourse,
  'enroll-member': enrollMember,
  'drop-member': dropMember,
  'import-class-list': importClassList,
  openapi: openapi,
  'api-docs': apiDocs,
  'api-docs-asset': apiDocsAsset,
  'list-users': listUsers,
  'create-user': createUser,
  'get-user': getUser,
  'update-user': updateUser,
  'set-user-password': setUserPassword,
  'link-identity': linkIdentity,
  'change-password': changePassword,
  'list-terms': listTerms,
  'user-audit': userAudit,
  'course-audit': courseAudit,
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
  'change-inquiry-status': changeInquiryStatus,
  'post-to-inquiry': postToInquiry,
  'list-inquiries': listInquiries,
  'open-inquiry': openInquiry,
};
