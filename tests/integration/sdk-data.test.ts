import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { resetEnv } from '@/lib/platform/env';
import { consentBody, dataBody, recordedConsentBody, withdrawalBody } from '@/lib/schemas/sdk';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsUser } from '../helpers/roles';
import { newApp, newKey, sdk } from '../helpers/sdk';

/**
 * Consented data on every engine (content/docs/data-and-consent.md): a subject's consent is
 * recorded, read, narrowed and withdrawn; data is stored only under a current consent that covers
 * its purpose, once per record id; withdrawal deletes the subject's data; one app never sees another's.
 *
 * And consent that only its owner changes (issue 27): the first consent answers a consent proof,
 * and reading, withdrawing, changing the consent and submitting data need it; a stranger holding
 * only the page's publishable key gets the answer of an unknown subject. Subject ids are stored
 * keyed per app, the history is append-only, `consented_at` must be plausible, and data is bounded
 * by daily quotas.
 */

const subject = (name: string) => createHash('sha256').update(name).digest('hex');
const interaction = (id: string) => ({ id, data: { prompt: `question ${id}`, response: `answer ${id}`, model: 'demo-1' } });
const session = (id: string) => ({
  id,
  data: { started_at: '2026-11-20T10:00:00Z', duration_seconds: 42, events: [{ t: 0, type: 'click', target: 'button#send' }] },
});
/** A proof of the right form that no subject has. */
const forgedProof = () => `cp_${randomBytes(32).toString('base64url')}`;
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

async function records(db: Engine, appId: string, storedId: string): Promise<{ kind: string; status: string }[]> {
  return db.query('select kind, status from public.data_records where app_id = $1 and subject_hash = $2 order by kind, record_id', [appId, storedId]);
}

/** The consent rows of an app, oldest first, as the service sees them. */
async function history(db: Engine, appId: string): Promise<{ subject_hash: string; purposes: string[]; policy_version: string; withdrawn: boolean }[]> {
  return db.query(
    'select subject_hash, purposes, policy_version, withdrawn_at is not null as withdrawn from public.data_consents where app_id = $1 order by seq',
    [appId],
  );
}

