/**
 * LTI 1.3 items (the `lti` table): each platform registered, under the one partition
 * `registrations` keyed by its registration id, so the list is one Query and a second registration
 * of the same issuer and client id (the same id) is refused by its write's condition.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll, scanAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import { failedConditions, namedTransaction, transactWrite, type TransactItem } from './transactions.ts';

const table = tables.lti;
const REGISTRATIONS = 'registrations';

/** A platform (an LMS) registered by a superuser: where its endpoints are and how its users are named here. */
export interface LtiRegistration {
  readonly registrationId: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly authLoginUrl: string;
  readonly authTokenUrl: string;
  readonly jwksUrl: string;
  /** The deployments launches may come from; empty: any, each recorded at its first launch. */
  readonly deploymentIds: readonly string[];
  /** The audience of the service-token assertion, where the platform wants another than its token URL. */
  readonly authTokenAudience: string | null;
  /** A top-level claim of the launch, or `<claim URI>#<member>`. */
  readonly userIdClaim: string;
  readonly userIdSuffix: string | null;
  readonly createUsers: boolean;
  readonly label: string | null;
  readonly createdAt: string;
  readonly createdBy: string;
}

const decodeRegistration = (item: Item): LtiRegistration => ({
  registrationId: item.entry as string,
  issuer: item.issuer as string,
  clientId: item.clientId as string,
  authLoginUrl: item.authLoginUrl as string,
  authTokenUrl: item.authTokenUrl as string,
  jwksUrl: item.jwksUrl as string,
  deploymentIds: (item.deploymentIds as string[] | undefined) ?? [],
  authTokenAudience: (item.authTokenAudience as string | undefined) ?? null,
  userIdClaim: item.userIdClaim as string,
  userIdSuffix: (item.userIdSuffix as string | undefined) ?? null,
  createUsers: item.createUsers === true,
  label: (item.label as string | undefined) ?? null,
  createdAt: item.createdAt as string,
  createdBy: item.createdBy as string,
});

export const ltiRegistrationRef = (registrationId: string): ItemRef<LtiRegistration> => ({
  table,
  key: { key: REGISTRATIONS, entry: registrationId },
  decode: decodeRegistration,
});

/** Stores a new registration; false when its id (its issuer and client id) is registered already. */
export async function putLtiRegistration(registration: LtiRegistration): Promise<boolean> {
  const { registrationId, ...fields } = registration;
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(table),
        Item: { key: REGISTRATIONS, entry: registrationId, ...fields },
        ConditionExpression: 'attribute_not_exists(entry)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Every registration, by id. */
export async function ltiRegistrations(): Promise<LtiRegistration[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: '#key = :key',
    ExpressionAttributeNames: { '#key': 'key' },
    ExpressionAttributeValues: { ':key': REGISTRATIONS },
  });
  return items.map(decodeRegistration);
}

