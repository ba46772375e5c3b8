import type { LimitSettings, TestCase } from '#shared/gradeables/gradeable.ts';
import type { CaseLimits, HarnessTestCase } from './harness/protocol.ts';

interface LimitSpec {
  /** The field of CaseLimits it sets. */
  readonly limit: keyof CaseLimits;
  /** The operator's setting bounding it. */
  readonly variable: string;
  /** Used when the gradeable asks for nothing (CPU time: the test case's time limit). */
  readonly fallback: number | 'timeout';
  /** The bound when the operator sets none. */
  readonly bound: number;
}

/** Every limit: its gradeable field, its operator setting, its default and default bound. */
export const LIMIT_SPECS: Record<keyof LimitSettings, LimitSpec> = {
  processes: { limit: 'processes', variable: 'GRADING_MAX_PROCESSES', fallback: 64, bound: 256 },
  memory_mib: { limit: 'memoryMib', variable: 'GRADING_MAX_MEMORY_MIB', fallback: 512, bound: 2048 },
  cpu_seconds: { limit: 'cpuSeconds', variable: 'GRADING_MAX_CPU_SECONDS', fallback: 'timeout', bound: 600 },
  file_size_mib: { limit: 'fileSizeMib', variable: 'GRADING_MAX_FILE_SIZE_MIB', fallback: 64, bound: 1024 },
  disk_mib: { limit: 'diskMib', variable: 'GRADING_MAX_DISK_MIB', fallback: 256, bound: 1024 },
};

const specs = Object.entries(LIMIT_SPECS) as [keyof LimitSettings, LimitSpec][];

/** The bounds when the operator configures none. */
export const DEFAULT_BOUNDS: CaseLimits = Object.fromEntries(specs.map(([, spec]) => [spec.limit, spec.bound])) as unknown as CaseLimits;

/**
 * The operator's bounds from `GRADING_MAX_*` settings in `env`; a setting that is not a whole
 * number of at least 1 is reported in `problems` and its default bound used.
 */
export function limitBounds(env: Readonly<Record<string, string | undefined>>): { bounds: CaseLimits; problems: string[] } {
  const problems: string[] = [];
  const bounds = { ...DEFAULT_BOUNDS } as Record<keyof CaseLimits, number>;
  for (const [, spec] of specs) {
    const raw = env[spec.variable];
    if (raw === undefined || raw.trim() === '') continue;
    const value = Number(raw);
    if (Number.isSafeInteger(value) && value >= 1) bounds[spec.limit] = value;
    else problems.push(`${spec.variable} must be a whole number of at least 1, not ${JSON.stringify(raw)}; using ${spec.bound}`);
  }
  return { bounds, problems };
}

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
