import { Duration, Names, Stack, Validations, type CfnElement, type RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership, type LifecycleRule } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { bucketCorsRules } from '#infra/cors.ts';
import type { ObjectGrant } from '#infra/function-access.ts';
import { EXPORTS_PREFIX, FINGERPRINTS_PREFIX, termVersionsPrefix, UPLOADS_PREFIX } from '#shared/storage/keys.ts';

/** Unconfirmed uploads (shared/storage/keys.ts) live a day; a confirmed one has been copied into its version. */
const UPLOAD_DAYS = 1;

export interface SubmissionsBucketProps {
  readonly removalPolicy: RemovalPolicy;
  /** Browser origins that may POST files to the bucket with a presigned form (the API's own CORS origins). */
  readonly corsOrigins: readonly string[];
  /** Days each term's versions are kept (`versions/<term>/`), by term; a term not named is kept. */
  readonly retentionDays: Readonly<Record<string, number>>;
  /** Days a version's similarity fingerprints are kept (`fingerprints/`). */
  readonly fingerprintDays: number;
}

/** Days a gradebook export's CSV is kept: its link lasts minutes, and asking again makes a new one. */
const EXPORT_DAYS = 7;

/**
 * Submitted files: encrypted (SSE-S3), TLS only, no public access and no ACLs. Versions are their
 * own objects (keys.ts), so S3 versioning is off. Lifecycle: unconfirmed uploads expire after a
 * day, gradebook exports after a week, similarity fingerprints as the deployment says
 * (`similarityFingerprintDays`), incomplete multipart uploads are aborted after a day, and an operator may expire a term's
 * versions (`submissionRetentionDays`).
 */
export class SubmissionsBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: SubmissionsBucketProps) {
    super(scope, id);
    const lifecycleRules: LifecycleRule[] = [
      { id: 'UnconfirmedUploads', prefix: UPLOADS_PREFIX, expiration: Duration.days(UPLOAD_DAYS) },
      { id: 'GradebookExports', prefix: EXPORTS_PREFIX, expiration: Duration.days(EXPORT_DAYS) },
      { id: 'SimilarityFingerprints', prefix: FINGERPRINTS_PREFIX, expiration: Duration.days(props.fingerprintDays) },
      { id: 'IncompleteMultipartUploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ...Object.entries(props.retentionDays).map(([term, days]) => ({
        id: `Term-${term}`,
        prefix: termVersionsPrefix(term),
        expiration: Duration.days(days),
      })),
    ];
    const cors = bucketCorsRules(props.corsOrigins);
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      lifecycleRules,
      removalPolicy: props.removalPolicy,
      ...(cors.origins.length > 0
        ? {
            cors: [
              {
                allowedOrigins: [...cors.origins],
                allowedMethods: cors.methods.map((method) => HttpMethods[method as keyof typeof HttpMethods]),
                allowedHeaders: [...cors.headers],
                exposedHeaders: [...cors.exposed],
                maxAge: cors.maxAgeSeconds,
              },
            ],
          }
        : {}),
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only the functions reach the objects, each with the actions its definition names; CloudTrail records their calls, and S3 data events can be turned on where an audit of downloads is wanted.',
    });
  }

  /**
   * Exactly the actions of `grants`: object actions on their key prefix, ListBucket on the bucket
   * limited to the prefix. `owner` holds the grantee's role (its findings are acknowledged there).
   */
  grant(grantee: IGrantable, owner: Construct, grants: readonly ObjectGrant[]): void {
    for (const { prefix, actions } of grants) {
      const onObjects = actions.filter((action) => action !== 'ListBucket');
      if (onObjects.length > 0) {
        Validations.of(owner).acknowledge({
          id: `AwsSolutions-IAM5[Resource::<${this.arnAsSeenFrom(owner)}>/${prefix}*]`,
          reason: `Object keys are made at run time (shared/storage/keys.ts); the function may reach only ${prefix ? `the ${prefix} area its definition names` : 'the submissions bucket its definition names'}.`,
        });
        grantee.grantPrincipal.addToPrincipalPolicy(
          new PolicyStatement({ actions: onObjects.map((action) => `s3:${action}`), resources: [this.bucket.arnForObjects(`${prefix}*`)] }),
        );
      }
      if (actions.includes('ListBucket')) {
        grantee.grantPrincipal.addToPrincipalPolicy(
          new PolicyStatement({
            actions: ['s3:ListBucket'],
            resources: [this.bucket.bucketArn],
            ...(prefix ? { conditions: { StringLike: { 's3:prefix': `${prefix}*` } } } : {}),
          }),
        );
      }
    }
  }

  /** How cdk-nag names the bucket's ARN in the template of `scope`: its own attribute, or the nested stack's parameter passing it. */
  private arnAsSeenFrom(scope: Construct): string {
    const resource = this.bucket.node.defaultChild as CfnElement;
    const own = Stack.of(this);
    if (Stack.of(scope) === own) return `${own.resolve(own.getLogicalId(resource)) as string}.Arn`;
    return `referenceto${Names.nodeUniqueId(resource.node)}Arn`;
  }
}