/** Removes a registration; false when there was none. */
export async function deleteLtiRegistration(registrationId: string): Promise<boolean> {
  try {
    await dynamo().send(
      new DeleteCommand({
        TableName: tableName(table),
        Key: { key: REGISTRATIONS, entry: registrationId },
        ConditionExpression: 'attribute_exists(entry)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * A login's state, kept until its launch comes back (at most ten minutes): stored under the hash
 * of the state the browser carries, with the nonce the ID token must echo. A launch consumes it
 * once (a conditional delete).
 */
export interface LtiState {
  readonly stateHash: string;
  readonly registrationId: string;
  readonly nonce: string;
  readonly loginHint: string;
  readonly messageHint: string | null;
  readonly deploymentId: string | null;
  readonly createdAt: string;
  readonly expiresAt: Date;
}

const STATES = 'state';

/** Stores a login's state (its hash is random, so it never meets another). */
export async function putLtiState(state: LtiState): Promise<void> {
  const { stateHash, expiresAt, ...fields } = state;
  await dynamo().send(
    new PutCommand({
      TableName: tableName(table),
      Item: { key: `${STATES}#${stateHash}`, entry: STATES, ...fields, expiresAt: Math.floor(expiresAt.getTime() / 1000) },
      ConditionExpression: 'attribute_not_exists(entry)',
    }),
  );
}

/** The registration named by its id, read alone (a platform-facing route has no token check to read it with). */
export async function getLtiRegistration(registrationId: string): Promise<LtiRegistration | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(table), Key: { key: REGISTRATIONS, entry: registrationId } }));
  return Item ? decodeRegistration(Item) : undefined;
}

const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

const decodeState = (item: Item): LtiState => ({
  stateHash: (item.key as string).slice(STATES.length + 1),
  registrationId: item.registrationId as string,
  nonce: item.nonce as string,
  loginHint: item.loginHint as string,
  messageHint: (item.messageHint as string | null | undefined) ?? null,
  deploymentId: (item.deploymentId as string | null | undefined) ?? null,
  createdAt: item.createdAt as string,
  expiresAt: new Date((item.expiresAt as number) * 1000),
});

/** A login's state by its hash (a launch reads it before it consumes it). */
export const ltiStateRef = (stateHash: string): ItemRef<LtiState> => ({
  table,
  key: { key: `${STATES}#${stateHash}`, entry: STATES },
  decode: decodeState,
});

/** Consumes a login's state in a launch's transaction: it fails once another launch consumed it (single use). */
export const consumeLtiState = (stateHash: string): TransactItem => ({
  Delete: {
    TableName: tableName(table),
    Key: { key: `${STATES}#${stateHash}`, entry: STATES },
    ConditionExpression: 'attribute_exists(entry)',
  },
});

const NONCES = 'nonce';

/** Records a launch's nonce (its hash) until its ID token expires: it fails for a nonce seen before. */
export const recordLtiNonce = (nonceHash: string, until: Date): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: { key: `${NONCES}#${nonceHash}`, entry: NONCES, expiresAt: epochSeconds(until) },
    ConditionExpression: 'attribute_not_exists(entry)',
  },
});

/** Who a platform's user (their `sub` at an issuer) is here: bound at their first launch, and from then on it wins. */
export interface LtiPerson {
  readonly issuer: string;
  readonly subject: string;
  readonly userId: string;
}

const PEOPLE = 'person';

export const ltiPersonRef = (issuer: string, subject: string): ItemRef<LtiPerson> => ({
  table,
  key: { key: `${PEOPLE}#${issuer}`, entry: subject },
  decode: (item) => ({ issuer, subject, userId: item.userId as string }),
});

/** Binds a platform's user to a user here: only while not bound yet, or bound to this same user. */
export const bindLtiPerson = (person: LtiPerson, at: Date): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: { key: `${PEOPLE}#${person.issuer}`, entry: person.subject, userId: person.userId, boundAt: at.toISOString() },
    ConditionExpression: 'attribute_not_exists(entry) OR userId = :userId',
    ExpressionAttributeValues: { ':userId': person.userId },
  },
});

const DEPLOYMENTS = 'deployment';

/** Records a deployment of a registration that takes any at its first launch (later launches keep the first time). */
export const recordLtiDeployment = (registrationId: string, deploymentId: string, at: Date): TransactItem => ({
  Update: {
    TableName: tableName(table),
    Key: { key: `${DEPLOYMENTS}#${registrationId}`, entry: deploymentId },
    UpdateExpression: 'SET firstLaunchAt = if_not_exists(firstLaunchAt, :at)',
    ExpressionAttributeValues: { ':at': at.toISOString() },
  },
});

/** The LMS's grade service (AGS) endpoints of a launch. */
export interface LtiGradeService {
  readonly lineitems: string | null;
  readonly lineitem: string | null;
  readonly scope: readonly string[];
}

