import { gradeableKey, type ComponentGrade, type TaGrade } from './submissions.ts';
import type { Item } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

/** One entry of the TA grading audit trail: a change of one component's grade. */
export interface AuditEntry {
  readonly revision: number;
  readonly grader_id: string;
  readonly at: string;
  readonly component_id: number;
  readonly before: ComponentGrade | null;
  readonly after: ComponentGrade;
}

export interface GradeOwner {
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly ownerId: string;
}

const gradeKey = (owner: GradeOwner) => `${gradeableKey(owner.term, owner.course, owner.gradeableId)}#${owner.ownerId}`;
const revisionKey = (revision: number) => String(revision).padStart(10, '0');

/**
 * Records a new TA grade on the owner's submission item together with its audit entry, provided
 * the grade is still at the revision read (both conditional: a concurrent change fails one).
 */
export function saveTaGrade(owner: GradeOwner, previousRevision: number, grade: TaGrade, entry: AuditEntry): TransactItem[] {
  return [
    {
      Update: {
        TableName: tableName(tables.submissions),
        Key: { gradeableKey: gradeableKey(owner.term, owner.course, owner.gradeableId), ownerId: owner.ownerId },
        UpdateExpression: 'SET term = :term, course = :course, gradeableId = :gradeableId, taGrade = :grade',
        ConditionExpression: previousRevision === 0 ? 'attribute_not_exists(taGrade)' : 'taGrade.#revision = :previous',
        ...(previousRevision === 0 ? {} : { ExpressionAttributeNames: { '#revision': 'revision' } }),
        ExpressionAttributeValues: {
          ':term': owner.term,
          ':course': owner.course,
          ':gradeableId': owner.gradeableId,
          ':grade': grade,
          ...(previousRevision === 0 ? {} : { ':previous': previousRevision }),
        },
      },
    },
    {
      Put: {
        TableName: tableName(tables.gradeAudit),
        Item: { gradeKey: gradeKey(owner), revision: revisionKey(entry.revision), entry: JSON.stringify(entry) },
        ConditionExpression: 'attribute_not_exists(revision)',
      },
    },
  ];
}

/** The audit trail of one owner's TA grade, oldest first. */
export async function auditTrail(owner: GradeOwner): Promise<AuditEntry[]> {
  const items = await queryAll({
    TableName: tableName(tables.gradeAudit),
    KeyConditionExpression: 'gradeKey = :key',
    ExpressionAttributeValues: { ':key': gradeKey(owner) },
    ConsistentRead: true,
  });
  return items.map((item: Item) => JSON.parse(item.entry as string) as AuditEntry);
}
