import { beforeEach, describe, expect, it } from 'vitest';
import { signInFromForm } from '@/lib/identity/auth/signin';
import { decode } from 'next-auth/jwt';
import { AFTER_SIGN_UP, signUpFromForm, type SignUpOutcome } from '@/lib/identity/auth/signup';
import { sessionCookieName } from '@/lib/identity/auth/options';
import { requireOAuthSecrets } from '@/lib/identity/secrets';
import { SIGN_UP_ERRORS } from '@/lib/identity/auth/messages';
import { ATTEMPTS_PER_ACCOUNT_AND_IP } from '@/lib/identity/auth/throttle';
import { DEMO_PASSWORD } from '@/lib/demo/seed';
import type { Services } from '@/lib/services';
import { suiteDatabase, testEngines } from '../helpers/db';
import { makeServices } from '../helpers/services';
import { rawAsService } from '../helpers/roles';

/**
 * Sign-up signs the new account in at once, on to the console of the side it chose. An email that has an account is a sign-in: with
 * its password it signs in, with another it is refused as taken, and that attempt counts on the
 * sign-in throttle; the existing account is left exactly as it was.
 */

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries({ password: 'a-long-password', name: 'Someone', company: '', callbackUrl: '/oauth/authorize?x=1', ...fields }))
    f.set(k, v);
  return f;
};
const from = (ip: string) => new Headers({ 'x-forwarded-for': ip });

