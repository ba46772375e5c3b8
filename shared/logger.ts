import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.ts';

/**
 * The service's structured JSON logger. It redacts nothing by itself: never pass it a request's
 * headers, body or any credential. Creating it reads the first setting of the process, so a
 * function's whole configuration is validated when it starts (shared/config.ts).
 */
export const logger = new Logger({ serviceName: config('POWERTOOLS_SERVICE_NAME') });
