import { describe, expect, it } from 'vitest';
import { sandboxStartFailure } from '#shared/grading/harness/verdict.ts';

const end = { exitCode: 1, signal: null, timedOut: false, startError: null, stderr: '' };

describe('why a sandbox did not come up', () => {
  it('names the signal that killed its first process: reported, or as exit code 128 + N', () => {
    expect(sandboxStartFailure({ ...end, exitCode: null, signal: 'SIGSEGV' })).toBe('its first process was killed by SIGSEGV');
    expect(sandboxStartFailure({ ...end, exitCode: 137, stderr: 'bwrap: setting up uid map\n' })).toBe(
      'its first process was killed by SIGKILL (bwrap: setting up uid map)',
    );
  });

  it('says when unshare lost the signal that killed its first process', () => {
    expect(sandboxStartFailure({ ...end, stderr: 'unshare: sigprocmask unblock failed: Invalid argument\n' })).toBe(
      'its first process was killed by a signal that unshare could not pass on (unshare: sigprocmask unblock failed: Invalid argument)',
    );
  });

  it('gives the start error, a time-out or the exit code otherwise, with the last lines of the error output', () => {
    expect(sandboxStartFailure({ ...end, startError: 'spawn unshare ENOENT' })).toBe('spawn unshare ENOENT');
    expect(sandboxStartFailure({ ...end, exitCode: null, timedOut: true })).toBe('it did not finish in time');
    expect(sandboxStartFailure({ ...end, stderr: 'a\nb\nc\nd user namespace was made\n' })).toBe(
      'exit code 1 (b c d user namespace was made)',
    );
    expect(sandboxStartFailure(end)).toBe('exit code 1');
  });
});
