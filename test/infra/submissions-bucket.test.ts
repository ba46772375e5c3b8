import { App, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import cdkNag from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { objectGrants } from '#infra/function-access.ts';
import { SubmissionsBucket } from '#infra/aws/submissions-bucket.ts';
import { logicalId, synthesize, type Synthesized } from './synth.ts';

/** The submissions bucket in the service's template (no bundling: test/infra/stack.test.ts bundles and checks grants). */
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ corsOrigins: 'https://app.example.edu', submissionRetentionDays: { f25: 400, s26: 30 } }, { bundle: false });
}, 120_000);

describe('the submissions bucket', () => {
  it('is encrypted, TLS only, private, without ACLs; uploads expire after a day, gradebook exports after a week, similarity fingerprints after two years, a term’s versions as the operator says', () => {
    const bucket = synth.resources[logicalId(synth.stack.submissions.bucket)]!;
    expect(bucket.Properties).toEqual({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: {
        Rules: [
          { Id: 'UnconfirmedUploads', Prefix: 'uploads/', ExpirationInDays: 1, Status: 'Enabled' },
          { Id: 'GradebookExports', Prefix: 'exports/', ExpirationInDays: 7, Status: 'Enabled' },
          { Id: 'SimilarityFingerprints', Prefix: 'fingerprints/', ExpirationInDays: 730, Status: 'Enabled' },
          { Id: 'IncompleteMultipartUploads', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' },
          { Id: 'Term-f25', Prefix: 'versions/f25/', ExpirationInDays: 400, Status: 'Enabled' },
          { Id: 'Term-s26', Prefix: 'versions/s26/', ExpirationInDays: 30, Status: 'Enabled' },
        ],
      },
      CorsConfiguration: {
        CorsRules: [
          {
            AllowedOrigins: ['https://app.example.edu'],
            AllowedMethods: ['POST', 'GET'],
            AllowedHeaders: ['*'],
            ExposedHeaders: ['etag', 'location'],
            MaxAge: 3600,
          },
        ],
      },
    });
    const statements = Object.values(synth.resources)
      .filter(
        (resource) =>
          resource.Type === 'AWS::S3::BucketPolicy' && resource.Properties.Bucket.Ref === logicalId(synth.stack.submissions.bucket),
      )
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    expect(statements).toEqual([
      expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
  });

  it('refuses a bad submissionRetentionDays', () => {
    expect(() => synthesize({ submissionRetentionDays: 'f25=0' }, { bundle: false })).toThrow(/submissionRetentionDays/);
    expect(() => synthesize({ submissionRetentionDays: { 'f/25': 10 } }, { bundle: false })).toThrow(/submissionRetentionDays/);
  });
});

describe('grants on the submissions bucket, derived from a definition’s objects', () => {
  it('turns areas into key prefixes, and a plain list into every key', () => {
    expect(objectGrants(undefined)).toEqual([]);
    expect(objectGrants(['PutObject', 'GetObject', 'GetObject'])).toEqual([{ prefix: '', actions: ['GetObject', 'PutObject'] }]);
    expect(objectGrants({ uploads: ['PutObject'], versions: ['ListBucket', 'GetObject'] })).toEqual([
      { prefix: 'uploads/', actions: ['PutObject'] },
      { prefix: 'versions/', actions: ['GetObject', 'ListBucket'] },
    ]);
  });

  it('grants exactly those actions, ListBucket only under the prefix, in the bucket’s stack and in a nested one, cdk-nag clean', () => {
    const stack = new Stack(new App(), 'Parent');
    const files = new SubmissionsBucket(stack, 'Files', {
      removalPolicy: RemovalPolicy.DESTROY,
      corsOrigins: [],
      retentionDays: {},
      fingerprintDays: 730,
    });
    const nested = new NestedStack(stack, 'Group');
    const roles = [stack, nested].map((scope) => new Role(scope, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }));
    for (const role of roles) files.grant(role, role, objectGrants({ uploads: ['PutObject', 'GetObject'], versions: ['ListBucket'] }));

    const bucketArn = { 'Fn::GetAtt': [stack.resolve(stack.getLogicalId(files.bucket.node.defaultChild as never)) as string, 'Arn'] };
    const statements = Template.fromStack(stack).findResources('AWS::IAM::Policy');
    expect(
      Object.values(statements).flatMap(
        (policy) => (policy as { Properties: { PolicyDocument: { Statement: unknown[] } } }).Properties.PolicyDocument.Statement,
      ),
    ).toEqual([
      { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: { 'Fn::Join': ['', [bucketArn, '/uploads/*']] } },
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: bucketArn, Condition: { StringLike: { 's3:prefix': 'versions/*' } } },
    ]);
    const report = new cdkNag.AwsSolutionsChecks().validateScope(stack);
    expect(report.violations.filter((violation) => violation.severity === 'error').map((violation) => violation.ruleName)).toEqual([]);
  });
});
