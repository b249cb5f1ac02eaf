import { beforeAll, describe, expect, it, vi } from 'vitest';
import { staffSignIn } from '@/lib/identity/auth/staff';
import { totpCode } from '@/lib/identity/auth/staff-totp';
import { sessionCookie } from '@/lib/identity/auth/signin';
import { ACTIONS_PER_ACCOUNT_AND_ADDRESS } from '@/lib/platform/kit/action-limit';
import { DEMO_OPERATOR_EMAIL, DEMO_OPERATOR_TOTP_SECRET, DEMO_PASSWORD } from '@/lib/demo/seed';
import type { Services } from '@/lib/services';
import { makeServices } from '../helpers/services';
import { suiteDatabase, testEngines } from '../helpers/db';

/**
 * The data buyer's and the operator's server actions, as Next runs them (app/dashboard/data/
 * actions.ts, app/ops/actions.ts), share the consoles' budget of forms (lib/platform/kit/action-limit.ts,
 * issue 39): 30 a minute per account from one address, then the form is refused, says when to
 * try again, and runs nothing. Next's request scope is stood in for: the request's headers, and
 * the services the actions ask for are the suite's.
 */

const request = vi.hoisted(() => ({ headers: new Headers(), services: undefined as unknown }));

vi.mock('next/headers', () => ({ headers: async () => request.headers, cookies: async () => ({ delete: () => {} }) }));
vi.mock('next/cache', () => ({ revalidatePath: () => {} }));
vi.mock('next/navigation', () => ({
  redirect: (to: string) => {
    throw new Error(`redirected to ${to}`);
  },
}));
vi.mock('@/lib/services', async (original) => ({ ...(await original<object>()), services: () => request.services }));

const { buyerProfileAction, webhookRemoveAction } = await import('@/app/dashboard/data/actions');
const { payoutDetailsAction, adjustmentAction } = await import('@/app/ops/actions');

const REFUSED = /^You sent too many forms in a short time, so this one was not saved: wait \d+ seconds? and send it again\.$/;

for (const engine of testEngines()) {
  describe(`the data buyer's and the operator's server actions on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let services: Services;
    const now = Math.floor(Date.now() / 30_000) * 30_000 + 15_000;

    beforeAll(() => {
      // The clock stopped mid-step, so that the operator's code is of now when it is checked.
      services = makeServices({ database: suite.db, now: () => now });
      request.services = services;
    });

    it("refuses the buyer's forms past the budget from one address, running nothing, and another address still has its own", async () => {
      const cookie = await sessionCookie({ id: suite.users.demo2, email: 'buyer@example.test', name: null }, services);
      const from = (ip: string) => (request.headers = new Headers({ cookie: `${cookie.name}=${cookie.value}`, 'x-forwarded-for': ip }));
      from('203.0.113.21');
      // Forms the form itself refuses (no fields) still take their unit: the budget counts what is sent.
      for (let i = 0; i < ACTIONS_PER_ACCOUNT_AND_ADDRESS; i++) expect((await buyerProfileAction({}, new FormData())).error).not.toMatch(REFUSED);
      expect((await buyerProfileAction({}, new FormData())).error).toMatch(REFUSED);
      // The same budget covers every action of the console.
      expect((await webhookRemoveAction({}, new FormData())).error).toMatch(REFUSED);
      from('198.51.100.21');
      expect((await webhookRemoveAction({}, new FormData())).error).not.toMatch(REFUSED);
    });

    it("refuses the signed-in operator's forms past the budget, the reveal of payout details included", async () => {
      const form = new FormData();
      for (const [k, v] of Object.entries({ email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD, code: totpCode(DEMO_OPERATOR_TOTP_SECRET, new Date(now)) }))
        form.set(k, v);
      const signedIn = await staffSignIn(form, new Headers({ 'x-forwarded-for': '192.0.2.77' }), services);
      if (!signedIn.ok) throw new Error(`staff sign-in failed: ${signedIn.error}`);
      request.headers = new Headers({ cookie: `${signedIn.cookie.name}=${signedIn.cookie.value}`, 'x-forwarded-for': '203.0.113.22' });
      for (let i = 0; i < ACTIONS_PER_ACCOUNT_AND_ADDRESS; i++) expect((await adjustmentAction({}, new FormData())).error).not.toMatch(REFUSED);
      const refused = await payoutDetailsAction({}, new FormData());
      expect(refused.error).toMatch(REFUSED);
      expect(refused.details).toBeUndefined();
    });
  });
}
