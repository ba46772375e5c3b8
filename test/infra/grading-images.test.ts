import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CourseSubmissionStack } from '#infra/aws/stack.ts';
import { deploymentSettings } from '#infra/aws/settings.ts';
import { startBuildInput } from '#shared/grading/builds/codebuild.ts';
import { imageDigest } from '#shared/grading/grading-record.ts';
import { REGION } from '../deployed/cloudformation.ts';
import { logicalId, synthesize, type Synthesized } from './synth.ts';

const DIGEST = `sha256:${'3f'.repeat(32)}`;
const CPP = `123456789012.dkr.ecr.${REGION}.amazonaws.com/grading/cpp@${DIGEST}`;
const PULL = ['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'];

// A deployment whose default image is one of its own ECR's, pinned by digest, beside a curated one.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ gradingImages: `default=${CPP},curated=aws/codebuild/standard:7.0` }, { bundle: false });
}, 300_000);

const ofType = (type: string) => Object.entries(synth.resources).filter(([, resource]) => resource.Type === type);
const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
const endpointOf = (service: string) =>
  ofType('AWS::EC2::VPCEndpoint').find(([, endpoint]) => JSON.stringify(endpoint.Properties.ServiceName).includes(service))?.[1];

describe('grading images pinned by digest in ECR', () => {
  it('starts their builds pulling with the build role, curated ones with CodeBuild’s own credentials', () => {
    expect(startBuildInput('grading', CPP, 30)).toMatchObject({ imageOverride: CPP, imagePullCredentialsTypeOverride: 'SERVICE_ROLE' });
    expect(startBuildInput('grading', 'aws/codebuild/standard:7.0', 30)).toMatchObject({ imagePullCredentialsTypeOverride: 'CODEBUILD' });
    // The grading record's digest is the one the build's reported image pins.
    expect(imageDigest(CPP)).toBe(DIGEST);
  });

  it('opens the ECR API and registry endpoints to the builds only, for pulls of the offered repository by the build role only', () => {
    const builds = logicalId(synth.stack.gradingSandbox.project.connections.securityGroups[0]!);
    const role = synth.resources[ofType('AWS::CodeBuild::Project')[0]![1].Properties.ServiceRole['Fn::GetAtt'][0] as string]!;
    for (const service of ['.ecr.api', '.ecr.dkr']) {
      const endpoint = endpointOf(service);
      expect(endpoint, service).toBeDefined();
      expect(endpoint!.Properties.PrivateDnsEnabled).toBe(true);
      const statements = endpoint!.Properties.PolicyDocument.Statement as Record<string, unknown>[];
      const actions = statements.flatMap((statement) => asArray(statement.Action as string | string[])).sort();
      expect(actions).toEqual(['ecr:GetAuthorizationToken', ...PULL].sort());
      for (const statement of statements) {
        expect(statement.Effect).toBe('Allow');
        expect(statement.Condition).toEqual({
          ArnEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': [logicalId(synth.stack.gradingSandbox.buildRole), 'Arn'] } },
        });
      }
      const pull = statements.find((statement) => asArray(statement.Action as string[]).includes('ecr:BatchGetImage'))!;
      expect(JSON.stringify(pull.Resource)).toContain(`:ecr:${REGION}:123456789012:repository/grading/cpp`);
      // Reachable from the builds' security group alone, on HTTPS.
      const groups = endpoint!.Properties.SecurityGroupIds.map((id: { 'Fn::GetAtt': [string] }) => id['Fn::GetAtt'][0]);
      const ingress = ofType('AWS::EC2::SecurityGroupIngress').filter(([, rule]) =>
        groups.includes(rule.Properties.GroupId['Fn::GetAtt'][0]),
      );
      const inline = groups.flatMap((group: string) => synth.resources[group]!.Properties.SecurityGroupIngress ?? []);
      expect(inline).toEqual([]);
      expect(ingress.map(([, rule]) => [rule.Properties.SourceSecurityGroupId['Fn::GetAtt'][0], rule.Properties.FromPort])).toEqual([
        [builds, 443],
      ]);
    }
    expect(role).toBeDefined();
  });

  it('lets the S3 endpoint read ECR’s layer bucket of the region besides the job objects, nothing more', () => {
    const [, gateway] = ofType('AWS::EC2::VPCEndpoint').find(([, endpoint]) => endpoint.Properties.VpcEndpointType === 'Gateway')!;
    const statements = gateway.Properties.PolicyDocument.Statement as Record<string, unknown>[];
    expect(statements).toHaveLength(2);
    const layers = statements.find((statement) => JSON.stringify(statement.Resource).includes('starport-layer-bucket'))!;
    expect(layers.Action).toBe('s3:GetObject');
    expect(JSON.stringify(layers.Resource)).toContain('-starport-layer-bucket/*');
  });

  it('lets the build role pull the offered repository and nothing else of ECR (IAM evaluated through the endpoint)', async () => {
    const { loadDeployment } = await import('../deployed/cloudformation.ts');
    const { PolicyEvaluator, sessionArn } = await import('../deployed/iam.ts');
    const { anyPrincipalAsStar } = await import('../deployed/s3.ts');
    const deployment = loadDeployment(synth.app.synth().directory, synth.stack.stackName, { withoutCode: true });
    const [project] = deployment.codeBuildProjects;
    const role = project!.serviceRole;
    const build = { label: 'build', arn: sessionArn(role, 'AWSCodeBuild-1'), role };
    const insiderRole = {
      logicalId: 'Insider',
      name: 'ImagePuller',
      arn: 'arn:aws:iam::123456789012:role/ImagePuller',
      trustPolicy: undefined,
      policies: [{ name: 'EcrAll', document: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'ecr:*', Resource: '*' }] } }],
    };
    const insider = { label: 'insider', arn: sessionArn(insiderRole, 'insider'), role: insiderRole };
    const api = deployment.vpcEndpoints.find((endpoint) => endpoint.serviceName.includes('.ecr.api'))!;
    const evaluator = new PolicyEvaluator();
    const repository = (name: string) => `arn:aws:ecr:${REGION}:123456789012:repository/${name}`;
    const ask = async (who: typeof build, action: string, resource: string) =>
      (
        await evaluator.authorize(who, action, resource, {
          vpcEndpointPolicies: [{ name: api.logicalId, policy: anyPrincipalAsStar(api.policy!) }],
          context: { 'aws:SourceVpce': api.id, 'aws:SourceVpc': api.vpcId },
          purpose: 'grading images test',
        })
      ).allowed;
    for (const action of PULL) expect(await ask(build, action, repository('grading/cpp')), action).toBe(true);
    expect(await ask(build, 'ecr:GetAuthorizationToken', '*')).toBe(true);
    expect(await ask(build, 'ecr:BatchGetImage', repository('other/secret')), 'another repository').toBe(false);
    for (const action of ['ecr:PutImage', 'ecr:InitiateLayerUpload', 'ecr:DeleteRepository', 'ecr:SetRepositoryPolicy'])
      expect(await ask(build, action, repository('grading/cpp')), action).toBe(false);
    // Nobody else pulls through the grading VPC's endpoint, whatever their own policies say.
    expect(await ask(insider, 'ecr:BatchGetImage', repository('grading/cpp'))).toBe(false);
    expect(await ask(insider, 'ecr:GetAuthorizationToken', '*')).toBe(false);
  });

  it('runs the project on an ECR default image with the build role’s credentials', () => {
    const [, project] = ofType('AWS::CodeBuild::Project')[0]!;
    expect(project.Properties.Environment.ImagePullCredentialsType).toBe('SERVICE_ROLE');
    expect(JSON.stringify(project.Properties.Environment.Image)).toContain(`grading/cpp@${DIGEST}`);
  });

  it('refuses an image of another region, which the grading VPC cannot reach', () => {
    const app = new App({ context: { gradingImages: `cpp=${CPP.replace(REGION, 'eu-west-1')}`, 'aws:cdk:bundling-stacks': [] } });
    expect(
      () =>
        new CourseSubmissionStack(app, 'Elsewhere', {
          settings: deploymentSettings(app.node),
          env: { account: '123456789012', region: REGION },
        }),
    ).toThrow(/is in eu-west-1: the grading VPC reaches ECR in its own region \(us-east-1\) only/);
  }, 120_000);
});
