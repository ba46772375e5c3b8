import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { downloadForm } from '#shared/gradeables/listing.ts';
import { validateGradeable } from '#shared/gradeables/validate.ts';
import { asJson, gradeableDocument } from '../support/gradeable-arbitrary.ts';

const now = new Date('2026-11-23T12:00:00Z');
const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham'];

describe('gradeable JSON round trip (property)', () => {
  it('accepts every generated gradeable, and a download uploads again to the same download', () => {
    fc.assert(
      fc.property(gradeableDocument, fc.constantFrom(...zones), (input, timeZone) => {
        const first = validateGradeable(asJson(input), { timeZone, now });
        expect(first.errors).toEqual([]);
        if (!first.document) return;
        const download = asJson(downloadForm(first.document, timeZone));
        const second = validateGradeable(download, { timeZone, now });
        expect(second.errors).toEqual([]);
        if (!second.document) return;
        expect(asJson(downloadForm(second.document, timeZone))).toEqual(download);
        expect(JSON.stringify(downloadForm(second.document, timeZone))).toBe(JSON.stringify(download));
      }),
      { numRuns: 300 },
    );
  });
});
