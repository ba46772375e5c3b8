/**
 * The test platform's Assignment and Grade Services 2.0 (test/support/lti-platform.ts wires it
 * in): each LMS course's line items container (`GET` with its `resource_id` filter, `POST`) and
 * each line item (`GET`) and its scores (`POST …/scores`), with the spec's media types and the
 * bearer token's scopes enforced (a read allowed by `lineitem.readonly` or `lineitem`), and the
 * spec's timestamp rule (a score older than the one held is ignored).
 * Line item URLs carry a query string, as Moodle's do, so a tool must put `/scores` in the path.
 * Switches make it answer 429 (with Retry-After) or 500 for the next requests, or 422 for a user.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Provider } from 'oidc-provider';
import { AGS_SCOPES, checkBearer } from './lti-platform-services.ts';

export const LINE_ITEM_TYPE = 'application/vnd.ims.lis.v2.lineitem+json';
export const LINE_ITEMS_TYPE = 'application/vnd.ims.lis.v2.lineitemcontainer+json';
export const SCORE_TYPE = 'application/vnd.ims.lis.v1.score+json';

export interface LineItem {
  readonly id: string;
  readonly scoreMaximum: number;
  readonly label: string;
  readonly resourceId?: string;
}

/** A score as the platform holds it (the latest by timestamp), with every post it received. */
export interface PlatformScore {
  readonly userId: string;
  readonly scoreGiven?: number;
  readonly scoreMaximum?: number;
  readonly activityProgress: string;
  readonly gradingProgress: string;
  readonly timestamp: string;
}

export interface PlatformGrades {
  /** The line items of an LMS course. */
  lineItems(contextId: string): LineItem[];
  /** The score the platform holds for a user on the line item of `resourceId` (a gradeable id). */
  scoreOf(contextId: string, resourceId: string, userId: string): PlatformScore | undefined;
  /** Score posts received (accepted, ignored as older, or refused by a switch). */
  readonly scorePosts: number;
  /** The next `count` requests to the grade service are answered `status` (429 with `retryAfter` seconds, or 500). */
  failNext(count: number, status: 429 | 500, retryAfter?: string): void;
  /** Score posts for this user are answered 422 (not a student of the course, as Canvas's Test Student). */
  refuseUser(userId: string | undefined): void;
  /** Answers a grade service request; false when the path is not the grade service's. */
  handle(req: IncomingMessage, res: ServerResponse, pathname: string): boolean;
}

const json = (res: ServerResponse, status: number, type: string, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(JSON.stringify(body));
};

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const PROGRESS = {
  activity: ['Initialized', 'Started', 'InProgress', 'Submitted', 'Completed'],
  grading: ['FullyGraded', 'Pending', 'PendingManual', 'Failed', 'NotReady'],
};

/** A read of line items is allowed by the read-only scope or the full one (AGS 2.0 §3.1). */
const READ_SCOPES = [AGS_SCOPES.lineitemReadonly, AGS_SCOPES.lineitem];

/** Whether the request takes `type`: named in its Accept, or any type allowed (no Accept header, or the range of all types). */
const accepts = (req: IncomingMessage, type: string): boolean => {
  const accept = req.headers.accept;
  if (accept === undefined) return true;
  return accept.split(',').some((range) => ['*/*', type].includes(range.split(';')[0]!.trim()));
};

