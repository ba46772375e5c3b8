import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The service's structured JSON logger. It redacts nothing by itself: never pass it a request's
 * headers, body or any credential.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'course-submission-api' });
