import type { Node } from 'constructs';

/** What varies between deployments, from CDK context (`cdk.json` or `-c key=value`). */
export interface DeploymentSettings {
  /** `stage`: names the stack; `prod` keeps the data when the stack or a table is deleted. */
  readonly stage: string;
  readonly production: boolean;
  /** `corsOrigins`: browser origins allowed to call the API (comma list or array); none: no CORS. */
  readonly corsOrigins: readonly string[];
  /** `throttleRate` / `throttleBurst`: the API stage's steady requests per second and burst. */
  readonly throttleRate: number;
  readonly throttleBurst: number;
}

export const DEFAULT_STAGE = 'dev';
export const DEFAULT_THROTTLE_RATE = 50;
export const DEFAULT_THROTTLE_BURST = 100;

export function deploymentSettings(node: Node): DeploymentSettings {
  const stage = String(node.tryGetContext('stage') ?? DEFAULT_STAGE);
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
    throw new Error(`Context "stage" must be lower-case letters, digits and dashes (at most 20), not "${stage}"`);
  }
  return {
    stage,
    production: stage === 'prod',
    corsOrigins: origins(node.tryGetContext('corsOrigins')),
    throttleRate: positiveNumber('throttleRate', node.tryGetContext('throttleRate'), DEFAULT_THROTTLE_RATE),
    throttleBurst: positiveNumber('throttleBurst', node.tryGetContext('throttleBurst'), DEFAULT_THROTTLE_BURST),
  };
}

function origins(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value.map(String) : String(value).split(',');
  const result = list.map((origin) => origin.trim()).filter((origin) => origin !== '');
  for (const origin of result) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new Error(`Context "corsOrigins" takes origins like https://app.example.edu (or *), not "${origin}"`);
    }
  }
  return result;
}

function positiveNumber(name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`Context "${name}" must be a positive number, not "${String(value)}"`);
  return number;
}