for (const engine of testEngines()) {
  describe(`consented data on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let key: string;
    let appId: string;
    let otherKey: string;
    let otherAppId: string;

    beforeAll(async () => {
      ({ key, appId } = await newKey(suite.db, suite.users.demo));
      ({ key: otherKey, appId: otherAppId } = await newKey(suite.db, suite.users.demo2));
    });

    type As = { key?: string; proof?: string | null; ip?: string };
    const headers = (o: As) => ({ 'x-api-key': o.key ?? key, ...(o.proof ? { 'x-consent-proof': o.proof } : {}) });
    const consent = (body: unknown, o: As = {}) => sdk('/functions/v1/consents', { body, headers: headers(o), ip: o.ip });
    const read = (s: string, o: As = {}) => sdk(`/functions/v1/consents?subject_id=${s}`, { headers: headers(o), ip: o.ip });
    const withdraw = (s: string, o: As = {}) => sdk(`/functions/v1/consents?subject_id=${s}`, { method: 'DELETE', headers: headers(o), ip: o.ip });
    const submit = (body: unknown, o: As = {}) => sdk('/functions/v1/data', { body, headers: headers(o), ip: o.ip });
    /** A first consent of `s`, answering its proof. */
    const consented = async (s: string, purposes = ['ai_interactions'], o: As = {}): Promise<string> => {
      const res = await consent({ subject_id: s, purposes, policy_version: 'v1' }, o);
      expect(res.status, res.text).toBe(200);
      return recordedConsentBody.parse(res.body).consent_proof;
    };
    /** The id the database keeps for `s` in the app: the subject of the app's latest consent. */
    const storedIdOf = async (app: string): Promise<string> => {
      const [row] = await suite.db.query<{ subject_hash: string }>(
        'select subject_hash from public.data_consents where app_id = $1 order by seq desc limit 1',
        [app],
      );
      return row!.subject_hash;
    };

    it('refuses data for a subject without a consent, and stores nothing', async () => {
      const s = subject('no-consent');
      const res = await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('a')] });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { status: 403, code: 'forbidden', message: expect.stringContaining('ai_interactions') } });
      expect(await suite.db.query('select 1 from public.data_records where record_id = $1', ['a'])).toEqual([]);
    });

    it('records a consent with its proof, answers it, and stores data of the purposes it covers, once per record id', async () => {
      const s = subject('consenting');
      const consentedAt = iso(Date.now() - 60 * MINUTE);
      const recorded = await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: '2026-11', consented_at: consentedAt });
      expect(recorded.status, recorded.text).toBe(200);
      const body = recordedConsentBody.strict().parse(recorded.body);
      expect(body).toMatchObject({ subject_id: s, purposes: ['ai_interactions'], policy_version: '2026-11', consented_at: consentedAt });
      expect(body.consent_proof).toMatch(/^cp_[A-Za-z0-9_-]{43}$/);
      const proof = body.consent_proof;
      const answered = await read(s, { proof });
      expect(answered.status, answered.text).toBe(200);
      expect(consentBody.strict().parse(answered.body)).toEqual(consentBody.parse(body));

      const stored = await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('a'), interaction('b')] }, { proof });
      expect(stored.status, stored.text).toBe(200);
      expect(dataBody.strict().parse(stored.body)).toEqual({ received: 2, stored: 2, duplicates: 0 });
      // A retry stores nothing twice.
      expect((await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('b'), interaction('c')] }, { proof })).body).toEqual({
        received: 2,
        stored: 1,
        duplicates: 1,
      });
      // UX sessions are another purpose, not covered.
      const ux = await submit({ subject_id: s, kind: 'ux_session', records: [session('u1')] }, { proof });
      expect(ux.status).toBe(403);
      expect(ux.body.error.message).toContain('ux_sessions');
      expect(await records(suite.db, appId, await storedIdOf(appId))).toEqual([
        { kind: 'ai_interaction', status: 'unsold' },
        { kind: 'ai_interaction', status: 'unsold' },
        { kind: 'ai_interaction', status: 'unsold' },
      ]);
    });

    it('stores a record as its kind defines it: fields it does not define are dropped, not kept', async () => {
      const s = subject('extra-fields');
      const proof = await consented(s);
      const res = await submit(
        { subject_id: s, kind: 'ai_interaction', records: [{ id: 'x1', data: { prompt: 'p', response: 'r', email: 'someone@example.com' } }] },
        { proof },
      );
      expect(res.status).toBe(200);
      const [row] = await suite.db.query<{ payload: unknown }>("select payload from public.data_records where record_id = 'x1'");
      expect(row!.payload).toEqual({ prompt: 'p', response: 'r' });
    });

    it('a narrower consent deletes the data of the purposes it drops', async () => {
      const s = subject('narrowing');
      const proof = await consented(s, ['ai_interactions', 'ux_sessions']);
      const stored = await storedIdOf(appId);
      await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('n1')] }, { proof });
      await submit({ subject_id: s, kind: 'ux_session', records: [session('n2')] }, { proof });
      expect(await records(suite.db, appId, stored)).toHaveLength(2);
      const narrowed = await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: 'v2' }, { proof });
      expect(narrowed.status, narrowed.text).toBe(200);
      expect(narrowed.body).toMatchObject({ purposes: ['ai_interactions'], policy_version: 'v2', consent_proof: proof });
      expect(await records(suite.db, appId, stored)).toEqual([{ kind: 'ai_interaction', status: 'unsold' }]);
      expect((await submit({ subject_id: s, kind: 'ux_session', records: [session('n3')] }, { proof })).status).toBe(403);
    });

    it('withdrawal deletes all the subject’s data, sold or not, and refuses data afterwards', async () => {
      const s = subject('withdrawing');
      const proof = await consented(s);
      const stored = await storedIdOf(appId);
      await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('w1'), interaction('w2')] }, { proof });
      // One record was sold before the withdrawal: it leaves every later sale too (its buyers are told: tests/integration/data-buyers.test.ts).
      await suite.db.query("update public.data_records set status = 'sold' where app_id = $1 and record_id = 'w1'", [appId]);
      const withdrawn = await withdraw(s, { proof });
      expect(withdrawn.status).toBe(200);
      expect(withdrawalBody.strict().parse(withdrawn.body)).toEqual({ subject_id: s, withdrawn: true, deleted_records: 2 });
      expect(await records(suite.db, appId, stored)).toEqual([]);
      expect((await read(s, { proof })).status).toBe(404);
      const after = await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('w3')] }, { proof });
      expect(after.status).toBe(403);
      // Withdrawing again is harmless.
      expect((await withdraw(s, { proof })).body).toEqual({ subject_id: s, withdrawn: false, deleted_records: 0 });
    });

    it('keeps apps apart: another app neither sees nor withdraws the consent, and cannot send data under it', async () => {
      const s = subject('shared-subject');
      const proof = await consented(s);
      expect((await read(s, { key: otherKey, proof })).status).toBe(404);
      expect((await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('x1')] }, { key: otherKey, proof })).status).toBe(403);
      expect((await withdraw(s, { key: otherKey, proof })).status).toBe(403);
      expect((await read(s, { proof })).status).toBe(200);
    });

    it('refuses a subject id that is not a SHA-256, bad records, and records over their size', async () => {
      const s = subject('bad-input');
      const proof = await consented(s, ['ai_interactions', 'ux_sessions']);
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
        const res = await submit(body, { proof });
        expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
      }
      // Text and times PostgreSQL could not store are refused here, not failed on there.
      expect(
        (await submit({ subject_id: s, kind: 'ai_interaction', records: [{ id: 'lone', data: { prompt: 'half \ud800 pair', response: 'x' } }] }, { proof }))
          .status,
      ).toBe(400);
      const literal = await submit(
        { subject_id: s, kind: 'ai_interaction', records: [{ id: 'literal', data: { prompt: 'the text \\u0000 is six characters', response: 'x' } }] },
        { proof },
      );
      expect(literal.status, literal.text).toBe(200);
      const fresh = subject('bad-consents');
      for (const body of [
        { subject_id: fresh, purposes: [], policy_version: 'v1' },
        { subject_id: fresh, purposes: ['emails'], policy_version: 'v1' },
        { subject_id: 'x', purposes: ['ai_interactions'], policy_version: 'v1' },
        { subject_id: fresh, purposes: ['ai_interactions'], policy_version: 'v\u00001' },
        { subject_id: fresh, purposes: ['ai_interactions'], policy_version: 'v1', consented_at: '0000-01-01T00:00:00Z' },
      ]) {
        expect((await consent(body)).status).toBe(400);
      }
      // None of them made the subject: its first consent still needs no proof.
      expect((await consent({ subject_id: fresh, purposes: ['ai_interactions'], policy_version: 'v1' })).status).toBe(200);
    });

    it('takes a body up to 1 MiB, refuses a larger one with 413, and needs a key', async () => {
      const s = subject('sizes');
      const proof = await consented(s);
      const large = Array.from({ length: 50 }, (_, i) => ({ id: `big-${i}`, data: { prompt: 'p'.repeat(7000), response: 'r'.repeat(7000) } }));
      const ok = await submit({ subject_id: s, kind: 'ai_interaction', records: large }, { proof });
      expect(ok.status, ok.text.slice(0, 200)).toBe(200);
      expect(ok.body.stored).toBe(50);
      const tooLarge = await submit(JSON.stringify({ subject_id: s, kind: 'ai_interaction', records: large, padding: 'x'.repeat(400_000) }), { proof });
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.error.message).toContain('1048576 bytes');
      expect(
        (
          await sdk('/functions/v1/data', {
            body: { subject_id: s, kind: 'ai_interaction', records: [interaction('k')] },
            headers: { 'x-consent-proof': proof },
          })
        ).status,
      ).toBe(401);
    });

    describe('consent that only its owner changes', () => {
      it('a stranger with only the page key gets the answers of an unknown subject: no read, no withdrawal, no data', async () => {
        const s = subject('owned');
        const proof = await consented(s, ['ai_interactions', 'ux_sessions']);
        expect((await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('owned-1')] }, { proof })).status).toBe(200);
        const stored = await storedIdOf(appId);
        const unknown = subject('never-consented');
        // Another subject's real proof is as wrong as a made-up one.
        const othersProof = await consented(subject('someone-else'));

        for (const wrong of [null, forgedProof(), othersProof]) {
          const label = wrong === null ? 'no proof' : wrong === othersProof ? "another subject's proof" : 'a forged proof';
          const [readOwned, readUnknown] = [await read(s, { proof: wrong }), await read(unknown, { proof: wrong })];
          expect(readOwned.status, label).toBe(404);
          expect(readOwned.body, label).toEqual(readUnknown.body);
          expect(readOwned.body.error.code).toBe('not_found');

          const [withdrawOwned, withdrawUnknown] = [await withdraw(s, { proof: wrong }), await withdraw(unknown, { proof: wrong })];
          expect(withdrawOwned.status, label).toBe(403);
          expect(withdrawOwned.body, label).toEqual(withdrawUnknown.body);
          expect(withdrawOwned.body.error.code).toBe('forbidden');

          const data = (id: string) => ({ subject_id: s, kind: 'ai_interaction', records: [interaction(id)] });
          const [dataOwned, dataUnknown] = [
            await submit(data('forged-1'), { proof: wrong }),
            await submit({ ...data('forged-2'), subject_id: unknown }, { proof: wrong }),
          ];
          expect(dataOwned.status, label).toBe(403);
          expect(dataOwned.body, label).toEqual(dataUnknown.body);
        }
        // Nothing changed: the consent is current, its data kept, nothing forged stored.
        expect((await read(s, { proof })).body).toMatchObject({ purposes: ['ai_interactions', 'ux_sessions'], policy_version: 'v1' });
        expect(await records(suite.db, appId, stored)).toEqual([{ kind: 'ai_interaction', status: 'unsold' }]);
        expect(await suite.db.query("select 1 from public.data_records where record_id like 'forged-%'")).toEqual([]);
      });

      it('a stranger cannot change, narrow or forge the consent of an existing subject, nor consent again after a withdrawal', async () => {
        const s = subject('not-yours');
        const proof = await consented(s, ['ai_interactions']);
        await submit({ subject_id: s, kind: 'ai_interaction', records: [interaction('kept-1')] }, { proof });
        const rowsBefore = (await history(suite.db, appId)).length;
        for (const wrong of [null, forgedProof()]) {
          for (const purposes of [['ux_sessions'], ['ai_interactions', 'ux_sessions']]) {
            const forged = await consent({ subject_id: s, purposes, policy_version: 'forged' }, { proof: wrong });
            expect(forged.status, forged.text).toBe(403);
            expect(forged.body.error.code).toBe('forbidden');
            expect(forged.text).not.toContain('cp_');
          }
        }
        expect(await history(suite.db, appId)).toHaveLength(rowsBefore);
        expect((await read(s, { proof })).body).toMatchObject({ purposes: ['ai_interactions'], policy_version: 'v1' });
        expect((await suite.db.query("select 1 from public.data_records where record_id = 'kept-1'")).length).toBe(1);

        // Withdrawn by its owner, the subject stays owned: a stranger cannot consent for it again.
        expect((await withdraw(s, { proof })).body).toMatchObject({ withdrawn: true, deleted_records: 1 });
        expect((await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: 'forged' })).status).toBe(403);
        const again = await consent({ subject_id: s, purposes: ['ai_interactions'], policy_version: 'v2' }, { proof });
        expect(again.status, again.text).toBe(200);
        expect(again.body).toMatchObject({ policy_version: 'v2', consent_proof: proof });
      });

      it("keeps record ids per subject: a stranger's made-up subject cannot pre-claim the ids a real user will send (issue 39)", async () => {
        // A stranger, with only the page key, records a first consent for a made-up subject and
        // submits under an id a real user of the app will use.
        const stranger = subject('pre-claiming stranger');
        const strangerProof = await consented(stranger);
        const strangerStored = await storedIdOf(appId);
        const claim = (s: string, text: string) => ({
          subject_id: s,
          kind: 'ai_interaction',
          records: [{ id: 'r-1', data: { prompt: text, response: text } }],
        });
        expect((await submit(claim(stranger, 'the stranger’s'), { proof: strangerProof })).body).toEqual({ received: 1, stored: 1, duplicates: 0 });

        // The real user's record under the same id is theirs, stored, not a duplicate.
        const owner = subject('real user of r-1');
        const ownerProof = await consented(owner);
        const ownerStored = await storedIdOf(appId);
        const first = await submit(claim(owner, 'the owner’s'), { proof: ownerProof });
        expect(first.status, first.text).toBe(200);
        expect(first.body).toEqual({ received: 1, stored: 1, duplicates: 0 });
        // Each one's retry is a duplicate of their own record, whatever it carries, and changes nothing.
        expect((await submit(claim(owner, 'the owner’s, again'), { proof: ownerProof })).body).toEqual({ received: 1, stored: 0, duplicates: 1 });
        expect((await submit(claim(stranger, 'the stranger’s, again'), { proof: strangerProof })).body).toEqual({ received: 1, stored: 0, duplicates: 1 });
        const kept = await suite.db.query<{ subject_hash: string; prompt: string }>(
          "select subject_hash, payload->>'prompt' as prompt from public.data_records where app_id = $1 and record_id = 'r-1' order by prompt",
          [appId],
        );
        expect(kept).toEqual([
          { subject_hash: ownerStored, prompt: 'the owner’s' },
          { subject_hash: strangerStored, prompt: 'the stranger’s' },
        ]);
        // Withdrawing one subject's consent deletes its r-1 alone.
        expect((await withdraw(stranger, { proof: strangerProof })).body).toMatchObject({ withdrawn: true, deleted_records: 1 });
        expect(await suite.db.query("select subject_hash from public.data_records where app_id = $1 and record_id = 'r-1'", [appId])).toEqual([
          { subject_hash: ownerStored },
        ]);
      });

      it('stores a subject id keyed per app: neither the SHA-256 the app sent nor the same in two apps, and answers the id sent', async () => {
        const s = subject('user-42');
        const proofA = await consented(s);
        const proofB = await consented(s, ['ai_interactions'], { key: otherKey });
        expect(proofA).not.toBe(proofB);
        const [a, b] = [await storedIdOf(appId), await storedIdOf(otherAppId)];
        for (const id of [a, b]) {
          expect(id).toMatch(/^[0-9a-f]{64}$/);
          expect(id).not.toBe(s);
        }
        expect(a).not.toBe(b);
        // Nowhere in the tables is the id the app sent.
        for (const table of ['data_consents', 'data_records', 'data_subjects']) {
          expect(await suite.db.query(`select 1 from public.${table} where subject_hash = $1`, [s]), table).toEqual([]);
        }
        expect((await read(s, { proof: proofA })).body.subject_id).toBe(s);
        expect((await withdraw(s, { key: otherKey, proof: proofB })).body).toMatchObject({ subject_id: s, withdrawn: true });
        // Each app's proof is its own.
        expect((await read(s, { proof: proofB })).status).toBe(404);
        expect((await read(s, { proof: proofA })).status).toBe(200);
      });

      it('keeps the history: a new consent and a withdrawal are new rows, and the publisher still reads earlier purposes and policies', async () => {
        const s = subject('history');
        const proof = await consented(s, ['ai_interactions']);
        const id = await storedIdOf(appId);
        await consent({ subject_id: s, purposes: ['ai_interactions', 'ux_sessions'], policy_version: 'v2' }, { proof });
        await withdraw(s, { proof });
        await consent({ subject_id: s, purposes: ['ux_sessions'], policy_version: 'v3' }, { proof });
        const rows = (await history(suite.db, appId)).filter((r) => r.subject_hash === id);
        expect(rows.map(({ purposes, policy_version, withdrawn }) => ({ purposes, policy_version, withdrawn }))).toEqual([
          { purposes: ['ai_interactions'], policy_version: 'v1', withdrawn: false },
          { purposes: ['ai_interactions', 'ux_sessions'], policy_version: 'v2', withdrawn: false },
          { purposes: ['ai_interactions', 'ux_sessions'], policy_version: 'v2', withdrawn: true },
          { purposes: ['ux_sessions'], policy_version: 'v3', withdrawn: false },
        ]);
        expect((await read(s, { proof })).body).toMatchObject({ purposes: ['ux_sessions'], policy_version: 'v3' });
        // The publisher reads the whole history of their app under row-level security; the other publisher none of it.
        const readAs = (userId: string) =>
          rawAsUser(suite.db, { sub: userId }, (q) =>
            q.query<{ policy_version: string }>('select policy_version from public.data_consents where subject_hash = $1 order by seq', [id]),
          );
        expect((await readAs(suite.users.demo)).map((r) => r.policy_version)).toEqual(['v1', 'v2', 'v2', 'v3']);
        expect(await readAs(suite.users.demo2)).toEqual([]);
      });

      it('lets a page on another origin send the proof: a preflight allows x-consent-proof', async () => {
        const preflight = await sdk('/functions/v1/consents', {
          method: 'OPTIONS',
          headers: {
            origin: 'https://writer.example',
            'access-control-request-method': 'DELETE',
            'access-control-request-headers': 'x-api-key, x-consent-proof',
          },
        });
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/)).toEqual(
          expect.arrayContaining(['x-api-key', 'x-consent-proof']),
        );
      });

      it('refuses a consented_at in the future or long past, with a clear 400', async () => {
        const now = Date.now();
        for (const at of [iso(now + 10 * MINUTE), iso(now - 31 * DAY), '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z']) {
          const res = await consent({ subject_id: subject(`when-${at}`), purposes: ['ai_interactions'], policy_version: 'v1', consented_at: at });
          expect(res.status, at).toBe(400);
          expect(res.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('consented_at') });
        }
        for (const at of [iso(now + 2 * MINUTE), iso(now - 29 * DAY)]) {
          const res = await consent({ subject_id: subject(`when-${at}`), purposes: ['ai_interactions'], policy_version: 'v1', consented_at: at });
          expect(res.status, `${at}: ${res.text}`).toBe(200);
          expect(res.body.consented_at).toBe(at);
        }
      });
    });

    describe('quotas', () => {
      const QUOTAS = {
        DATA_SUBJECT_RECORDS_PER_DAY: '5',
        DATA_SUBJECT_BYTES_PER_DAY: '4000',
        DATA_APP_RECORDS_PER_DAY: '8',
        DATA_APP_BYTES_PER_DAY: '1000000',
        CONSENT_NEW_SUBJECTS_PER_ADDRESS_HOUR: '3',
      };
      const saved: Record<string, string | undefined> = {};
      beforeAll(() => {
        for (const [name, value] of Object.entries(QUOTAS)) {
          saved[name] = process.env[name];
          process.env[name] = value;
        }
        resetEnv();
      });
      afterAll(() => {
        for (const name of Object.keys(QUOTAS)) {
          if (saved[name] === undefined) delete process.env[name];
          else process.env[name] = saved[name];
        }
        resetEnv();
      });

      /** A key of a new app of the demo publisher: the quotas are per app. */
      const freshKey = async (name: string) => (await newKey(suite.db, suite.users.demo, { appId: await newApp(suite.db, suite.users.demo, name) })).key;
      const many = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => interaction(`${prefix}-${i}`));

      it("refuses a subject's records past its daily count or bytes with 429, storing nothing of the request", async () => {
        const k = await freshKey('Subject quota');
        const s = subject('busy-user');
        const proof = await consented(s, ['ai_interactions'], { key: k, ip: '198.51.100.1' });
        expect((await submit({ subject_id: s, kind: 'ai_interaction', records: many('q', 4) }, { key: k, proof })).body).toMatchObject({ stored: 4 });
        // Records sent again are duplicates: they take nothing from the quota.
        expect((await submit({ subject_id: s, kind: 'ai_interaction', records: many('q', 4) }, { key: k, proof })).body).toMatchObject({ duplicates: 4 });
        const over = await submit({ subject_id: s, kind: 'ai_interaction', records: many('q2', 2) }, { key: k, proof });
        expect(over.status, over.text).toBe(429);
        expect(over.body.error).toMatchObject({ status: 429, code: 'rate_limited', message: expect.stringMatching(/5 records.*per day/) });
        const retryAfter = Number(over.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(86_400);
        expect(await suite.db.query("select 1 from public.data_records where record_id like 'q2-%'")).toEqual([]);
        expect((await submit({ subject_id: s, kind: 'ai_interaction', records: many('q3', 1) }, { key: k, proof })).status).toBe(200);

        // Bytes: 4,000 a day for a subject.
        const t = subject('wordy-user');
        const tProof = await consented(t, ['ai_interactions'], { key: k, ip: '198.51.100.1' });
        const big = (id: string) => ({ id, data: { prompt: 'p'.repeat(1500), response: 'r'.repeat(1000) } });
        expect((await submit({ subject_id: t, kind: 'ai_interaction', records: [big('b1')] }, { key: k, proof: tProof })).status).toBe(200);
        const overBytes = await submit({ subject_id: t, kind: 'ai_interaction', records: [big('b2')] }, { key: k, proof: tProof });
        expect(overBytes.status).toBe(429);
        expect(overBytes.body.error.message).toMatch(/4000 bytes/);
      });

      it("refuses an app's records past its daily count with 429", async () => {
        const k = await freshKey('App quota');
        const [s, t] = [subject('app-quota-1'), subject('app-quota-2')];
        const [sProof, tProof] = [await consented(s, ['ai_interactions'], { key: k }), await consented(t, ['ai_interactions'], { key: k })];
        expect((await submit({ subject_id: s, kind: 'ai_interaction', records: many('a1', 5) }, { key: k, proof: sProof })).status).toBe(200);
        const over = await submit({ subject_id: t, kind: 'ai_interaction', records: many('a2', 4) }, { key: k, proof: tProof });
        expect(over.status, over.text).toBe(429);
        expect(over.body.error.message).toMatch(/app.*8 records/);
        expect((await submit({ subject_id: t, kind: 'ai_interaction', records: many('a3', 3) }, { key: k, proof: tProof })).status).toBe(200);
      });

      it('bounds the new subjects one address brings to an app in an hour; owners and other addresses go on', async () => {
        const k = await freshKey('Consent quota');
        const ip = '203.0.113.9';
        const proofs: string[] = [];
        for (let i = 0; i < 3; i++) proofs.push(await consented(subject(`arrival-${i}`), ['ai_interactions'], { key: k, ip }));
        const over = await consent({ subject_id: subject('arrival-3'), purposes: ['ai_interactions'], policy_version: 'v1' }, { key: k, ip });
        expect(over.status, over.text).toBe(429);
        expect(over.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('3 new subjects') });
        expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
        // The subject was not made: from another address its first consent needs no proof.
        expect(
          (await consent({ subject_id: subject('arrival-3'), purposes: ['ai_interactions'], policy_version: 'v1' }, { key: k, ip: '203.0.113.10' })).status,
        ).toBe(200);
        // An owner changing their consent is no new subject.
        expect(
          (await consent({ subject_id: subject('arrival-0'), purposes: ['ux_sessions'], policy_version: 'v2' }, { key: k, ip, proof: proofs[0] })).status,
        ).toBe(200);
        // Another app has its own count.
        expect((await consent({ subject_id: subject('arrival-9'), purposes: ['ai_interactions'], policy_version: 'v1' }, { ip })).status).toBe(200);
      });
    });

    describe('new subjects per app and day', () => {
      // Issue 39: the hourly count is per address; an app's first consents of the day are counted too.
      let saved: string | undefined;
      beforeAll(() => {
        saved = process.env.CONSENT_NEW_SUBJECTS_PER_APP_DAY;
        process.env.CONSENT_NEW_SUBJECTS_PER_APP_DAY = '4';
        resetEnv();
      });
      afterAll(() => {
        if (saved === undefined) delete process.env.CONSENT_NEW_SUBJECTS_PER_APP_DAY;
        else process.env.CONSENT_NEW_SUBJECTS_PER_APP_DAY = saved;
        resetEnv();
      });

      it('bounds the new subjects an app takes in a UTC day from every address together; owners and other apps go on', async () => {
        const appId = await newApp(suite.db, suite.users.demo, 'Daily subjects');
        const k = (await newKey(suite.db, suite.users.demo, { appId })).key;
        const proofs: string[] = [];
        // Four new people, each from an address of their own: none is over its address's count.
        for (let i = 0; i < 4; i++) proofs.push(await consented(subject(`daily-${i}`), ['ai_interactions'], { key: k, ip: `192.0.2.${10 + i}` }));
        const over = await consent({ subject_id: subject('daily-4'), purposes: ['ai_interactions'], policy_version: 'v1' }, { key: k, ip: '192.0.2.50' });
        expect(over.status, over.text).toBe(429);
        expect(over.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('4 new subjects today') });
        const retryAfter = Number(over.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(86_400);
        // Refused, it was not made and not counted: still refused from yet another address, and the count stays at 4.
        expect(
          (await consent({ subject_id: subject('daily-4'), purposes: ['ai_interactions'], policy_version: 'v1' }, { key: k, ip: '192.0.2.51' })).status,
        ).toBe(429);
        const [row] = await suite.db.query<{ subjects: number; made: number }>(
          `select u.subjects, (select count(*)::int from public.data_subjects s where s.app_id = u.app_id) as made
           from public.data_daily_usage u where u.app_id = $1 and u.subject_hash = '' and u.day = (now() at time zone 'UTC')::date`,
          [appId],
        );
        expect(row).toEqual({ subjects: 4, made: 4 });
        // Someone who consented before changes their consent: no new subject.
        expect(
          (await consent({ subject_id: subject('daily-0'), purposes: ['ux_sessions'], policy_version: 'v2' }, { key: k, ip: '192.0.2.10', proof: proofs[0] }))
            .status,
        ).toBe(200);
        // Another app has its own count.
        const other = (await newKey(suite.db, suite.users.demo, { appId: await newApp(suite.db, suite.users.demo, 'Daily subjects 2') })).key;
        expect(
          (await consent({ subject_id: subject('daily-4'), purposes: ['ai_interactions'], policy_version: 'v1' }, { key: other, ip: '192.0.2.50' })).status,
        ).toBe(200);
      });
    });
  });
}
