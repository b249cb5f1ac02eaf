import { describe, expect, it } from 'vitest';
import { suiteDatabase, testEngines } from '../../tests/helpers/db';
import { rawAsService } from '../../tests/helpers/roles';
import { advertiserAccount, saveProfile } from '../ads/advertisers/account';
import { profileInput } from '../ads/advertisers/schemas';
import type { SignedInUser } from '../identity/auth/users';
import { advertisingQueue } from '../ops/advertising';
import { dataQueue } from '../ops/data';
import { saveBuyerProfile } from '../data/buyers/account';
import { micro } from '../platform/kit/micro';
import { requestTopUp, topUpOf, topUps } from './funds';

/**
 * A data buyer's top-ups (./funds.ts) are theirs alone and their buyer balance's alone: a user who
 * both advertises and buys data sees each invoice on its own side (the advertiser's console reads
 * the advertiser's only), another user's invoice is not there, and the operator's queue says which
 * balance each invoice funds. The operator's queue of exclusive licenses reads as its schema says.
 */

for (const engine of testEngines()) {
  describe(`a data buyer's top-ups on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = Math.random().toString(36).slice(2, 8);

    const newUser = (name: string) =>
      rawAsService(suite.db, async (q) => {
        const [row] = await q.query<{ id: string }>('insert into public.users (email, name) values ($1, $2) returning id', [`${tag}-${name}@funds.test`, name]);
        return row!.id;
      });
    const staff = async (): Promise<SignedInUser> => {
      const [row] = await suite.db.query<{ id: string }>("select id from public.users where email = 'operator@example.com'");
      return { id: row!.id, email: 'operator@example.com', name: null };
    };
    const becomeBuyer = async (user: string) => {
      const saved = await saveBuyerProfile(suite.db, user, {
        company: `Buyer ${tag}`,
        intended_use: 'Training a support assistant on real questions.',
        billing_email: 'billing@funds.test',
        country: 'DE',
        accept_terms: true,
      });
      expect(saved.ok).toBe(true);
    };

    it('lists the buyer’s invoices, newest first, and none of their advertising', async () => {
      const user = await newUser('both');
      await becomeBuyer(user);
      const advertiser = profileInput.parse({
        company: `Advertiser ${tag}`,
        billing_name: 'Both Ltd',
        billing_email: 'ads@funds.test',
        billing_address: '1 Main Street',
        country: 'DE',
        tax_id: '',
        time_zone: 'UTC',
      });
      expect((await saveProfile(suite.db, user, advertiser)).ok).toBe(true);

      const ad = await requestTopUp(suite.db, user, micro(300_000_000), 'advertiser');
      const first = await requestTopUp(suite.db, user, micro(100_000_000), 'buyer');
      const second = await requestTopUp(suite.db, user, micro(250_000_000), 'buyer');
      if (!ad.ok || !first.ok || !second.ok) throw new Error('a top-up was refused');

      const mine = await topUps(suite.db, user, 'buyer');
      expect(mine.map((t) => [t.id, t.amount_micro, t.status, t.rail])).toEqual([
        [second.value.id, 250_000_000, 'requested', 'manual'],
        [first.value.id, 100_000_000, 'requested', 'manual'],
      ]);
      expect(mine[0]!.invoice_number).toBe(second.value.invoice_number);
      expect(mine[0]!.requested_at).toBeInstanceOf(Date);
      expect(mine[0]!.paid_at).toBeNull();

      expect((await topUpOf(suite.db, user, 'buyer', first.value.id))?.amount_micro).toBe(100_000_000);
      // The advertising invoice is the advertiser console's, not the buyer's, and the other way round.
      expect(await topUpOf(suite.db, user, 'buyer', ad.value.id)).toBeNull();
      expect((await advertiserAccount(suite.db, user)).top_ups.map((t) => t.id)).toEqual([ad.value.id]);

      // The operator sees each with the balance it funds.
      const queue = await advertisingQueue(suite.db, await staff());
      const kinds = new Map(queue.top_ups.map((t) => [t.id, t.account_kind]));
      expect(kinds.get(first.value.id)).toBe('buyer');
      expect(kinds.get(ad.value.id)).toBe('advertiser');
    });

    it('does not show another user’s invoice, nor one named by an id that is not one', async () => {
      const owner = await newUser('owner');
      const other = await newUser('other');
      await becomeBuyer(owner);
      await becomeBuyer(other);
      const asked = await requestTopUp(suite.db, owner, micro(100_000_000), 'buyer');
      if (!asked.ok) throw new Error(asked.error);
      expect(await topUpOf(suite.db, other, 'buyer', asked.value.id)).toBeNull();
      expect(await topUps(suite.db, other, 'buyer')).toEqual([]);
      expect(await topUpOf(suite.db, owner, 'buyer', 'not-an-id')).toBeNull();
    });

    it('reads the operator’s queue of exclusive licenses as its schema says', async () => {
      const queue = await dataQueue(suite.db, await staff(), 50);
      expect(Array.isArray(queue.licenses)).toBe(true);
      for (const l of queue.licenses) {
        expect(l.requested_at).toBeInstanceOf(Date);
        expect(Array.isArray(l.filter.categories)).toBe(true);
      }
    });
  });
}
