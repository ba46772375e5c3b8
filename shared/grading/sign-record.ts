import { CompactSign } from 'jose';
import type { GradingRecordPayload } from './grading-record.ts';
import { signingRecordKey } from './record-keys.ts';

/** The record as a compact JWS, signed with the deployment's current record key (its `kid` in the header). */
export async function signRecord(payload: GradingRecordPayload): Promise<string> {
  const key = await signingRecordKey();
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'grading-record+jws' })
    .sign(key.privateKey);
}
