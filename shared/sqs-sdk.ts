/**
 * The SQS client the queue senders use (sqs-send.ts), in one module so that a deployed function
 * carries it in a companion file beside its bundle, loaded by its first message: a route that
 * queues work does so on some requests only, and its bundle starts faster without the client.
 */
export { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
