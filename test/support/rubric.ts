import type { Mark, RubricComponent } from '#shared/gradeables/gradeable.ts';

/**
 * A rubric component with every field a gradeable's JSON gives one: worth 5 points, clamped to 0
 * to 5, starting at 0, with no marks or comments, unless `fields` says otherwise.
 */
export function rubricComponent(title: string, fields: Partial<RubricComponent> = {}): RubricComponent {
  return {
    title,
    ta_comment: '',
    student_comment: '',
    lower_clamp: 0,
    default: 0,
    max_value: 5,
    upper_clamp: 5,
    text: false,
    peer_component: false,
    page: 0,
    is_itempool_linked: false,
    itempool: '',
    marks: [],
    ...fields,
  };
}

/** A mark of a rubric component, shown to students unless `publish` is false. */
export const mark = (points: number, title: string, publish = true): Mark => ({ points, title, publish });