for (const engine of testEngines()) {
  describe(`sign-up on ${engine.name}`, () => {
    const suite = suiteDatabase(engine);
    let services: Services;
    // Fresh services for each test: the sign-up attempts are counted afresh.
    beforeEach(() => {
      services = makeServices({ database: suite.db });
    });

    /** Everything about an account that sign-up could change. */
    const account = async (email: string) => {
      const rows = await rawAsService(suite.db, (q) =>
        q.query<Record<string, unknown>>(
          `select u.id, u.email, u.name, u.company, u.role, u.created_at, c.password_hash
           from public.users u left join public.user_credentials c on c.user_id = u.id where u.email = $1`,
          [email],
        ),
      );
      return rows;
    };
    const userCount = async () => (await rawAsService(suite.db, (q) => q.query<{ n: number }>('select count(*)::int as n from public.users')))[0]!.n;
    /** The user a session cookie names. */
    const signedInAs = async (outcome: SignUpOutcome) => {
      if (!outcome.ok) return null;
      const { sessionSecret } = await requireOAuthSecrets(services);
      const token = await decode({ token: outcome.cookies.find((c) => c.name === sessionCookieName())!.value, secret: sessionSecret });
      return token?.email ?? null;
    };

    it('creates the account and signs it in, going on to where the form came from, or to the console', async () => {
      const email = `new-${engine.name}@example.com`;
      const count = await userCount();
      const outcome = await signUpFromForm(form({ email }), from('192.0.2.71'), services);
      expect(outcome).toMatchObject({ ok: true, location: '/oauth/authorize?x=1' });
      expect(await signedInAs(outcome)).toBe(email);
      expect(await userCount()).toBe(count + 1);
      expect(await account(email)).toEqual([expect.objectContaining({ role: 'Publisher', password_hash: expect.stringMatching(/^scrypt\$/) })]);

      const plain = await signUpFromForm(form({ email: `plain-${engine.name}@example.com`, callbackUrl: '' }), from('192.0.2.71'), services);
      expect(plain).toMatchObject({ ok: true, location: AFTER_SIGN_UP });
      const offsite = await signUpFromForm(
        form({ email: `offsite-${engine.name}@example.com`, callbackUrl: '//evil.example/x' }),
        from('192.0.2.71'),
        services,
      );
      expect(offsite).toMatchObject({ ok: true, location: AFTER_SIGN_UP });
    });

    it("lands an advertiser on the advertiser console and a data buyer on the data console, where their profile comes first; a side it does not know is a publisher's", async () => {
      const advertiser = await signUpFromForm(form({ email: 'new-advertiser@example.com', as: 'advertiser', callbackUrl: '/' }), from('192.0.2.81'), services);
      expect(advertiser).toMatchObject({ ok: true, location: '/dashboard/ads' });
      const buyer = await signUpFromForm(form({ email: 'new-buyer@example.com', as: 'buyer', callbackUrl: '/' }), from('192.0.2.84'), services);
      expect(buyer).toMatchObject({ ok: true, location: '/dashboard/data' });
      const unknown = await signUpFromForm(form({ email: 'new-other@example.com', as: 'operator', callbackUrl: '/' }), from('192.0.2.82'), services);
      expect(unknown).toMatchObject({ ok: true, location: AFTER_SIGN_UP });
      // A refused form goes back to the side it was for.
      const refused = await signUpFromForm(form({ email: 'not-an-email', as: 'advertiser' }), from('192.0.2.83'), services);
      expect(new URL(refused.location, 'http://x').searchParams.get('as')).toBe('advertiser');
    });

    it('signs in the owner of an existing email with its own password, changing nothing', async () => {
      const before = await account('demo@example.com');
      const count = await userCount();
      const outcome = await signUpFromForm(form({ email: '  Demo@Example.COM ', password: DEMO_PASSWORD, name: 'Other name' }), from('192.0.2.72'), services);
      expect(await signedInAs(outcome)).toBe('demo@example.com');
      expect(await account('demo@example.com')).toEqual(before);
      expect(await userCount()).toBe(count);
    });

    it('refuses an existing email with another password as taken, signing in nobody and changing nothing', async () => {
      const before = await account('demo@example.com');
      const count = await userCount();
      const outcome = await signUpFromForm(
        form({ email: 'demo@example.com', name: 'Intruder', company: 'Evil Corp', password: 'intruder-password' }),
        from('192.0.2.70'),
        services,
      );
      expect(outcome.ok).toBe(false);
      const next = new URL(outcome.location, 'http://x');
      expect(next.pathname).toBe('/signup');
      expect(next.searchParams.get('error')).toBe('EmailTaken');
      expect(next.searchParams.has('password')).toBe(false);
      expect(outcome).not.toHaveProperty('cookies');
      expect(await account('demo@example.com')).toEqual(before);
      expect(await userCount()).toBe(count);
      const signIn = async (password: string) => signInFromForm(form({ email: 'demo@example.com', password }), from('192.0.2.79'), services).then((o) => o.ok);
      expect(await signIn('intruder-password')).toBe(false);
      expect(await signIn(DEMO_PASSWORD)).toBe(true);
    });

    it('counts a wrong password for an existing email on the sign-in throttle: sign-up is no way around it', async () => {
      for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) {
        const outcome = await signUpFromForm(form({ email: 'demo2@example.com', password: `guess-number-${i}` }), from('192.0.2.81'), services);
        expect(new URL(outcome.location, 'http://x').searchParams.get('error')).toBe('EmailTaken');
      }
      // The right password from that address is now refused by sign-in, as after ten wrong sign-ins.
      const signIn = await signInFromForm(form({ email: 'demo2@example.com', password: DEMO_PASSWORD }), from('192.0.2.81'), services);
      expect(signIn.ok).toBe(false);
      expect(new URL(signIn.location, 'http://x').searchParams.get('error')).toBe('TooManyAttempts');
    });

    it('keeps the sign-up throttle per email and address', async () => {
      const email = `throttled-${engine.name}@example.com`;
      for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) {
        // The first creates the account; the next ones sign it in with its password.
        expect((await signUpFromForm(form({ email }), from('192.0.2.80'), services)).ok).toBe(true);
      }
      const refused = await signUpFromForm(form({ email }), from('192.0.2.80'), services);
      expect(refused.ok).toBe(false);
      expect(new URL(refused.location, 'http://x').searchParams.get('error')).toBe('TooManyAttempts');
    });

    it.each([
      ['a short password', { password: 'short' }, 'PasswordTooShort'],
      ['a long password', { password: 'x'.repeat(201) }, 'PasswordTooLong'],
      ['an invalid email', { email: 'not-an-email' }, 'InvalidEmail'],
      ['an email over 254 characters', { email: `${'x'.repeat(250)}@example.com` }, 'EmailTooLong'],
      ['no name', { name: '' }, 'NameMissing'],
      ['a name over 100 characters', { name: 'x'.repeat(101) }, 'NameTooLong'],
      ['a company over 100 characters', { company: 'x'.repeat(101) }, 'CompanyTooLong'],
    ])('sends the form back with %s as an error code from the fixed list', async (_what, change, code) => {
      const next = new URL((await signUpFromForm(form({ email: 'x@example.com', ...change }), from('192.0.2.90'), services)).location, 'http://x');
      expect(next.pathname).toBe('/signup');
      expect(next.searchParams.get('error')).toBe(code);
      expect(Object.keys(SIGN_UP_ERRORS)).toContain(code);
      expect(next.searchParams.has('password')).toBe(false);
    });
  });
}