/** A deep-linking launch's settings (Deep Linking 2.0 §4.4.1): where the tool's answer goes, and what the platform takes. */
export interface LtiDeepLinking {
  readonly returnUrl: string;
  readonly acceptTypes: readonly string[];
  readonly acceptMultiple: boolean;
  /** The platform's opaque value, echoed in the answer exactly (null: it sent none). */
  readonly data: string | null;
}

/** A launch, from its ID token to the launch session a client trades its code for (once, within 60 s). */
export interface LtiLaunchCode {
  readonly codeHash: string;
  readonly userId: string;
  readonly registrationId: string;
  readonly deploymentId: string;
  readonly contextId: string | null;
  readonly semester: string | null;
  readonly course: string | null;
  readonly gradeableId: string | null;
  /** The course role names the launch gives (in the launched course, or by the LMS roles in an unlinked one). */
  readonly roles: readonly string[];
  readonly messageType: string;
  /** Whether the launch may link its (unlinked) context: an instructor in the LMS. */
  readonly mayLink: boolean;
  readonly membershipsUrl: string | null;
  readonly grades: LtiGradeService | null;
  /** A deep-linking launch's settings (null: a resource-link launch). */
  readonly deepLinking: LtiDeepLinking | null;
  readonly expiresAt: Date;
}

const CODES = 'code';

const decodeCode = (item: Item): LtiLaunchCode => ({
  codeHash: (item.key as string).slice(CODES.length + 1),
  userId: item.userId as string,
  registrationId: item.registrationId as string,
  deploymentId: item.deploymentId as string,
  contextId: (item.contextId as string | null | undefined) ?? null,
  semester: (item.semester as string | null | undefined) ?? null,
  course: (item.course as string | null | undefined) ?? null,
  gradeableId: (item.gradeableId as string | null | undefined) ?? null,
  roles: (item.roles as string[] | undefined) ?? [],
  messageType: item.messageType as string,
  mayLink: item.mayLink === true,
  membershipsUrl: (item.membershipsUrl as string | null | undefined) ?? null,
  grades: (item.grades as LtiGradeService | null | undefined) ?? null,
  deepLinking: (item.deepLinking as LtiDeepLinking | null | undefined) ?? null,
  expiresAt: new Date((item.expiresAt as number) * 1000),
});

export const putLtiLaunchCode = (code: LtiLaunchCode): TransactItem => {
  const { codeHash, expiresAt, ...fields } = code;
  return {
    Put: {
      TableName: tableName(table),
      Item: { key: `${CODES}#${codeHash}`, entry: CODES, ...fields, expiresAt: epochSeconds(expiresAt) },
      ConditionExpression: 'attribute_not_exists(entry)',
    },
  };
};

/** A launch code by its hash (a client trades it once for a launch session). */
export const ltiLaunchCodeRef = (codeHash: string): ItemRef<LtiLaunchCode> => ({
  table,
  key: { key: `${CODES}#${codeHash}`, entry: CODES },
  decode: decodeCode,
});

/** Consumes a launch code in the transaction that starts its launch session: it fails once another consumed it (single use). */
export const consumeLtiLaunchCode = (codeHash: string): TransactItem => ({
  Delete: {
    TableName: tableName(table),
    Key: { key: `${CODES}#${codeHash}`, entry: CODES },
    ConditionExpression: 'attribute_exists(entry)',
  },
});

/** An LMS context (a course there) linked to a course here: launches from it go to that course. */
export interface LtiContextLink {
  readonly registrationId: string;
  readonly contextId: string;
  readonly deploymentId: string;
  readonly semester: string;
  readonly course: string;
  /** The registration section students the link enrols are given. */
  readonly section: string | null;
  readonly membershipsUrl: string | null;
  readonly grades: LtiGradeService | null;
  readonly linkedBy: string;
  readonly linkedAt: string;
}

