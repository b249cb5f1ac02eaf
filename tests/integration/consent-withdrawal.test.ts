import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { withdrawConsentForm } from '@/lib/publisher/forms';
import { createApp } from '@/lib/publisher/writes';
import { sha256Hex } from '@/lib/platform/crypto';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';
import { newKey, sdk } from '../helpers/sdk';

/**
 * A user's consent withdrawn by the app's publisher, in the console (content/docs/data-and-consent.md):
 * the way for a user who lost the consent proof their app kept, or who asked the publisher rather
 * than the app. Only the app's own publisher can, and the user's unsold records go at once.
 */

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};

for (const engine of testEngines()) {
  describe(`a publisher withdraws a user's consent, on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const publisher = (id: string): SignedInUser => ({ id, email: 'x@example.com', name: null });
    let appId: string;
    let key: string;

    beforeAll(async () => {
      const slug = `withdraw-${Math.random().toString(36).slice(2, 10)}`;
      const app = await createApp(suite.db, suite.users.demo, { name: `Withdraw ${slug}`, slug, description: '', category: [], allowed_origins: [] });
      if (!app.ok) throw new Error(app.error);
      appId = app.value.id;
      key = (await newKey(suite.db, suite.users.demo, { appId })).key;
    });

    /** The user consents through the SDK and sends two records; answers the proof the app kept. */
    async function consented(userId: string): Promise<string> {
      const subject = sha256Hex(userId);
      const consent = await sdk('/functions/v1/consents', {
        body: { subject_id: subject, purposes: ['ai_interactions'], policy_version: '2026-11' },
        headers: { 'x-api-key': key },
      });
      expect(consent.status, consent.text).toBe(200);
      const proof = consent.body.consent_proof as string;
      const data = await sdk('/functions/v1/data', {
        body: {
          subject_id: subject,
          kind: 'ai_interaction',
          records: [1, 2].map((n) => ({ id: `${sha256Hex(userId).slice(0, 12)}-${n}`, data: { prompt: 'Hello', response: 'Hi' } })),
        },
        headers: { 'x-api-key': key, 'x-consent-proof': proof },
      });
      expect(data.status, data.text).toBe(200);
      return proof;
    }

    const unsold = async () =>
      (
        await rawAsService(suite.db, (q) =>
          q.query<{ n: number }>("select count(*)::int as n from public.data_records where app_id = $1 and status = 'unsold'", [appId]),
        )
      )[0]!.n;

    it("withdraws by the user's id as the app names it, deletes their unsold records, and the proof then finds no consent", async () => {
      const proof = await consented('user-42@example.com');
      const before = await unsold();
      const state = await withdrawConsentForm(form({ app_id: appId, user: 'user-42@example.com' }), publisher(suite.users.demo), suite.services);
      expect(state).toEqual({ notice: 'Withdrawn. 2 unsold records of this user deleted; what buyers licensed stays with them.' });
      expect(await unsold()).toBe(before - 2);
      const read = await sdk(`/functions/v1/consents?subject_id=${sha256Hex('user-42@example.com')}`, {
        headers: { 'x-api-key': key, 'x-consent-proof': proof },
      });
      expect(read.status).toBe(404);
      // The history keeps the consent and its withdrawal.
      const [history] = await rawAsService(suite.db, (q) =>
        q.query<{ n: number; withdrawals: number }>(
          'select count(*)::int as n, count(*) filter (where withdrawn_at is not null)::int as withdrawals from public.data_consents where app_id = $1',
          [appId],
        ),
      );
      expect(history).toEqual({ n: 2, withdrawals: 1 });
    });

    it("takes the id's SHA-256 too, and says so when there is no current consent", async () => {
      await consented('user-7');
      const byHash = await withdrawConsentForm(form({ app_id: appId, user: sha256Hex('user-7') }), publisher(suite.users.demo), suite.services);
      expect(byHash.notice).toMatch(/^Withdrawn\./);
      const again = await withdrawConsentForm(form({ app_id: appId, user: 'user-7' }), publisher(suite.users.demo), suite.services);
      expect(again).toEqual({ error: 'This user has no current consent with this app: nothing was withdrawn.', values: { user: 'user-7' } });
    });

    it("is refused for another publisher's app, whose user keeps their consent and records", async () => {
      await consented('user-99');
      const before = await unsold();
      const state = await withdrawConsentForm(form({ app_id: appId, user: 'user-99' }), publisher(suite.users.demo2), suite.services);
      expect(state).toEqual({ error: 'That app does not exist, or is not yours.' });
      expect(await unsold()).toBe(before);
    });

    it('refuses an empty user id and an app id that is no id, with what was typed kept', async () => {
      const empty = await withdrawConsentForm(form({ app_id: appId, user: '  ' }), publisher(suite.users.demo), suite.services);
      expect(empty.error).toMatch(/user's id/);
      const bad = await withdrawConsentForm(form({ app_id: 'nope', user: 'user-1' }), publisher(suite.users.demo), suite.services);
      expect(bad.error).toBe('Unknown app.');
    });
  });
}
