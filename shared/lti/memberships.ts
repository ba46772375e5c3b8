/**
 * The rules of a roster read from a platform's Names and Role Provisioning Service 2.0, as pure
 * functions: a page of its membership container, the next page's URL (`Link: <…>; rel="next"`,
 * followed on the same origin only), and the class list the members make. A member is known by
 * the binding of their LMS user id to a user here first, else by the registration's user-id rule
 * applied to what the roster says of them, as at a first launch (an e-mail address only when
 * marked verified); their course role is the launch's mapping of their LMS roles. Members the
 * roster marks Inactive or Deleted are left out, so that the import drops them if they are
 * students; two LMS members naming one user here are both refused, and that user left as is.
 */
import { Refusal } from '#shared/errors.ts';
import { courseGroups, type CourseGroup } from '#shared/courses/course.ts';
import type { ClassList, ClassListRow, RejectedRow } from '#shared/courses/class-list.ts';
import { accountFieldProblem } from '#shared/users/account-fields.ts';
import { courseGroupOf, launchUserId, LTI_CLAIM } from './launch-rules.ts';
import type { LtiRegistration } from './registration.ts';

export const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';
export const MEMBERSHIP_CONTAINER_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';

/** A member as a membership container lists them (NRPS 2.0 §2.2); only `user_id` is required. */
export interface RosterMember {
  readonly user_id: string;
  readonly roles: readonly string[];
  /** `Active` (also when absent), `Inactive` or `Deleted`. */
  readonly status: string;
  readonly name?: string;
  readonly given_name?: string;
  readonly family_name?: string;
  readonly email?: string;
  readonly email_verified?: unknown;
  readonly lis_person_sourcedid?: string;
  /** The custom claims of the member's launch message, when the platform adds them (`rlid`). */
  readonly custom?: Readonly<Record<string, unknown>>;
}

const text = (value: unknown, max = 1000): string | undefined =>
  typeof value === 'string' && value !== '' && value.length <= max ? value : undefined;
const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The members of one page of a membership container; a page that is not one says what it is instead (a string). */
export function membersOfPage(body: string): { members: RosterMember[]; skipped: number } | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'something other than JSON';
  }
  const members = record(parsed)?.members;
  if (!Array.isArray(members)) return 'a page without a members list';
  const read: RosterMember[] = [];
  let skipped = 0;
  for (const entry of members) {
    const member = record(entry);
    const userId = text(member?.user_id, 255);
    if (!member || !userId) {
      skipped++;
      continue;
    }
    const roles = Array.isArray(member.roles) ? member.roles.filter((role): role is string => typeof role === 'string') : [];
    const message = Array.isArray(member.message) ? record(member.message[0]) : undefined;
    const custom = record(message?.[`${LTI_CLAIM}custom`]);
    const optional = Object.fromEntries(
      (['name', 'given_name', 'family_name', 'email', 'lis_person_sourcedid'] as const).flatMap((field) => {
        const value = text(member[field]);
        return value === undefined ? [] : [[field, value]];
      }),
    );
    read.push({
      user_id: userId,
      roles,
      status: text(member.status, 40) ?? 'Active',
      ...optional,
      ...(member.email_verified === undefined ? {} : { email_verified: member.email_verified }),
      ...(custom ? { custom } : {}),
    });
  }
  return { members: read, skipped };
}

/**
 * The next page's URL from an answer's Link header, resolved against the page's own URL; undefined
 * on the last page. A next page on another origin is refused (a string saying so): the token is
 * the platform's, and the roster is its to give.
 */
