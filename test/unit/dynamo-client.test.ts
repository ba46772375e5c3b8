import { describe, expect, it } from 'vitest';
import { dynamo } from '#shared/data/client.ts';

describe('the shared DynamoDB client', () => {
  it("does not run the SDK's logger middleware, which filters every command's input and output for a logger that writes nothing", () => {
    const middleware = dynamo().middlewareStack.identify();
    expect(middleware.some((entry) => entry.startsWith('loggerMiddleware'))).toBe(false);
    // The project's own middleware is still there.
    expect(middleware.some((entry) => entry.startsWith('requestWrites'))).toBe(true);
  });
});
