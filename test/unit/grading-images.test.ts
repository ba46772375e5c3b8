import { describe, expect, it } from 'vitest';
import { CURATED_IMAGE, ecrImage } from '#shared/grading/builds/images.ts';

const DIGEST = `sha256:${'9c'.repeat(32)}`;

describe('grading images', () => {
  it('reads an ECR image pinned by digest into its account, region, repository and digest', () => {
    expect(ecrImage(`123456789012.dkr.ecr.eu-central-1.amazonaws.com/grading/java-21@${DIGEST}`)).toEqual({
      account: '123456789012',
      region: 'eu-central-1',
      repository: 'grading/java-21',
      digest: DIGEST,
    });
  });

  it('takes no tag, no other registry and no malformed digest for one', () => {
    for (const image of [
      '123456789012.dkr.ecr.eu-central-1.amazonaws.com/grading/java:21',
      `docker.io/library/gcc@${DIGEST}`,
      `123456789012.dkr.ecr.eu-central-1.amazonaws.com.evil.example/grading@${DIGEST}`,
      `12345678901.dkr.ecr.eu-central-1.amazonaws.com/grading@${DIGEST}`,
      `123456789012.dkr.ecr.eu-central-1.amazonaws.com/Grading@${DIGEST}`,
      `123456789012.dkr.ecr.eu-central-1.amazonaws.com/grading@sha256:${'9C'.repeat(32)}`,
      `123456789012.dkr.ecr.eu-central-1.amazonaws.com/grading@${DIGEST}0`,
      'aws/codebuild/standard:7.0',
    ])
      expect(ecrImage(image), image).toBeUndefined();
  });

  it('tells a curated image by its name and tag', () => {
    expect(CURATED_IMAGE.test('aws/codebuild/amazonlinux-aarch64-standard:3.0')).toBe(true);
    expect(CURATED_IMAGE.test('aws/codebuild/standard')).toBe(false);
    expect(CURATED_IMAGE.test('attacker/codebuild/standard:7.0')).toBe(false);
  });
});
