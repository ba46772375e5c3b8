/** The deployed day's steps of `change-inquiry-status` (test/deployed/day.ts says how the day runs them). */
import { call, fail, handedOn, inquiriesPath, webhookEvent, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the grader resolves the grade inquiry and the student reopens it; the webhook hears of each',
    phase: 'inquiry resolved',
    run: async () => {
      const inquiry = `${inquiriesPath}/${handedOn.inquiryId}`;
      const resolved = await call('PATCH', inquiry, { as: 'ta', json: { status: 'resolved', revision: 2 } });
      if (resolved.json?.data && (resolved.json.data as { status?: string }).status !== 'resolved')
        fail('resolve an inquiry', resolved.text);
      await call('PATCH', inquiry, { as: 'student', json: { status: 'open' } });
      await webhookEvent('inquiry.opened', 'inquiry.opened', { inquiry_id: handedOn.inquiryId, reopened: false });
      await webhookEvent('inquiry.resolved', 'inquiry.resolved', { inquiry_id: handedOn.inquiryId, by: 'ta' });
    },
  },
];
