/** The grading sandbox's setting, declared with every other in shared/config.ts. */
export { sandboxMode, UNSAFE_NO_SANDBOX } from '#shared/config.ts';
