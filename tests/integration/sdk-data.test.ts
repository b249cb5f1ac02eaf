import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { consentBody, dataBody, withdrawalBody } from '@/lib/schemas/sdk';
import { suiteDatabase, testEngines } from '../helpers/db';
import { newKey, sdk } from '../helpers/sdk';

/**
 * Consented data on every engine (content/docs/data-and-consent.md): a subject's consent is
 * recorded, read, narrowed and withdrawn; data is stored only under a current consent that covers
 * its purpose, once per record id; withdrawal deletes the unsold data; one app never sees another's.
 */

const subject = (name: string) => createHash('sha256').update(name).digest('hex');
const interaction = (id: string) => ({ id, data: { prompt: `question ${id}`, response: `answer ${id}`, model: 'demo-1' } });
const session = (id: string) => ({
  id,
  data: { started_at: '2026-11-20T10:00:00Z', duration_seconds: 42, events: [{ t: 0, type: 'click', target: 'button#send' }] },
});

async function records(db: Engine, subjectId: string): Promise<{ kind: string; status: string }[]> {
  return db.query('select kind, status from public.data_records where subject_hash = $1 order by kind, record_id', [subjectId]);
}

for (const engine of testEngines()) {
  describe(`consented data on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let key: string;
    let otherKey: string;

    beforeAll(async () => {
      key = (await newKey(suite.db, suite.users.demo)).key;
      otherKey = (await newKey(suite.db, suite.users.demo2)).key;
    });

    const consent = (body: unknown, k = key) => sdk('/functions/v1/consents', { body, headers: { 'x-api-key': k } });
    const read = (s: string, k = key) => sdk(`/functions/v1/consents?subject_id=${s}`, { headers: { 'x-api-key': k } });
    const withdraw = (s: string, k = key) => sdk(`/functions/v1/consents?subject_id=${s}`, { method: 'DELETE', headers: { 'x-api-key': k } });
    const submit = (body: unknown, k = key) => sdk('/functions/v1/data', { body, headers: { 'x-api-key': k } });

    it('refuses data for a subject without a consent, and stores nothing', async () => {
      const s = subject('no-consent');
      const res = await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('a')] });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { status: 403, code: 'forbidden', message: expect.stringContaining('ai_interactions') } });
      expect(await records(suite.db, s)).toEqual([]);
    });

    it('records a consent, answers it, and stores data of the purposes it covers, once per record id', async () => {
      const s = subject('consenting');
      const recorded = await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: '2026-11', consented_at: '2026-11-20T09:00:00Z' });
      expect(recorded.status, recorded.text).toBe(200);
      expect(consentBody.strict().parse(recorded.body)).toMatchObject({
        subject_id: s,
        purposes: ['ai_interactions'],
        policy_version: '2026-11',
        consented_at: '2026-11-20T09:00:00.000Z',
      });
      expect((await read(s)).body).toEqual(recorded.body);

      const stored = await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('a'), interaction('b')] });
      expect(stored.status, stored.text).toBe(200);
      expect(dataBody.strict().parse(stored.body)).toEqual({ received: 2, stored: 2, duplicates: 0 });
      // A retry stores nothing twice.
      expect((await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('b'), interaction('c')] })).body).toEqual({
        received: 2,
        stored: 1,
        duplicates: 1,
      });
      // UX sessions are another purpose, not covered.
      const ux = await submit({ subject_id: s, kind: 'ux_session', records: [session('u1')] });
      expect(ux.status).toBe(403);
      expect(ux.body.error.message).toContain('ux_sessions');
      expect(await records(suite.db, s)).toEqual([
        { kind: 'ai_interaction', status: 'unsold' },
        { kind: 'ai_interaction', status: 'unsold' },
        { kind: 'ai_interaction', status: 'unsold' },
      ]);
    });

    it('stores a record as its kind defines it: fields it does not define are dropped, not kept', async () => {
      const s = subject('extra-fields');
      await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: 'v1' });
      const res = await submit({
        subject_id: s,
        kind: 'ai_interaction',
        records: [{ id: 'x1', data: { prompt: 'p', response: 'r', email: 'someone@example.com' } }],
      });
      expect(res.status).toBe(200);
      const [row] = await suite.db.query<{ payload: unknown }>('select payload from public.data_records where subject_hash = $1', [s]);
      expect(row!.payload).toEqual({ prompt: 'p', response: 'r' });
    });

    it('a narrower consent deletes the unsold data of the purposes it drops', async () => {
      const s = subject('narrowing');
      await consent({ subject_id: s, purposes: ['ai_interactions', 'ux_sessions'], policy_version: 'v1' });
      await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('n1')] });
      await submit({ subject_id: s, kind: 'ux_session', records: [session('n2')] });
      expect(await records(suite.db, s)).toHaveLength(2);
      const narrowed = await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: 'v2' });
      expect(narrowed.body).toMatchObject({ purposes: ['ai_interactions'], policy_version: 'v2' });
      expect(await records(suite.db, s)).toEqual([{ kind: 'ai_interaction', status: 'unsold' }]);
      expect((await submit({ subject_id: s, kind: 'ux_session', records: [session('n3')] })).status).toBe(403);
    });

    it('withdrawal deletes the unsold data, keeps what was sold, and refuses data afterwards', async () => {
      const s = subject('withdrawing');
      await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: 'v1' });
      await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('w1'), interaction('w2')] });
      // One record was sold before the withdrawal: it belongs to its buyer now.
      await suite.db.query("update public.data_records set status = 'sold' where subject_hash = $1 and record_id = 'w1'", [s]);
      const withdrawn = await withdraw(s);
      expect(withdrawn.status).toBe(200);
      expect(withdrawalBody.strict().parse(withdrawn.body)).toEqual({ subject_id: s, withdrawn: true, deleted_records: 1 });
      expect(await records(suite.db, s)).toEqual([{ kind: 'ai_interaction', status: 'sold' }]);
      expect((await read(s)).status).toBe(404);
      const after = await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('w3')] });
      expect(after.status).toBe(403);
      // Withdrawing again is harmless.
      expect((await withdraw(s)).body).toEqual({ subject_id: s, withdrawn: false, deleted_records: 0 });
    });

    it('keeps apps apart: another app neither sees nor withdraws the consent, and cannot send data under it', async () => {
      const s = subject('shared-subject');
      await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: 'v1' });
      expect((await read(s, otherKey)).status).toBe(404);
      expect((await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('x1')] }, otherKey)).status).toBe(403);
      expect((await withdraw(s, otherKey)).body).toEqual({ subject_id: s, withdrawn: false, deleted_records: 0 });
      expect((await read(s)).status).toBe(200);
    });

    it('refuses a subject id that is not a SHA-256, bad records, and records over their size', async () => {
      const s = subject('bad-input');
      await consent({ subject_id: s, purposes: ['ai_interactions', 'ux_sessions'], policy_version: 'v1' });
      const bad = [
        { subject_id: 'someone@example.com', kind: 'ai_interaction', records: [interaction('1')] },
        { subject_id: s.toUpperCase(), kind: 'ai_interaction', records: [interaction('1')] },
        { subject_id: s, kind: 'emails', records: [interaction('1')] },
        { subject_id: s, kind: 'ai_interaction', records: [] },
        { subject_id: s, kind: 'ai_interaction', records: [{ id: '1', data: { prompt: 'only a prompt' } }] },
        { subject_id: s, kind: 'ai_interaction', records: [{ id: '1', data: { prompt: 'nul \u0000', response: 'x' } }] },
        { subject_id: s, kind: 'ux_session', records: [interaction('1')] },
        { subject_id: s, kind: 'ai_interaction', records: Array.from({ length: 51 }, (_, i) => interaction(`r${i}`)) },
        {
          subject_id: s,
          kind: 'ux_session',
          records: [
            { id: 'big', data: { ...session('x').data, events: Array.from({ length: 500 }, (_, t) => ({ t, type: 'scroll', target: 'x'.repeat(60) })) } },
          ],
        },
      ];
      for (const body of bad) {
        const res = await submit(body);
        expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
      }
      // Text and times PostgreSQL could not store are refused here, not failed on there.
      expect(
        (await submit({ subject_id: s, kind: 'ai_interaction', records: [{ id: 'lone', data: { prompt: 'half \ud800 pair', response: 'x' } }] })).status,
      ).toBe(400);
      const literal = await submit({
        subject_id: s,
        kind: 'ai_interaction',
        records: [{ id: 'literal', data: { prompt: 'the text \\u0000 is six characters', response: 'x' } }],
      });
      expect(literal.status, literal.text).toBe(200);
      await suite.db.query('delete from public.data_records where subject_hash = $1', [s]);
      for (const body of [
        { subject_id: s, purposes: [], policy_version: 'v1' },
        { subject_id: s, purposes: ['emails'], policy_version: 'v1' },
        { subject_id: 'x', purposes: ['ai_interactions'], policy_version: 'v1' },
        { subject_id: s, purposes: ['ai_interactions'], policy_version: 'v\u00001' },
        { subject_id: s, purposes: ['ai_interactions'], policy_version: 'v1', consented_at: '0000-01-01T00:00:00Z' },
      ]) {
        expect((await consent(body)).status).toBe(400);
      }
      expect(await records(suite.db, s)).toEqual([]);
    });

    it('takes a body up to 1 MiB, refuses a larger one with 413, and needs a key', async () => {
      const s = subject('sizes');
      await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: 'v1' });
      const large = Array.from({ length: 50 }, (_, i) => ({ id: `big-${i}`, data: { prompt: 'p'.repeat(7000), response: 'r'.repeat(7000) } }));
      const ok = await submit({ subject_id: s, kind: 'ai_interaction', records: large });
      expect(ok.status, ok.text.slice(0, 200)).toBe(200);
      expect(ok.body.stored).toBe(50);
      const tooLarge = await submit(JSON.stringify({ subject_id: s, kind: 'ai_interaction', records: large, padding: 'x'.repeat(400_000) }));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.error.message).toContain('1048576 bytes');
      expect((await sdk('/functions/v1/data', { body: { subject_id: s, kind: 'ai_interaction', records: [interaction('k')] } })).status).toBe(401);
    });
  });
}
