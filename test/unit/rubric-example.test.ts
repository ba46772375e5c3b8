import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateGradeable } from '#shared/gradeables/validate.ts';
import { RUBRIC_PARAMETERS } from '#shared/gradeables/schema.ts';
import { taMaximum } from '#shared/tagrading/grade.ts';

/** The rubric example of docs/gradeables.md, between its markers, as an instructor would paste it. */
function documentedExample(): Record<string, unknown> {
  const page = readFileSync(new URL('../../docs/gradeables.md', import.meta.url), 'utf8');
  const block = /<!-- rubric-example:start -->\s*```json\n([\s\S]*?)```\s*<!-- rubric-example:end -->/.exec(page);
  if (!block) throw new Error('docs/gradeables.md has no rubric example between its markers');
  return JSON.parse(block[1]!) as Record<string, unknown>;
}

describe('the rubric example of docs/gradeables.md', () => {
  it('is a gradeable the upload route takes, its rubric as written', () => {
    const example = documentedExample();
    const result = validateGradeable(example, { timeZone: 'UTC', now: new Date('2026-09-01T00:00:00Z') });
    expect(result.errors).toEqual([]);
    expect(result.document!.rubric).toEqual(example.rubric);
    expect(taMaximum(result.document!)).toBe(10);
  });

  it('gives every field a rubric component has: each is required, and there is no other', () => {
    const example = documentedExample();
    const [component] = example.rubric as Record<string, unknown>[];
    const keys = Object.keys(component!);
    expect(keys).toHaveLength(13);
    for (const key of keys) {
      const { [key]: _left, ...rest } = component!;
      const result = validateGradeable({ ...example, rubric: [rest] }, { timeZone: 'UTC', now: new Date('2026-09-01T00:00:00Z') });
      expect(result.errors, key).toContainEqual({ path: `rubric[0].${key}`, message: RUBRIC_PARAMETERS });
    }
  });
});
