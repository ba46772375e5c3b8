/**
 * Enrollments written with copies made from sources read before the write, without checking the
 * sources (class-list imports and enrollments are batch writes; the command line's bootstrap of a
 * course a transaction; POST /api/courses checks them in its own) may carry a copy that a change of
 * the source, finished meanwhile, never saw: the change
 * removes and fills only the copies it finds. Settling reads the sources again, strongly
 * consistent, after the write, and removes each copy that differs from its source or whose source
 * has a change in progress, so readers answer from the source (enrollment-copies.ts). A change
 * starting after this read finds the new items itself, through the course (strongly consistent)
 * or, for a profile, the `byUser` index once it has caught up.
 */
import { courseRef, decodeCourse } from './courses.ts';
import { listingCopyOf, removeCopy, type CopyAttribute, type ListingCopy, type MemberCopy } from './enrollment-copies.ts';
import { copyHolder, type EnrollmentCopies } from './enrollments.ts';
import { getItems, type Item, type ItemRef } from './items.ts';
import { courseId } from './keys.ts';
import { decodeTerm, termRef } from './terms.ts';
import { decodeUser, userRef } from './users.ts';
import { inGroups } from '#shared/lists.ts';

/** An enrollment as written, with the copies it was written with. */
export interface WrittenEnrollment {
  readonly enrollment: { readonly term: string; readonly course: string; readonly userId: string };
  readonly copies: EnrollmentCopies;
}

/** The sources of the copies, as stored now (undefined: no such item). */
export interface CopySources {
  readonly users: ReadonlyMap<string, Item | undefined>;
  readonly terms: ReadonlyMap<string, Item | undefined>;
  /** By course id (keys.ts). */
  readonly courses: ReadonlyMap<string, Item | undefined>;
}

const changing = (item: Item | undefined) => item?.copyPending !== undefined;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const memberFields = (copy: MemberCopy) => [copy.givenName, copy.familyName, copy.email];
const listingFields = (copy: ListingCopy) => [copy.displayName, copy.archived, copy.termName, copy.termStart];

export interface StaleCopy {
  readonly enrollment: WrittenEnrollment['enrollment'];
  readonly attribute: CopyAttribute;
}

/** The copies written that their sources, as they are now, no longer bear out. */
export function staleCopies(written: readonly WrittenEnrollment[], sources: CopySources): StaleCopy[] {
  return written.flatMap(({ enrollment, copies }) => {
    const stale: StaleCopy[] = [];
    if (copies.member) {
      const user = sources.users.get(enrollment.userId);
      if (!user || changing(user) || !same(memberFields(decodeUser(user)), memberFields(copies.member))) {
        stale.push({ enrollment, attribute: 'memberCopy' });
      }
    }
    if (copies.listing) {
      const term = sources.terms.get(enrollment.term);
      const course = sources.courses.get(courseId(enrollment.term, enrollment.course));
      const fresh = term && course && listingCopyOf(decodeCourse(course), decodeTerm(term));
      if (!fresh || changing(term) || changing(course) || !same(listingFields(fresh), listingFields(copies.listing))) {
        stale.push({ enrollment, attribute: 'listingCopy' });
      }
    }
    return stale;
  });
}

const raw = <T>(ref: ItemRef<T>): ItemRef<Item> => ({ ...ref, decode: (item) => item });
const PARALLEL_REMOVALS = 16;

/** Settles the copies of enrollments just written (module comment); answers how many were removed. */
export async function settleCopies(written: readonly WrittenEnrollment[]): Promise<number> {
  const refs: Record<string, ItemRef<Item>> = {};
  for (const { enrollment, copies } of written) {
    if (copies.member) refs[`user:${enrollment.userId}`] = raw(userRef(enrollment.userId));
    if (copies.listing) {
      refs[`term:${enrollment.term}`] = raw(termRef(enrollment.term));
      refs[`course:${courseId(enrollment.term, enrollment.course)}`] = raw(courseRef(enrollment.term, enrollment.course));
    }
  }
  if (Object.keys(refs).length === 0) return 0;
  const loaded = (await getItems(refs)) as Record<string, Item | undefined>;
  const byPrefix = (prefix: string) =>
    new Map(
      Object.keys(refs)
        .filter((name) => name.startsWith(prefix))
        .map((name) => [name.slice(prefix.length), loaded[name]] as const),
    );
  const stale = staleCopies(written, { users: byPrefix('user:'), terms: byPrefix('term:'), courses: byPrefix('course:') });
  await inGroups(stale, PARALLEL_REMOVALS, ({ enrollment, attribute }) => removeCopy(copyHolder(enrollment), attribute));
  return stale.length;
}
