import { config, parseSetting, type Config, type GradingBoundName, type Reported } from '#shared/config.ts';
import type { LimitSettings, TestCase } from '#shared/gradeables/gradeable.ts';
import type { CaseLimits, HarnessTestCase } from '../harness/protocol.ts';

interface LimitSpec {
  /** The field of CaseLimits it sets. */
  readonly limit: keyof CaseLimits;
  /** The operator's setting bounding it (shared/config.ts declares its default bound). */
  readonly variable: GradingBoundName;
  /** Used when the gradeable asks for nothing (CPU time: the test case's time limit). */
  readonly fallback: number | 'timeout';
}

/** Every limit: its gradeable field, its operator setting, its default and default bound. */
export const LIMIT_SPECS: Record<keyof LimitSettings, LimitSpec> = {
  processes: { limit: 'processes', variable: 'GRADING_MAX_PROCESSES', fallback: 64 },
  memory_mib: { limit: 'memoryMib', variable: 'GRADING_MAX_MEMORY_MIB', fallback: 512 },
  cpu_seconds: { limit: 'cpuSeconds', variable: 'GRADING_MAX_CPU_SECONDS', fallback: 'timeout' },
  file_size_mib: { limit: 'fileSizeMib', variable: 'GRADING_MAX_FILE_SIZE_MIB', fallback: 64 },
  disk_mib: { limit: 'diskMib', variable: 'GRADING_MAX_DISK_MIB', fallback: 256 },
};

const specs = Object.entries(LIMIT_SPECS) as [keyof LimitSettings, LimitSpec][];

/** The operator's bounds, each read by `read`; a setting that is refused is reported in `problems` and its default bound used. */
function boundsFrom(read: (variable: GradingBoundName) => Reported<number>): { bounds: CaseLimits; problems: string[] } {
  const problems: string[] = [];
  const bounds = {} as Record<keyof CaseLimits, number>;
  for (const [, spec] of specs) {
    const { value, problem } = read(spec.variable);
    bounds[spec.limit] = value;
    if (problem) problems.push(problem);
  }
  return { bounds, problems };
}

/** The bounds when the operator configures none. */
export const DEFAULT_BOUNDS: CaseLimits = boundsFrom((variable) => parseSetting(variable, undefined)).bounds;

/**
 * The operator's bounds from the `GRADING_MAX_*` settings in `env`; a setting that is not a whole
 * number of at least 1 is reported in `problems` and its default bound used.
 */
export const limitBounds = (env: Readonly<Record<string, string | undefined>>) =>
  boundsFrom((variable) => parseSetting(variable, env[variable]));

/** The operator's bounds in force (`GRADING_MAX_*`, read through shared/config.ts). */
export const configuredBounds = () => boundsFrom((variable): Config[GradingBoundName] => config(variable));

/**
 * The limits in force for `testCase`: its own `limits`, else the gradeable's, else the default
 * (CPU time: the test case's time limit, rounded up), each capped at the operator's bound.
 */
export function caseLimits(
  testCase: Pick<TestCase, 'timeout_seconds' | 'limits'>,
  gradeable: LimitSettings | undefined,
  bounds: CaseLimits,
): CaseLimits {
  const limits = {} as Record<keyof CaseLimits, number>;
  for (const [field, spec] of specs) {
    const fallback = spec.fallback === 'timeout' ? Math.ceil(testCase.timeout_seconds) : spec.fallback;
    const asked = testCase.limits?.[field] ?? gradeable?.[field] ?? fallback;
    limits[spec.limit] = Math.min(asked, bounds[spec.limit]);
  }
  return limits;
}

/** The test cases of a gradeable as the runner and the harness get them. */
export const runTestCases = (testCases: readonly TestCase[], gradeable: LimitSettings | undefined, bounds: CaseLimits): HarnessTestCase[] =>
  testCases.map((testCase) => ({
    name: testCase.name,
    command: testCase.command,
    timeout_seconds: testCase.timeout_seconds,
    expect: testCase.expect,
    limits: caseLimits(testCase, gradeable, bounds),
  }));
