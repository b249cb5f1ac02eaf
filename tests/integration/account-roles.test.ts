import { describe, expect, it } from 'vitest';
import { accountRoles, homeOf } from '@/lib/identity/roles';
import { suiteDatabase, testEngines } from '../helpers/db';

/**
 * Each demo account's roles, as the consoles read them (lib/identity/roles.ts), on every engine:
 * the publisher's, the advertiser's, the buyer's and the operator's land in their own consoles.
 */
for (const engine of testEngines()) {
  describe(`account roles on ${engine.name}`, () => {
    const suite = suiteDatabase(engine);
    const idOf = async (email: string) => (await suite.db.query<{ id: string }>('select id from public.users where email = $1', [email]))[0]!.id;
    const rolesOfDemo = async (email: string) => accountRoles(await suite.services.database(), await idOf(email));

    it('the demo publisher publishes, and only that; its console is the overview', async () => {
      const roles = await rolesOfDemo('demo@example.com');
      expect(roles).toEqual({ publisher: true, advertiser: false, buyer: false, operator: false });
      expect(homeOf(roles)).toBe('/dashboard');
    });

    it("the demo advertiser advertises, publishes nothing, and lands in the advertiser's console", async () => {
      const roles = await rolesOfDemo('advertiser@example.com');
      expect(roles).toEqual({ publisher: false, advertiser: true, buyer: false, operator: false });
      expect(homeOf(roles)).toBe('/dashboard/ads');
    });

    it("the demo buyer buys data and lands in the buyer's console", async () => {
      const roles = await rolesOfDemo('buyer@example.com');
      expect(roles).toEqual({ publisher: false, advertiser: false, buyer: true, operator: false });
      expect(homeOf(roles)).toBe('/dashboard/data');
    });

    it('the operator is staff and nothing else, and goes to /ops', async () => {
      const roles = await rolesOfDemo('operator@example.com');
      expect(roles).toEqual({ publisher: false, advertiser: false, buyer: false, operator: true });
      expect(homeOf(roles)).toBe('/ops');
    });

    it('an account that takes up a second role holds both', async () => {
      const demo = await idOf('demo@example.com');
      await suite.db.query(
        "insert into public.buyer_profiles (user_id, company, intended_use, billing_email, country, terms_version) select $1, 'Demo Labs', 'Research on our own users', 'demo@example.com', 'US', terms_version from public.buyer_profiles limit 1",
        [demo],
      );
      expect(await accountRoles(await suite.services.database(), demo)).toEqual({ publisher: true, advertiser: false, buyer: true, operator: false });
    });
  });
}
