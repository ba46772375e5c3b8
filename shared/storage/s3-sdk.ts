/**
 * The parts of the AWS SDK the submissions bucket uses (objects.ts), in one module so that a
 * deployed function carries them in a companion file beside its bundle, loaded by its first
 * object operation: a function that stores or links files does so on some requests only, and a
 * bundle without the S3 client (about 300 KB) starts faster.
 */
export {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
export { createPresignedPost } from '@aws-sdk/s3-presigned-post';
export { getSignedUrl } from '@aws-sdk/s3-request-presigner';