export function nextPageUrl(link: string | undefined, page: URL): URL | string | undefined {
  if (!link) return undefined;
  for (const [, target, params] of link.matchAll(/<([^>]*)>((?:\s*;\s*[^,;]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(params ?? '')?.[1];
    if (!rel?.toLowerCase().split(/\s+/).includes('next')) continue;
    let next: URL;
    try {
      next = new URL(target ?? '', page);
    } catch {
      return 'a next page that is not a URL';
    }
    if (next.origin !== page.origin) return `a next page on another origin (${next.origin.slice(0, 200)})`;
    return next;
  }
  return undefined;
}

/** What the roster says of a member, as the launch's claims would say it (for the registration's user-id rule). */
export function memberClaims(member: RosterMember): Record<string, unknown> {
  const { user_id, roles: _, status: __, lis_person_sourcedid, custom, ...profile } = member;
  return {
    ...profile,
    sub: user_id,
    ...(lis_person_sourcedid ? { [`${LTI_CLAIM}lis`]: { person_sourcedid: lis_person_sourcedid } } : {}),
    ...(custom ? { [`${LTI_CLAIM}custom`]: custom } : {}),
  };
}

/** A member of one linked LMS course: where they are in the roster (their line), the link's section, the registration's rules. */
export interface RosterEntry {
  readonly line: number;
  readonly member: RosterMember;
  readonly section: string | null;
  readonly registration: Pick<LtiRegistration, 'issuer' | 'userIdClaim' | 'userIdSuffix' | 'createUsers'>;
}

/** A member known here: the user id and the course role. */
export interface IdentifiedMember {
  readonly entry: RosterEntry;
  readonly userId: string;
  readonly group: CourseGroup;
}

export interface IdentifiedRoster {
  readonly members: IdentifiedMember[];
  readonly rejected: RejectedRow[];
  /** Every user id a roster member named, refused ones too: a missing student is dropped only when no member names them. */
  readonly named: Set<string>;
}

/** The binding's key: the platform's issuer and the member's LMS user id (a launch's `sub`). */
export const bindingKey = (issuer: string, subject: string): string => `${issuer}\n${subject}`;

/**
 * Who each active member is here and with which role. `bindings` holds the user each bound LMS
 * user is (by bindingKey). Members left out of the roster's active ones are not named.
 */
export function identifyMembers(entries: readonly RosterEntry[], bindings: ReadonlyMap<string, string>): IdentifiedRoster {
  const rejected: RejectedRow[] = [];
  const named = new Set<string>();
  const byUser = new Map<string, IdentifiedMember[]>();
  for (const entry of entries) {
    const { member, registration, line } = entry;
    if (member.status === 'Inactive' || member.status === 'Deleted') continue;
    const lmsUser = member.user_id.slice(0, 80);
    let userId = bindings.get(bindingKey(registration.issuer, member.user_id));
    if (userId === undefined) {
      try {
        userId = launchUserId(memberClaims(member), registration);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        rejected.push({
          line,
          reason: `LMS user ${lmsUser} is bound to no user here and ${error.message.replace(/^The launch does not say who the user is here: it has/, 'has')}`,
        });
        continue;
      }
    }
    named.add(userId);
    const group = courseGroupOf(member.roles);
    if (group === undefined) {
      rejected.push({ line, reason: `LMS user ${lmsUser} (${userId}) has no LMS role that is a course role here; left as is.` });
      continue;
    }
    byUser.set(userId, [...(byUser.get(userId) ?? []), { entry, userId, group }]);
  }
  const members: IdentifiedMember[] = [];
  for (const [userId, found] of byUser) {
    const [only, ...others] = found;
    if (only && others.length === 0) members.push(only);
    else {
      const lines = found.map(({ entry }) => entry.line).join(', ');
      for (const { entry } of found) {
        rejected.push({ line: entry.line, reason: `Several LMS users (lines ${lines}) are ${userId} here; none is taken until one is.` });
      }
    }
  }
  return { members, rejected, named };
}

/** A name or e-mail for a new account, or '' when the roster's is unusable. */
const accountField = (field: 'first_name' | 'last_name' | 'email', value: string | undefined): string =>
  value !== undefined && accountFieldProblem(field, value.trim()) === undefined ? value.trim() : '';

/**
 * The class list of the identified members: students in their link's section (the import keeps a
 * section a member has), staff in none. A user without an account here is refused unless the
 * registration creates accounts and the roster gives the account's name and e-mail address.
 */
export function rosterClassList(roster: IdentifiedRoster, existingUsers: ReadonlySet<string>): ClassList {
  const rows: ClassListRow[] = [];
  const rejected = [...roster.rejected];
  for (const { entry, userId, group } of roster.members) {
    const { member, registration, line } = entry;
    const full = member.name?.trim() ?? '';
    const lastSpace = full.lastIndexOf(' ');
    const givenName = accountField('first_name', member.given_name ?? (lastSpace > 0 ? full.slice(0, lastSpace) : full));
    const familyName = accountField('last_name', member.family_name ?? (lastSpace > 0 ? full.slice(lastSpace + 1) : undefined));
    const email = accountField('email', member.email);
    if (!existingUsers.has(userId)) {
      if (!registration.createUsers) {
        rejected.push({ line, reason: `No account here for ${userId}; this platform's registration does not create accounts.` });
        continue;
      }
      if (!givenName || !familyName || !email) {
        rejected.push({ line, reason: `No account here for ${userId}, and the roster does not give its name and e-mail address.` });
        continue;
      }
    }
    rows.push({
      line,
      userId,
      givenName,
      familyName,
      email,
      registrationSection: group === courseGroups.student ? entry.section : null,
      group,
    });
  }
  return { rows, rejected, named: roster.named };
}
