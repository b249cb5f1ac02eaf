import { beforeEach, describe, expect, it } from 'vitest';
import { signInFromForm } from '@/lib/auth/signin';
import { signUpFromForm } from '@/lib/auth/signup';
import { SIGN_UP_ERRORS } from '@/lib/auth/messages';
import { ATTEMPTS_PER_ACCOUNT_AND_IP } from '@/lib/auth/throttle';
import { DEMO_PASSWORD } from '@/lib/demo/seed';
import type { Services } from '@/lib/services';
import { suiteDatabase, testEngines } from '../helpers/db';
import { makeServices } from '../helpers/services';
import { rawAsService } from '../helpers/roles';

/**
 * Sign-up does not tell whether an email address has an account: a new address and one that has
 * an account get the same answer, and the existing account is left exactly as it was.
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

    it('answers an email that has an account exactly as a new one, and creates or changes nothing', async () => {
      const before = await account('demo@example.com');
      expect(before).toHaveLength(1);
      const count = await userCount();

      const existing = await signUpFromForm(
        form({ email: 'demo@example.com', name: 'Intruder', company: 'Evil Corp', password: 'intruder-password' }),
        from('192.0.2.70'),
        services,
      );
      expect(existing).toBe(`/signin?${new URLSearchParams({ created: '1', email: 'demo@example.com', callbackUrl: '/oauth/authorize?x=1' })}`);

      const fresh = await signUpFromForm(form({ email: `new-${engine.name}@example.com` }), from('192.0.2.71'), services);
      expect(fresh).toBe(existing.replace('demo%40example.com', `new-${engine.name}%40example.com`));

      // The existing account is untouched: same row, same password; the intruder's password opens nothing.
      expect(await account('demo@example.com')).toEqual(before);
      expect(await userCount()).toBe(count + 1);
      const signIn = async (password: string) => signInFromForm(form({ email: 'demo@example.com', password }), from('192.0.2.72'), services).then((o) => o.ok);
      expect(await signIn('intruder-password')).toBe(false);
      expect(await signIn(DEMO_PASSWORD)).toBe(true);
    });

    it('answers the same for an existing email written in another case or with spaces', async () => {
      const next = await signUpFromForm(form({ email: '  Demo2@Example.COM ' }), from('192.0.2.73'), services);
      expect(next).toBe(`/signin?${new URLSearchParams({ created: '1', email: 'demo2@example.com', callbackUrl: '/oauth/authorize?x=1' })}`);
    });

    it('keeps the sign-up throttle, the same for an existing and a new email', async () => {
      for (const email of ['demo@example.com', `throttled-${engine.name}@example.com`]) {
        for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) {
          expect(new URL(await signUpFromForm(form({ email }), from('192.0.2.80'), services), 'http://x').pathname).toBe('/signin');
        }
        const refused = new URL(await signUpFromForm(form({ email }), from('192.0.2.80'), services), 'http://x');
        expect(refused.pathname).toBe('/signup');
        expect(refused.searchParams.get('error')).toBe('TooManyAttempts');
      }
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
      const next = new URL(await signUpFromForm(form({ email: 'x@example.com', ...change }), from('192.0.2.90'), services), 'http://x');
      expect(next.pathname).toBe('/signup');
      expect(next.searchParams.get('error')).toBe(code);
      expect(Object.keys(SIGN_UP_ERRORS)).toContain(code);
      expect(next.searchParams.has('password')).toBe(false);
    });
  });
}