const CONTEXTS = 'context';
const COURSE_LINKS = 'links';
const contextKey = (registrationId: string, contextId: string) => ({ key: `${CONTEXTS}#${registrationId}#${contextId}`, entry: CONTEXTS });
const courseLinkKey = (semester: string, course: string, registrationId: string, contextId: string) => ({
  key: `${COURSE_LINKS}#${semester}#${course}`,
  entry: `${registrationId}#${contextId}`,
});

const decodeLink = (item: Item): LtiContextLink => ({
  registrationId: item.registrationId as string,
  contextId: item.contextId as string,
  deploymentId: item.deploymentId as string,
  semester: item.semester as string,
  course: item.course as string,
  section: (item.section as string | null | undefined) ?? null,
  membershipsUrl: (item.membershipsUrl as string | null | undefined) ?? null,
  grades: (item.grades as LtiGradeService | null | undefined) ?? null,
  linkedBy: item.linkedBy as string,
  linkedAt: item.linkedAt as string,
});

/** The course an LMS context is linked to, if any. */
export const ltiContextLinkRef = (registrationId: string, contextId: string): ItemRef<LtiContextLink> => ({
  table,
  key: contextKey(registrationId, contextId),
  decode: decodeLink,
});

/**
 * Links a context to a course: the context's item (refused, its condition failing, when the
 * context is linked already, to this course or another) and the course's entry listing it.
 */
export const linkLtiContext = (link: LtiContextLink): TransactItem[] => [
  {
    Put: {
      TableName: tableName(table),
      Item: { ...contextKey(link.registrationId, link.contextId), ...link },
      ConditionExpression: 'attribute_not_exists(entry)',
    },
  },
  {
    Put: {
      TableName: tableName(table),
      Item: { ...courseLinkKey(link.semester, link.course, link.registrationId, link.contextId), ...link },
    },
  },
];

/** Removes a link: only while the context is still linked to this course. */
export const unlinkLtiContext = (link: Pick<LtiContextLink, 'registrationId' | 'contextId' | 'semester' | 'course'>): TransactItem[] => [
  {
    Delete: {
      TableName: tableName(table),
      Key: contextKey(link.registrationId, link.contextId),
      ConditionExpression: 'semester = :semester AND course = :course',
      ExpressionAttributeValues: { ':semester': link.semester, ':course': link.course },
    },
  },
  { Delete: { TableName: tableName(table), Key: courseLinkKey(link.semester, link.course, link.registrationId, link.contextId) } },
];

/** The LMS contexts linked to a course. */
export async function ltiLinksOfCourse(semester: string, course: string): Promise<LtiContextLink[]> {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(table),
      KeyConditionExpression: '#key = :key',
      ExpressionAttributeNames: { '#key': 'key' },
      ExpressionAttributeValues: { ':key': `${COURSE_LINKS}#${semester}#${course}` },
      ConsistentRead: true,
    }),
  );
  return Items.map(decodeLink);
}

/** Every course linked to an LMS course, once each (the nightly roster sync): a Scan of the course entries of the links. */
export async function ltiLinkedCourses(): Promise<{ semester: string; course: string }[]> {
  const items = await scanAll({
    TableName: tableName(table),
    FilterExpression: 'begins_with(#key, :links)',
    ExpressionAttributeNames: { '#key': 'key', '#semester': 'semester', '#course': 'course' },
    ExpressionAttributeValues: { ':links': `${COURSE_LINKS}#` },
    ProjectionExpression: '#semester, #course',
  });
  const courses = new Map(items.map((item) => [`${item.semester as string}\n${item.course as string}`, item]));
  return [...courses.values()].map((item) => ({ semester: item.semester as string, course: item.course as string }));
}

/**
 * A superuser's invitation to register a platform by LTI Dynamic Registration: stored under the
 * hash of the secret its URL carries, with what the registration it produces will say. A register
 * claims it (for as long as it asks the platform) and consumes it in the registration's own
 * transaction; a failure of the platform's releases the claim.
 */
