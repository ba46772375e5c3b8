import { getDenialReasons, runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { ACCOUNT, type IamRole, type PolicyDocument } from './cloudformation.ts';

/** Who makes a request: a function's execution role session, a service principal, or the operator. */
export interface Principal {
  /** For messages: the function's logical id, the service, "operator". */
  readonly label: string;
  /** The ARN IAM sees: `arn:aws:sts::<account>:assumed-role/<role>/<session>`, or a service name. */
  readonly arn: string;
  /** Identity policies (none for a service principal, which resource policies must allow). */
  readonly role?: IamRole;
  /** Everything allowed, without evaluation (the operator with administrator rights). */
  readonly administrator?: boolean;
}

export interface Denial {
  readonly principal: string;
  readonly action: string;
  readonly resource: string;
  /** What AWS would answer. */
  readonly message: string;
  /** What the request was for (a route, the queue's poller, …). */
  readonly context: string;
}

export interface AuthorizeOptions {
  readonly resourcePolicy?: PolicyDocument | undefined;
  /** The policies of the VPC endpoint the request came through (an S3 gateway endpoint, say). */
  readonly vpcEndpointPolicies?: readonly { name: string; policy: PolicyDocument }[] | undefined;
  /** Request context keys beyond the defaults (aws:SourceArn of a service, …). */
  readonly context?: Record<string, string>;
  /** What the request was for, for the record of denials. */
  readonly purpose: string;
  /** A denial that is an ordinary answer, not a fault (S3 checking s3:ListBucket to say whether a key exists): not recorded. */
  readonly unrecorded?: boolean;
}

export const sessionArn = (role: IamRole, sessionName: string) => `arn:aws:sts::${ACCOUNT}:assumed-role/${role.name}/${sessionName}`;

/** Several resource-policy documents (a queue may have more than one QueuePolicy) as one. */
export function mergePolicies(documents: readonly PolicyDocument[]): PolicyDocument | undefined {
  if (documents.length === 0) return undefined;
  return {
    Version: '2012-10-17',
    Statement: documents.flatMap((document) => (Array.isArray(document.Statement) ? document.Statement : [document.Statement])),
  };
}

/**
 * Evaluates requests with a real IAM policy evaluator (@cloud-copilot/iam-simulate): identity
 * policies of the principal's role, its permissions boundary and the resource's own policy, as
 * AWS does for a request within one account. Every denial is recorded with AWS's own message.
 */
export class PolicyEvaluator {
  readonly denials: Denial[] = [];
  private readonly cache = new Map<string, Promise<{ allowed: boolean; message: string }>>();

  async authorize(
    principal: Principal,
    action: string,
    resource: string,
    options: AuthorizeOptions,
  ): Promise<{ allowed: boolean; message: string }> {
    if (principal.administrator) return { allowed: true, message: '' };
    const key = JSON.stringify([
      principal.arn,
      this.versionOf(principal.role?.policies),
      action,
      resource,
      options.resourcePolicy ?? null,
      options.vpcEndpointPolicies ?? null,
      options.context ?? {},
    ]);
    let decision = this.cache.get(key);
    if (!decision) {
      decision = this.evaluate(principal, action, resource, options);
      this.cache.set(key, decision);
    }
    const result = await decision;
    if (!result.allowed && !options.unrecorded)
      this.denials.push({ principal: principal.label, action, resource, message: result.message, context: options.purpose });
    return result;
  }

  private readonly versions = new WeakMap<object, number>();
  private lastVersion = 0;

  /** Decisions are cached per set of policies: a test that swaps a role's policies gets fresh ones. */
  private versionOf(policies: object | undefined): number {
    if (!policies) return 0;
    let version = this.versions.get(policies);
    if (version === undefined) {
      version = ++this.lastVersion;
      this.versions.set(policies, version);
    }
    return version;
  }

  private async evaluate(
    principal: Principal,
    action: string,
    resource: string,
    options: AuthorizeOptions,
  ): Promise<{ allowed: boolean; message: string }> {
    const simulation: Simulation = {
      request: {
        principal: principal.arn,
        action,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: {
          // The SDK talks to AWS over TLS; the emulated endpoint is plain HTTP on loopback.
          'aws:SecureTransport': 'true',
          ...(principal.role
            ? { 'aws:PrincipalArn': principal.role.arn, 'aws:PrincipalAccount': ACCOUNT, 'aws:PrincipalType': 'AssumedRole' }
            : {}),
          ...options.context,
        },
      },
      identityPolicies: (principal.role?.policies ?? []).map((policy) => ({ name: policy.name, policy: policy.document })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(options.resourcePolicy ? { resourcePolicy: options.resourcePolicy } : {}),
      ...(options.vpcEndpointPolicies?.length
        ? { vpcEndpointPolicies: options.vpcEndpointPolicies.map((endpoint) => ({ name: endpoint.name, policy: endpoint.policy })) }
        : {}),
      ...(principal.role?.permissionsBoundary
        ? { permissionBoundaryPolicies: [{ name: 'boundary', policy: principal.role.permissionsBoundary }] }
        : {}),
    };
    const outcome = await runSimulation(simulation, {});
    if (outcome.resultType === 'error') {
      return {
        allowed: false,
        message: `The policy evaluator refused the request ${action} on ${resource}: ${JSON.stringify(outcome.errors)}`,
      };
    }
    if (outcome.overallResult === 'Allowed') return { allowed: true, message: '' };
    const analysis = outcome.resultType === 'single' ? outcome.result.analysis : outcome.results[0]?.analysis;
    const reasons = analysis ? getDenialReasons(analysis) : [];
    const explicit = reasons.find((reason) => reason.denialType === 'Explicit');
    const policyKind = (type: string) =>
      type === 'resource'
        ? 'a resource-based policy'
        : type === 'pb'
          ? 'a permissions boundary'
          : type === 'scp'
            ? 'a service control policy'
            : type === 'vpce'
              ? 'a VPC endpoint policy'
              : 'an identity-based policy';
    const blockedBy = (type: string) => reasons.some((reason) => reason.policyType === type);
    const because = explicit
      ? `with an explicit deny in ${policyKind(explicit.policyType)}`
      : blockedBy('pb')
        ? `because no permissions boundary allows the ${action} action`
        : principal.role && blockedBy('identity')
          ? `because no identity-based policy allows the ${action} action`
          : blockedBy('vpce')
            ? `because no VPC endpoint policy allows the ${action} action`
            : principal.role
              ? `because no identity-based policy allows the ${action} action`
              : `because no resource-based policy allows the ${action} action`;
    return {
      allowed: false,
      message: `User: ${principal.arn} is not authorized to perform: ${action} on resource: ${resource} ${because}`,
    };
  }
}
