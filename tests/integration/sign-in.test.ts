import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import type { Engine } from '@/lib/db/database';
import { asService } from '@/lib/db/service';
import { authOptions, sessionCookieName } from '@/lib/auth/options';
import { sessionUser } from '@/lib/auth/session';
import { signUpFromForm } from '@/lib/auth/signup';
import { ATTEMPTS_PER_ACCOUNT, ATTEMPTS_PER_ACCOUNT_AND_IP } from '@/lib/auth/throttle';
import { requireOAuthSecrets } from '@/lib/oauth/secrets';
import { DEMO_PASSWORD } from '@/lib/db/seed';
import type { Services } from '@/lib/services';
import { demoUsers, openPgliteCopy } from '../helpers/db';
import { makeServices } from '../helpers/services';

type Authorize = (credentials: Record<string, string>, req: { headers: Record<string, string> }) => Promise<{ id: string } | null>;

async function credentialsAuthorize(services: Services): Promise<Authorize> {
  const options = await authOptions(services);
  const provider = options.providers.find((p) => p.id === 'credentials') as unknown as { options: { authorize: Authorize } };
  return provider.options.authorize;
}
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

describe('sign-up and sign-in', () => {
  let db: Engine;
  let services: Services;
  let authorize: Authorize;
  beforeAll(async () => {
    db = await openPgliteCopy();
  });
  afterAll(async () => {
    await db.close();
  });
  // Fresh services for each test: the sign-in and sign-up attempts are counted afresh.
  beforeEach(async () => {
    services = makeServices({ database: db });
    authorize = await credentialsAuthorize(services);
  });

  it('signs in with the right password, and not with a wrong one or an unknown email', async () => {
    const { demo } = await demoUsers(db);
    expect(await authorize({ email: 'Demo@Example.com', password: DEMO_PASSWORD }, from('192.0.2.1'))).toMatchObject({ id: demo });
    expect(await authorize({ email: 'demo@example.com', password: 'wrong-password' }, from('192.0.2.1'))).toBeNull();
    expect(await authorize({ email: 'nobody@example.com', password: DEMO_PASSWORD }, from('192.0.2.1'))).toBeNull();
  });

  it(`stops guessing after ${ATTEMPTS_PER_ACCOUNT_AND_IP} attempts at one account from one address, even with the right password`, async () => {
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) {
      expect(await authorize({ email: 'demo2@example.com', password: `guess-${i}` }, from('192.0.2.10'))).toBeNull();
    }
    await expect(authorize({ email: 'demo2@example.com', password: DEMO_PASSWORD }, from('192.0.2.10'))).rejects.toThrow('TooManyAttempts');
    // The owner, elsewhere, is not locked out by a stranger's guesses; another account is untouched.
    expect(await authorize({ email: 'demo2@example.com', password: DEMO_PASSWORD }, from('192.0.2.11'))).not.toBeNull();
    expect(await authorize({ email: 'demo@example.com', password: DEMO_PASSWORD }, from('192.0.2.12'))).not.toBeNull();
  });

  it(`locks an account after ${ATTEMPTS_PER_ACCOUNT} attempts from many addresses`, async () => {
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT; i++) {
      expect(await authorize({ email: 'demo2@example.com', password: `guess-${i}` }, from(`198.18.${i >> 8}.${i & 255}`))).toBeNull();
    }
    await expect(authorize({ email: 'demo2@example.com', password: DEMO_PASSWORD }, from('192.0.2.99'))).rejects.toThrow('TooManyAttempts');
  });

  it('creates a publisher with a hashed password, then refuses the same email again', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ email: 'New.Publisher@Example.com', password: 'a-long-password', name: 'New Publisher', company: 'Acme', callbackUrl: '/oauth/authorize?x=1' })) form.set(k, v);
    const next = new URL(await signUpFromForm(form, new Headers({ 'x-forwarded-for': '192.0.2.50' }), services), 'http://localhost');
    expect(next.pathname).toBe('/signin');
    expect(Object.fromEntries(next.searchParams)).toEqual({ created: '1', email: 'new.publisher@example.com', callbackUrl: '/oauth/authorize?x=1' });
    const [row] = await asService(db, (q) =>
      q.query<{ name: string; company: string; password_hash: string }>(
        "select u.name, u.company, c.password_hash from public.users u join public.user_credentials c on c.user_id = u.id where u.email = 'new.publisher@example.com'",
      ),
    );
    expect(row).toMatchObject({ name: 'New Publisher', company: 'Acme', password_hash: expect.stringMatching(/^scrypt\$/) });
    expect(row!.password_hash).not.toContain('a-long-password');
    expect(await authorize({ email: 'new.publisher@example.com', password: 'a-long-password' }, from('192.0.2.51'))).not.toBeNull();

    const again = new URL(await signUpFromForm(form, new Headers({ 'x-forwarded-for': '192.0.2.50' }), services), 'http://localhost');
    expect(again.pathname).toBe('/signup');
    expect(again.searchParams.get('error')).toMatch(/already exists/);
  });

  it.each([
    ['a short password', { password: 'short' }, /at least 10/],
    ['an invalid email', { email: 'not-an-email' }, /valid email/],
    ['no name', { name: '' }, /Enter your name/],
  ])('sends the form back with %s, keeping what was typed but not the password', async (_what, change, message) => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ email: 'x@example.com', password: 'a-long-password', name: 'X', company: '', ...change })) form.set(k, v);
    const next = new URL(await signUpFromForm(form, new Headers(), services), 'http://localhost');
    expect(next.pathname).toBe('/signup');
    expect(next.searchParams.get('error')).toMatch(message);
    expect(next.searchParams.has('password')).toBe(false);
  });

  it('refuses to send the browser off-site after sign-up', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ email: 'y@example.com', password: 'a-long-password', name: 'Y', company: '', callbackUrl: '//evil.example/x' })) form.set(k, v);
    const next = new URL(await signUpFromForm(form, new Headers(), services), 'http://localhost');
    expect(next.searchParams.get('callbackUrl')).toBe('/');
  });

  describe('the session cookie', () => {
    const request = (cookie: string) => new Request('http://localhost/oauth/authorize', { headers: { cookie } });

    it('names the signed-in user', async () => {
      const { demo } = await demoUsers(db);
      const secrets = await requireOAuthSecrets(services);
      const cookie = `${sessionCookieName()}=${await encode({ token: { sub: demo }, secret: secrets.sessionSecret })}`;
      expect(await sessionUser(request(cookie), secrets, db)).toMatchObject({ id: demo, email: 'demo@example.com' });
    });

    it('signs in nobody when it was made with another secret, or was edited', async () => {
      const { demo } = await demoUsers(db);
      const secrets = await requireOAuthSecrets(services);
      const foreign = await encode({ token: { sub: demo }, secret: 'another-deployment-secret-another-deployment' });
      expect(await sessionUser(request(`${sessionCookieName()}=${foreign}`), secrets, db)).toBeNull();
      const real = await encode({ token: { sub: demo }, secret: secrets.sessionSecret });
      expect(await sessionUser(request(`${sessionCookieName()}=${real.slice(0, -4)}AAAA`), secrets, db)).toBeNull();
    });

    it('signs in nobody once the account is deleted', async () => {
      const form = new FormData();
      for (const [k, v] of Object.entries({ email: 'gone@example.com', password: 'a-long-password', name: 'Gone', company: '' })) form.set(k, v);
      await signUpFromForm(form, new Headers(), services);
      const [{ id }] = (await asService(db, (q) => q.query<{ id: string }>("select id from public.users where email = 'gone@example.com'"))) as [{ id: string }];
      const secrets = await requireOAuthSecrets(services);
      const cookie = `${sessionCookieName()}=${await encode({ token: { sub: id }, secret: secrets.sessionSecret })}`;
      expect(await sessionUser(request(cookie), secrets, db)).not.toBeNull();
      await asService(db, (q) => q.query('delete from public.users where id = $1', [id]));
      expect(await sessionUser(request(cookie), secrets, db)).toBeNull();
    });
  });
});
