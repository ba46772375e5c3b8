/**
 * Grade inquiries as stored: one item per inquiry (its posts inside it, bounded in number and
 * length so an item stays far below DynamoDB's 400 KB), and one slot item per grade being inquired
 * about while an inquiry about it is open. Every write is a transaction item, for the caller to
 * join with its audit entry and webhook event.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { courseId } from './keys.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.inquiries;

export type InquiryStatus = 'open' | 'resolved';

export interface InquiryPost {
  readonly author: string;
  /** Whether the author posted as staff (a grader or instructor) or as the student. */
  readonly role: 'student' | 'staff';
  readonly content: string;
  readonly at: string;
}

export interface Inquiry {
  readonly term: string;
  readonly course: string;
  readonly inquiryId: string;
  readonly gradeableId: string;
  /** The student, or on a team gradeable their team. */
  readonly ownerId: string;
  /** The students whose grade it is: the student, or the team's members when it was opened. */
  readonly members: readonly string[];
  /** The registration section of the student who opened it, when they opened it. */
  readonly section: string;
  /** The rubric component asked about; null when about the whole grade. */
  readonly componentId: number | null;
  readonly status: InquiryStatus;
  /** One more with every change: a change made from a read is written only while it still holds. */
  readonly revision: number;
  readonly openedBy: string;
  readonly openedAt: string;
  readonly updatedAt: string;
  readonly posts: readonly InquiryPost[];
}

const inquiryEntry = (inquiryId: string) => `inquiry#${inquiryId}`;
const INQUIRY_PREFIX = 'inquiry#';

/** The slot an open inquiry holds: one per grade and component (or the whole grade). */
const slotEntry = (inquiry: Pick<Inquiry, 'gradeableId' | 'ownerId' | 'componentId'>) =>
  `open#${inquiry.gradeableId}#${inquiry.ownerId}#${inquiry.componentId ?? 'grade'}`;

const decodeInquiry = (item: Item): Inquiry => ({
  term: item.term as string,
  course: item.course as string,
  inquiryId: item.inquiryId as string,
  gradeableId: item.gradeableId as string,
  ownerId: item.ownerId as string,
  members: item.members as string[],
  section: item.section as string,
  componentId: (item.componentId as number | null | undefined) ?? null,
  status: item.status as InquiryStatus,
  revision: item.revision as number,
  openedBy: item.openedBy as string,
  openedAt: item.openedAt as string,
  updatedAt: item.updatedAt as string,
  posts: item.posts as InquiryPost[],
});

export const inquiryRef = (term: string, course: string, inquiryId: string): ItemRef<Inquiry> => ({
  table,
  key: { courseId: courseId(term, course), entry: inquiryEntry(inquiryId) },
  decode: decodeInquiry,
});

const key = (inquiry: Pick<Inquiry, 'term' | 'course' | 'inquiryId'>) => ({
  courseId: courseId(inquiry.term, inquiry.course),
  entry: inquiryEntry(inquiry.inquiryId),
});

const slotKey = (inquiry: Inquiry) => ({ courseId: courseId(inquiry.term, inquiry.course), entry: slotEntry(inquiry) });

/** Which of `openInquiry`'s items refused: the inquiry's slot is taken by another open inquiry. */
export const SLOT_ITEM = 1;

/** A new inquiry, and its slot, which must be free. */
export function openInquiry(inquiry: Inquiry): TransactItem[] {
  return [
    {
      Put: {
        TableName: tableName(table),
        Item: { ...key(inquiry), ...inquiry },
        ConditionExpression: 'attribute_not_exists(entry)',
      },
    },
    {
      Put: {
        TableName: tableName(table),
        Item: { ...slotKey(inquiry), inquiryId: inquiry.inquiryId },
        ConditionExpression: 'attribute_not_exists(entry)',
      },
    },
  ];
}

/**
 * A post added to an open inquiry with room for it. Posts do not wait for each other (two at
 * once both land); a change of status conditioned on the revision read does not slip past one.
 */
export function addPost(inquiry: Inquiry, post: InquiryPost, maxPosts: number): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: key(inquiry),
      UpdateExpression: 'SET posts = list_append(posts, :post), updatedAt = :at ADD revision :one',
      ConditionExpression: '#status = :open AND size(posts) < :max',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':post': [post], ':at': post.at, ':one': 1, ':open': 'open', ':max': maxPosts },
    },
  };
}

/**
 * The inquiry's new status, written only while it is at the revision read: resolving frees its
 * slot, reopening takes it again (refused while another inquiry about the same grade is open).
 */
export function changeStatus(inquiry: Inquiry, status: InquiryStatus, at: string): TransactItem[] {
  const slot = slotKey(inquiry);
  return [
    {
      Update: {
        TableName: tableName(table),
        Key: key(inquiry),
        UpdateExpression: 'SET #status = :status, updatedAt = :at, revision = :next',
        ConditionExpression: 'revision = :read',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status, ':at': at, ':read': inquiry.revision, ':next': inquiry.revision + 1 },
      },
    },
    status === 'resolved'
      ? { Delete: { TableName: tableName(table), Key: slot } }
      : {
          Put: {
            TableName: tableName(table),
            Item: { ...slot, inquiryId: inquiry.inquiryId },
            ConditionExpression: 'attribute_not_exists(entry)',
          },
        },
  ];
}

/** What a list keeps of a course's inquiries; every condition given must hold. */
export interface InquiryFilter {
  readonly status?: InquiryStatus;
  readonly gradeableId?: string;
  /** Only inquiries about this student's grade. */
  readonly member?: string;
  /** Only inquiries opened by students of these sections. */
  readonly sections?: readonly string[];
}

/**
 * Up to `size` inquiries of a course that pass `filter`, newest first, after the inquiry `after`;
 * `more` when others may follow. The filter applies to what each Query page read, so a page may
 * take several round trips when few inquiries pass it.
 */
export async function courseInquiries(
  term: string,
  course: string,
  filter: InquiryFilter,
  size: number,
  after: string | undefined,
): Promise<{ inquiries: Inquiry[]; more: boolean }> {
  const conditions: string[] = [];
  const values: Record<string, unknown> = { ':course': courseId(term, course), ':prefix': INQUIRY_PREFIX };
  const names: Record<string, string> = {};
  if (filter.status) {
    conditions.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = filter.status;
  }
  if (filter.gradeableId !== undefined) {
    conditions.push('gradeableId = :gradeable');
    values[':gradeable'] = filter.gradeableId;
  }
  if (filter.member !== undefined) {
    conditions.push('contains(members, :member)');
    values[':member'] = filter.member;
  }
  if (filter.sections) {
    if (filter.sections.length === 0) return { inquiries: [], more: false };
    const placeholders = filter.sections.map((section, index) => {
      values[`:section${index}`] = section;
      return `:section${index}`;
    });
    conditions.push(`#section IN (${placeholders.join(', ')})`);
    names['#section'] = 'section';
  }
  const inquiries: Inquiry[] = [];
  let startKey: Record<string, unknown> | undefined =
    after === undefined ? undefined : { courseId: courseId(term, course), entry: inquiryEntry(after) };
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(table),
        KeyConditionExpression: 'courseId = :course AND begins_with(entry, :prefix)',
        ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    inquiries.push(...(page.Items ?? []).map(decodeInquiry));
    startKey = page.LastEvaluatedKey;
  } while (startKey && inquiries.length <= size);
  return { inquiries: inquiries.slice(0, size), more: inquiries.length > size };
}
