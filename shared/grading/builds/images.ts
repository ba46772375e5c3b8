/**
 * The build images a deployment may offer (`gradingImages` in infra/aws/settings.ts): CodeBuild's
 * curated images, named by tag, which CodeBuild pulls with its own credentials; and images of a
 * private ECR repository pinned by digest, which it pulls with the build's role. Pure.
 */

/** A CodeBuild curated image, e.g. `aws/codebuild/standard:7.0`. */
export const CURATED_IMAGE = /^aws\/codebuild\/[a-z0-9._/-]+:[A-Za-z0-9._-]+$/;

/** An image of a private ECR repository, pinned by digest: where it lives. */
export interface EcrImage {
  readonly account: string;
  readonly region: string;
  readonly repository: string;
  readonly digest: string;
}

/** The repository and digest of an ECR image reference pinned by digest; undefined for any other image. */
export function ecrImage(image: string): EcrImage | undefined {
  const match =
    /^(\d{12})\.dkr\.ecr\.([a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com\/([a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*)@(sha256:[0-9a-f]{64})$/.exec(
      image,
    );
  if (!match) return undefined;
  const [, account = '', region = '', repository = '', digest = ''] = match;
  return { account, region, repository, digest };
}
