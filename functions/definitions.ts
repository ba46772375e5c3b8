/**
 * Every function of the service, by name: the route table (the local server, the CDK stack, the
 * OpenAPI document and the README's route list all read it) and the workers. Imports every
 * definition and no handler; a function's own bundle imports only its own definition.
 */
import { definition as issueToken } from './issue-token/definition.ts';
import { definition as invalidateToken } from './invalidate-token/definition.ts';
import { definition as tokenInfo } from './token-info/definition.ts';
import { definition as authMethods } from './auth-methods/definition.ts';
import { definition as me } from './me/definition.ts';
import { definition as listCourses } from './list-courses/definition.ts';
import { definition as createCourse } from './create-course/definition.ts';
import { definition as courseUsers } from './course-users/definition.ts';
import { definition as courseGraders } from './course-graders/definition.ts';
import { definition as createTerm } from './create-term/definition.ts';
import { definition as uploadGradeable } from './upload-gradeable/definition.ts';
import { definition as downloadGradeable } from './download-gradeable/definition.ts';
import { definition as listGradeables } from './list-gradeables/definition.ts';
import { definition as openInquiry } from './open-inquiry/definition.ts';
import { definition as listInquiries } from './list-inquiries/definition.ts';
import { definition as postToInquiry } from './post-to-inquiry/definition.ts';
import { definition as changeInquiryStatus } from './change-inquiry-status/definition.ts';
import { definition as submitVcs } from './submit-vcs/definition.ts';
import { definition as submitFiles } from './submit-files/definition.ts';
import { definition as fileUploads } from './file-uploads/definition.ts';
import { definition as submissionFiles } from './submission-files/definition.ts';
import { definition as gradingRecord } from './grading-record/definition.ts';
import { definition as recordKeys } from './record-keys/definition.ts';
import { definition as gradeableValues } from './gradeable-values/definition.ts';
import { definition as gradeableAttempts } from './gradeable-attempts/definition.ts';
import { definition as saveTaGrade } from './save-ta-grade/definition.ts';
import { definition as taGrade } from './ta-grade/definition.ts';
import { definition as setActiveVersion } from './set-active-version/definition.ts';
import { definition as gradebook } from './gradebook/definition.ts';
import { definition as gradebookExport } from './gradebook-export/definition.ts';
import { definition as createGradebookExport } from './create-gradebook-export/definition.ts';
import { definition as createSimilarityRun } from './create-similarity-run/definition.ts';
import { definition as similarityRun } from './similarity-run/definition.ts';
import { definition as similarityRuns } from './similarity-runs/definition.ts';
import { definition as similarityPair } from './similarity-pair/definition.ts';
import { definition as decideSimilarityPair } from './decide-similarity-pair/definition.ts';
import { definition as courseGradebook } from './course-gradebook/definition.ts';
import { definition as regrade } from './regrade/definition.ts';
import { definition as regradeStatus } from './regrade-status/definition.ts';
import { definition as generateSummaries } from './generate-summaries/definition.ts';
import { definition as summariesJob } from './summaries-job/definition.ts';
import { definition as listSummaries } from './list-summaries/definition.ts';
import { definition as userSummary } from './user-summary/definition.ts';
import { definition as setCourseLateDays } from './set-course-late-days/definition.ts';
import { definition as grantLateDays } from './grant-late-days/definition.ts';
import { definition as setExtension } from './set-extension/definition.ts';
import { definition as studentLateDays } from './student-late-days/definition.ts';
import { definition as createWebhook } from './create-webhook/definition.ts';
import { definition as listWebhooks } from './list-webhooks/definition.ts';
import { definition as deleteWebhook } from './delete-webhook/definition.ts';
import { definition as listWebhookDeliveries } from './list-webhook-deliveries/definition.ts';
import { definition as replayWebhookDelivery } from './replay-webhook-delivery/definition.ts';
import { definition as listTeams } from './list-teams/definition.ts';
import { definition as importTeams } from './import-teams/definition.ts';
import { definition as setTeam } from './set-team/definition.ts';
import { definition as deleteTeam } from './delete-team/definition.ts';
import { definition as replaceGradeable } from './replace-gradeable/definition.ts';
import { definition as deleteGradeable } from './delete-gradeable/definition.ts';
import { definition as courseConfig } from './course-config/definition.ts';
import { definition as setCourseConfig } from './set-course-config/definition.ts';
import { definition as archiveCourse } from './archive-course/definition.ts';
import { definition as unarchiveCourse } from './unarchive-course/definition.ts';
import { definition as enrollMember } from './enroll-member/definition.ts';
import { definition as dropMember } from './drop-member/definition.ts';
import { definition as importClassList } from './import-class-list/definition.ts';
import { definition as openapi } from './openapi/definition.ts';
import { definition as apiDocs } from './api-docs/definition.ts';
import { definition as apiDocsAsset } from './api-docs-asset/definition.ts';
import { definition as listUsers } from './list-users/definition.ts';
import { definition as createUser } from './create-user/definition.ts';
import { definition as getUser } from './get-user/definition.ts';
import { definition as updateUser } from './update-user/definition.ts';
import { definition as setUserPassword } from './set-user-password/definition.ts';
import { definition as linkIdentity } from './link-identity/definition.ts';
import { definition as changePassword } from './change-password/definition.ts';
import { definition as listTerms } from './list-terms/definition.ts';
import { definition as userAudit } from './user-audit/definition.ts';
import { definition as courseAudit } from './course-audit/definition.ts';
import { definition as createLtiRegistration } from './create-lti-registration/definition.ts';
import { definition as createLtiDeepLink } from './create-lti-deep-link/definition.ts';
import { definition as listLtiRegistrations } from './list-lti-registrations/definition.ts';
import { definition as getLtiRegistration } from './get-lti-registration/definition.ts';
import { definition as deleteLtiRegistration } from './delete-lti-registration/definition.ts';
import { definition as ltiJwks } from './lti-jwks/definition.ts';
import { definition as ltiConfig } from './lti-config/definition.ts';
import { definition as ltiLogin } from './lti-login/definition.ts';
import { definition as ltiLoginForm } from './lti-login-form/definition.ts';
import { definition as ltiLaunch } from './lti-launch/definition.ts';
import { definition as linkLtiContext } from './link-lti-context/definition.ts';
import { definition as ltiLinks } from './lti-links/definition.ts';
import { definition as unlinkLtiContext } from './unlink-lti-context/definition.ts';
import { definition as ltiRosterSync } from './lti-roster-sync/definition.ts';
import { definition as listLtiScores } from './list-lti-scores/definition.ts';
import { definition as replayLtiScore } from './replay-lti-score/definition.ts';
import { definition as publishLtiScores } from './publish-lti-scores/definition.ts';
import { definition as createLtiInvitation } from './create-lti-invitation/definition.ts';
import { definition as ltiRegister } from './lti-register/definition.ts';
import { definition as notFound } from './not-found/definition.ts';
import { definition as gradingWorker } from './grading-worker/definition.ts';
import { definition as webhookDelivery } from './webhook-delivery/definition.ts';
import { definition as summariesWorker } from './summaries-worker/definition.ts';
import { definition as webhookRelay } from './webhook-relay/definition.ts';
import { definition as courseJobSweeper } from './course-job-sweeper/definition.ts';
import { definition as ltiScore } from './lti-score/definition.ts';
import { gatewayRouteKeysOf, routeKeysOf, routeMatcher, type FunctionDefinition, type RouteDefinition } from '#shared/http/routes.ts';
import { parseInput as parseWith, type Input } from '#shared/http/request.ts';