export interface LtiInvitation {
  readonly invitationHash: string;
  readonly label: string | null;
  readonly userIdClaim: string;
  readonly userIdSuffix: string | null;
  readonly createUsers: boolean;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly expiresAt: Date;
}

const INVITATIONS = 'invitation';
const invitationKey = (invitationHash: string) => ({ key: `${INVITATIONS}#${invitationHash}`, entry: INVITATIONS });
const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/** Stores an invitation (its hash is random, so it never meets another). */
export async function putLtiInvitation(invitation: LtiInvitation): Promise<void> {
  const { invitationHash, expiresAt, ...fields } = invitation;
  await dynamo().send(
    new PutCommand({
      TableName: tableName(table),
      Item: { ...invitationKey(invitationHash), ...fields, expiresAt: seconds(expiresAt) },
      ConditionExpression: 'attribute_not_exists(entry)',
    }),
  );
}

/** The invitation stored under this hash, expired or not (the table's TTL removes expired items late). */
export async function getLtiInvitation(invitationHash: string): Promise<LtiInvitation | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(table), Key: invitationKey(invitationHash) }));
  if (!Item) return undefined;
  return {
    invitationHash,
    label: (Item.label as string | undefined) ?? null,
    userIdClaim: Item.userIdClaim as string,
    userIdSuffix: (Item.userIdSuffix as string | undefined) ?? null,
    createUsers: Item.createUsers === true,
    createdAt: Item.createdAt as string,
    createdBy: Item.createdBy as string,
    expiresAt: new Date((Item.expiresAt as number) * 1000),
  };
}

/**
 * Claims an invitation for one register until `until`: false when it is gone, expired, or claimed
 * by another whose claim still runs, so only one register at a time asks a platform with it.
 */
export async function claimLtiInvitation(invitationHash: string, claim: string, now: Date, until: Date): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: invitationKey(invitationHash),
        UpdateExpression: 'SET claim = :claim, claimedUntil = :until',
        ConditionExpression: 'attribute_exists(entry) AND expiresAt > :now AND (attribute_not_exists(claim) OR claimedUntil <= :now)',
        ExpressionAttributeValues: { ':claim': claim, ':until': seconds(until), ':now': seconds(now) },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Gives an invitation back as it was, while this claim still holds it (another's claim is left alone). */
export async function releaseLtiInvitation(invitationHash: string, claim: string): Promise<void> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: invitationKey(invitationHash),
        UpdateExpression: 'REMOVE claim, claimedUntil',
        ConditionExpression: 'claim = :claim',
        ExpressionAttributeValues: { ':claim': claim },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * Stores a registration and consumes the invitation that produced it, in one transaction: only
 * while this claim holds the invitation, and only when the issuer and client id are not registered
 * yet. Answers what refused it, if anything.
 */
export async function putLtiRegistrationByInvitation(
  registration: LtiRegistration,
  invitationHash: string,
  claim: string,
): Promise<'stored' | 'invitation-lost' | 'registration-exists'> {
  const { registrationId, ...fields } = registration;
  const { items, reasons } = namedTransaction(['invitation', 'registration'], {
    invitation: {
      Delete: {
        TableName: tableName(table),
        Key: invitationKey(invitationHash),
        ConditionExpression: 'claim = :claim',
        ExpressionAttributeValues: { ':claim': claim },
      },
    },
    registration: {
      Put: {
        TableName: tableName(table),
        Item: { key: REGISTRATIONS, entry: registrationId, ...fields },
        ConditionExpression: 'attribute_not_exists(entry)',
      },
    },
  });
  try {
    await transactWrite(items);
    return 'stored';
  } catch (error) {
    const failed = reasons(failedConditions(error)).map((reason) => reason.name);
    if (failed.includes('invitation')) return 'invitation-lost';
    if (failed.includes('registration')) return 'registration-exists';
    throw error;
  }
}