/** The grade service of the platform at `issuer`, its bearer tokens checked by `provider()`. */
export function gradeService(issuer: string, provider: () => Provider): PlatformGrades {
  const items = new Map<string, LineItem[]>();
  const scores = new Map<string, Map<string, PlatformScore>>();
  const faults: { status: 429 | 500; retryAfter?: string }[] = [];
  let refused: string | undefined;
  let scorePosts = 0;

  const lineItemsOf = (contextId: string) => items.get(contextId) ?? items.set(contextId, []).get(contextId)!;

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    contextId: string,
    itemNumber: string | undefined,
    tail: string,
  ) {
    if (tail === '/scores') scorePosts++;
    const fault = faults.shift();
    if (fault) {
      json(
        res,
        fault.status,
        'application/json',
        { error: fault.status === 429 ? 'Rate limited' : 'Internal error' },
        fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
      );
      return;
    }
    if (itemNumber === undefined && req.method === 'GET') {
      if (!(await checkBearer(provider(), req, res, READ_SCOPES))) return;
      if (!accepts(req, LINE_ITEMS_TYPE)) return json(res, 406, 'application/json', { error: `Accept ${LINE_ITEMS_TYPE}` });
      const resourceId = url.searchParams.get('resource_id');
      return json(
        res,
        200,
        LINE_ITEMS_TYPE,
        lineItemsOf(contextId).filter((item) => resourceId === null || item.resourceId === resourceId),
      );
    }
    if (itemNumber === undefined && req.method === 'POST') {
      if (!(await checkBearer(provider(), req, res, AGS_SCOPES.lineitem))) return;
      if (req.headers['content-type'] !== LINE_ITEM_TYPE)
        return json(res, 415, 'application/json', { error: `Content-Type ${LINE_ITEM_TYPE}` });
      const body = JSON.parse(await bodyOf(req)) as Partial<LineItem>;
      if (typeof body.scoreMaximum !== 'number' || body.scoreMaximum <= 0 || typeof body.label !== 'string' || body.label === '')
        return json(res, 400, 'application/json', { error: 'scoreMaximum and label are required' });
      const list = lineItemsOf(contextId);
      // Moodle's line item URLs carry a query string: a tool must add /scores to the path.
      const item: LineItem = { ...body, id: `${issuer}/courses/${contextId}/lineitems/${list.length + 1}?type_id=1` } as LineItem;
      list.push(item);
      return json(res, 201, LINE_ITEM_TYPE, item);
    }
    if (itemNumber !== undefined && tail === '' && req.method === 'GET') {
      if (!(await checkBearer(provider(), req, res, READ_SCOPES))) return;
      if (!accepts(req, LINE_ITEM_TYPE)) return json(res, 406, 'application/json', { error: `Accept ${LINE_ITEM_TYPE}` });
      const item = lineItemsOf(contextId)[Number(itemNumber) - 1];
      if (!item || url.searchParams.get('type_id') !== '1') return json(res, 404, 'application/json', { error: 'No such line item' });
      return json(res, 200, LINE_ITEM_TYPE, item);
    }
    if (itemNumber !== undefined && tail === '' && req.method === 'PUT') {
      if (!(await checkBearer(provider(), req, res, AGS_SCOPES.lineitem))) return;
      if (req.headers['content-type'] !== LINE_ITEM_TYPE)
        return json(res, 415, 'application/json', { error: `Content-Type ${LINE_ITEM_TYPE}` });
      const list = lineItemsOf(contextId);
      const index = Number(itemNumber) - 1;
      const held = list[index];
      if (!held || url.searchParams.get('type_id') !== '1') return json(res, 404, 'application/json', { error: 'No such line item' });
      const body = JSON.parse(await bodyOf(req)) as Partial<LineItem>;
      if (typeof body.scoreMaximum !== 'number' || body.scoreMaximum <= 0 || typeof body.label !== 'string' || body.label === '')
        return json(res, 400, 'application/json', { error: 'scoreMaximum and label are required' });
      // The line item's id is the platform's: a PUT replaces the rest.
      const item: LineItem = { ...body, id: held.id } as LineItem;
      list[index] = item;
      return json(res, 200, LINE_ITEM_TYPE, item);
    }
    if (itemNumber !== undefined && tail === '/scores' && req.method === 'POST') {
      if (!(await checkBearer(provider(), req, res, AGS_SCOPES.score))) return;
      if (req.headers['content-type'] !== SCORE_TYPE) return json(res, 415, 'application/json', { error: `Content-Type ${SCORE_TYPE}` });
      const item = lineItemsOf(contextId)[Number(itemNumber) - 1];
      if (!item || url.searchParams.get('type_id') !== '1') return json(res, 404, 'application/json', { error: 'No such line item' });
      const score = JSON.parse(await bodyOf(req)) as PlatformScore;
      const problem =
        typeof score.userId !== 'string' || score.userId === ''
          ? 'userId is required'
          : typeof score.timestamp !== 'string' || Number.isNaN(Date.parse(score.timestamp))
            ? 'timestamp is required'
            : !PROGRESS.activity.includes(score.activityProgress) || !PROGRESS.grading.includes(score.gradingProgress)
              ? 'activityProgress and gradingProgress are required'
              : (score.scoreGiven === undefined) !== (score.scoreMaximum === undefined)
                ? 'scoreGiven and scoreMaximum go together'
                : undefined;
      if (problem) return json(res, 400, 'application/json', { error: problem });
      if (score.userId === refused)
        return json(res, 422, 'application/json', { errors: [{ message: 'User not found in course or is not a student' }] });
      const held = scores.get(item.id) ?? scores.set(item.id, new Map()).get(item.id)!;
      const before = held.get(score.userId);
      // The spec: a score older than the one held does not change it.
      if (!before || Date.parse(before.timestamp) <= Date.parse(score.timestamp)) held.set(score.userId, score);
      res.writeHead(204).end();
      return;
    }
    json(res, 405, 'application/json', { error: 'Not a grade service request' });
  }

  return {
    lineItems: (contextId) => [...lineItemsOf(contextId)],
    scoreOf: (contextId, resourceId, userId) => {
      const item = lineItemsOf(contextId).find((candidate) => candidate.resourceId === resourceId);
      return item ? scores.get(item.id)?.get(userId) : undefined;
    },
    get scorePosts() {
      return scorePosts;
    },
    failNext: (count, status, retryAfter) => {
      for (let index = 0; index < count; index++) faults.push({ status, ...(retryAfter === undefined ? {} : { retryAfter }) });
    },
    refuseUser: (userId) => {
      refused = userId;
    },
    handle: (req, res, pathname) => {
      const match = /^\/courses\/([^/]+)\/lineitems(?:\/(\d+))?(\/scores)?$/.exec(pathname);
      if (!match) return false;
      const url = new URL(req.url ?? '/', issuer);
      serve(req, res, url, decodeURIComponent(match[1]!), match[2], match[3] ?? '').catch((error: unknown) => {
        if (!res.headersSent) json(res, 500, 'application/json', { error: String(error) });
      });
      return true;
    },
  };
}