/** Every route, by its function's name (its folder). */
export const routes = {
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
  'open-inquiry': openInquiry,
  'list-inquiries': listInquiries,
  'post-to-inquiry': postToInquiry,
  'change-inquiry-status': changeInquiryStatus,
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
} as const satisfies Readonly<Record<string, RouteDefinition>>;

/** The functions that serve no route. */
export const workers = {
  'not-found': notFound,
  'grading-worker': gradingWorker,
  'webhook-delivery': webhookDelivery,
  'summaries-worker': summariesWorker,
  'webhook-relay': webhookRelay,
  'course-job-sweeper': courseJobSweeper,
  'lti-score': ltiScore,
} as const;

export type Routes = typeof routes;
export type { RouteName } from '#shared/http/routes.ts';
export type FunctionName = keyof typeof routes | keyof typeof workers;

declare module '#shared/http/routes.ts' {
  // The route names, for what shared/http keys by them (the contract).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by its supertype
  interface RouteNames extends Readonly<Record<keyof Routes, true>> {}
}

/** Every function, routes first. */
export const definitions: Readonly<Record<FunctionName, FunctionDefinition>> = { ...routes, ...workers };

/** Every (method, path) pair the API serves, aliases included: one API Gateway route each. */
export const routeKeys = routeKeysOf(routes);

/** The route keys of the deployed HTTP API: every route key, and HEAD beside each GET. */
export const gatewayRouteKeys = gatewayRouteKeysOf(routeKeys);

/** Matches a request to its route as API Gateway does. */
export const matchRoute = routeMatcher(gatewayRouteKeys);

/** A request's fields parsed as the named route's handler gets them (for tests of the HTTP layer's reading). */
export const parseInput = <Name extends keyof Routes>(name: Name, request: Parameters<typeof parseWith>[1]): Input<Routes[Name]> =>
  parseWith(routes[name], request);
