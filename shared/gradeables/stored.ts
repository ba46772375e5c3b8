/** Stored gradeables as the domain reads them: the data layer's records, typed as GradeableDocument. */
import { gradeableRef as storedGradeableRef, gradeablesOfCourse as storedGradeablesOfCourse } from '#shared/data/gradeables.ts';
import type { ItemRef } from '#shared/data/items.ts';
import type { GradeableDocument } from './gradeable.ts';

export { createGradeableItem } from '#shared/data/gradeables.ts';

export const gradeableRef = (term: string, course: string, gradeableId: string): ItemRef<GradeableDocument> =>
  storedGradeableRef<GradeableDocument>(term, course, gradeableId);

export const gradeablesOfCourse = (term: string, course: string): Promise<GradeableDocument[]> =>
  storedGradeablesOfCourse<GradeableDocument>(term, course);
