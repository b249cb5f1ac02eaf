import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import type { Engine } from '@/lib/platform/db/engine';
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE_S } from '@/lib/identity/auth/device';
import { sessionCookieName } from '@/lib/identity/auth/options';
import { hashPassword } from '@/lib/identity/auth/password';
import { signInFromForm } from '@/lib/identity/auth/signin';
import { sessionUser } from '@/lib/identity/auth/session';
import { signUpFromForm } from '@/lib/identity/auth/signup';
import { ATTEMPTS_PER_ACCOUNT, ATTEMPTS_PER_ACCOUNT_AND_IP, ATTEMPTS_PER_IP } from '@/lib/identity/auth/throttle';
import { requireOAuthSecrets } from '@/lib/identity/secrets';
import { DEMO_PASSWORD } from '@/lib/demo/seed';
import type { Services } from '@/lib/services';
import { demoUsers, openPgliteCopy } from '../helpers/db';
import { makeServices } from '../helpers/services';
import { rawAsService } from '../helpers/roles';

/** Signs in through the form's server action, from `ip` (with a device cookie); the user it signed in, or null (and the error code the page shows). */
async function signIn(services: Services, email: string, password: string, ip: string, device?: string) {
  const outcome = await submitSignIn(services, email, password, ip, device);
  return outcome.ok ? { user: outcome.user, error: null } : { user: null, error: new URL(outcome.location, 'http://localhost').searchParams.get('error') };
}

function submitSignIn(services: Services, email: string, password: string, ip: string, device?: string) {
  const form = new FormData();
  form.set('email', email);
  form.set('password', password);
  form.set('callbackUrl', '/dashboard');
  const headers = new Headers({ 'x-forwarded-for': ip, ...(device ? { cookie: `other=1; ${DEVICE_COOKIE}=${device}` } : {}) });
  return signInFromForm(form, headers, services);
}

/** The device cookie a successful sign-in gives the browser. */
async function deviceCookieOf(services: Services, email: string, password: string, ip: string): Promise<string> {
  const outcome = await submitSignIn(services, email, password, ip);
  if (!outcome.ok) throw new Error(outcome.location);
  return outcome.cookies.find((c) => c.name === DEVICE_COOKIE)!.value;
}

describe('sign-up and sign-in', () => {
  let db: Engine;
  let services: Services;
  beforeAll(async () => {
    db = await openPgliteCopy();
  });
  afterAll(async () => {
    await db.close();
  });
  // Fresh services for each test: the sign-in and sign-up attempts are counted afresh.
  beforeEach(async () => {
    services = makeServices({ database: db });
  });

  it('signs in with the right password, and not with a wrong one or an unknown email', async () => {
    const { demo } = await demoUsers(db);
    expect((await signIn(services, 'Demo@Example.com', DEMO_PASSWORD, '192.0.2.1')).user).toMatchObject({ id: demo });
    expect(await signIn(services, 'demo@example.com', 'wrong-password', '192.0.2.1')).toEqual({ user: null, error: 'CredentialsSignin' });
    expect(await signIn(services, 'nobody@example.com', DEMO_PASSWORD, '192.0.2.1')).toEqual({ user: null, error: 'CredentialsSignin' });
  });

  it('sets the session cookie next-auth reads, and goes back where the visitor was going', async () => {
    const { demo } = await demoUsers(db);
    const form = new FormData();
    for (const [k, v] of Object.entries({ email: 'demo@example.com', password: DEMO_PASSWORD, callbackUrl: '/dashboard?app=1' })) form.set(k, v);
    const outcome = await signInFromForm(form, new Headers({ 'x-forwarded-for': '192.0.2.2' }), services);
    if (!outcome.ok) throw new Error(outcome.location);
    expect(outcome.location).toBe('/dashboard?app=1');
    // Without a destination (the header's Sign in), the console of the account's role.
    const plain = new FormData();
    for (const [k, v] of Object.entries({ email: 'demo@example.com', password: DEMO_PASSWORD, callbackUrl: '/' })) plain.set(k, v);
    expect(await signInFromForm(plain, new Headers({ 'x-forwarded-for': '192.0.2.2' }), services)).toMatchObject({ ok: true, location: '/console' });
    const session = outcome.cookies.find((c) => c.name === sessionCookieName())!;
    expect(session).toMatchObject({ options: { httpOnly: true, sameSite: 'lax', path: '/' } });
    // And the device cookie that lets this browser past strangers' guesses (lib/identity/auth/device.ts).
    expect(outcome.cookies.find((c) => c.name === DEVICE_COOKIE)).toMatchObject({
      options: { httpOnly: true, sameSite: 'lax', path: '/', maxAge: DEVICE_COOKIE_MAX_AGE_S },
    });
    const secrets = await requireOAuthSecrets(services);
    const request = new Request('http://localhost/dashboard', { headers: { cookie: `${session.name}=${session.value}` } });
    expect(await sessionUser(request, secrets, db)).toMatchObject({ id: demo });
  });

  it('sends a refused sign-in back with the email but never the password, and never off-site', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ email: 'demo@example.com', password: 'wrong-password', callbackUrl: '//evil.example/x' })) form.set(k, v);
    const outcome = await signInFromForm(form, new Headers({ 'x-forwarded-for': '192.0.2.3' }), services);
    expect(outcome.ok).toBe(false);
    const back = new URL(outcome.location, 'http://localhost');
    expect(back.pathname).toBe('/signin');
    expect(Object.fromEntries(back.searchParams)).toEqual({ error: 'CredentialsSignin', email: 'demo@example.com', callbackUrl: '/' });
  });

  it(`refuses the ${ATTEMPTS_PER_ACCOUNT_AND_IP + 1}th wrong password for one account from one address, even with the right password`, async () => {
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) {
      expect((await signIn(services, 'demo2@example.com', `guess-${i}`, '192.0.2.10')).error).toBe('CredentialsSignin');
    }
    expect(await signIn(services, 'demo2@example.com', 'guess-again', '192.0.2.10')).toEqual({ user: null, error: 'TooManyAttempts' });
    expect(await signIn(services, 'demo2@example.com', DEMO_PASSWORD, '192.0.2.10')).toEqual({ user: null, error: 'TooManyAttempts' });
    // The owner, elsewhere, is not locked out by a stranger's guesses; another account is untouched.
    expect((await signIn(services, 'demo2@example.com', DEMO_PASSWORD, '192.0.2.11')).user).not.toBeNull();
    expect((await signIn(services, 'demo@example.com', DEMO_PASSWORD, '192.0.2.10')).user).not.toBeNull();
  });

  it('forgets the failures of an account from an address after it signs in', async () => {
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP - 1; i++) await signIn(services, 'demo@example.com', `typo-${i}`, '192.0.2.20');
      expect((await signIn(services, 'demo@example.com', DEMO_PASSWORD, '192.0.2.20')).user).not.toBeNull();
    }
  });

  it(`signs in ${ATTEMPTS_PER_IP + 10} different accounts from one address in one window`, async () => {
    const password = 'a-long-password';
    const emails = Array.from({ length: ATTEMPTS_PER_IP + 10 }, (_, i) => `office-${i}@example.com`);
    await rawAsService(db, async (q) => {
      const hash = await hashPassword(password);
      for (const email of emails) {
        const [u] = await q.query<{ id: string }>("insert into public.users (email, name, role) values ($1, 'Office', 'Publisher') returning id", [email]);
        await q.query('insert into public.user_credentials (user_id, password_hash) values ($1, $2)', [u!.id, hash]);
      }
    });
    for (const email of emails) expect((await signIn(services, email, password, '203.0.113.5')).user, email).not.toBeNull();
  });

  it(`refuses further attempts from an address after ${ATTEMPTS_PER_IP} failures at any accounts`, async () => {
    for (let i = 0; i < ATTEMPTS_PER_IP; i++)
      expect((await signIn(services, `stranger-${i}@example.com`, 'guess', '203.0.113.9')).error).toBe('CredentialsSignin');
    expect((await signIn(services, 'demo@example.com', DEMO_PASSWORD, '203.0.113.9')).error).toBe('TooManyAttempts');
  });

  it(`slows an account after ${ATTEMPTS_PER_ACCOUNT} failures from many addresses, and never refuses its owner's right password`, async () => {
    // The owner signed in from this browser before: it holds a device cookie.
    const device = await deviceCookieOf(services, 'demo2@example.com', DEMO_PASSWORD, '192.0.2.98');
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT; i++) {
      expect((await signIn(services, 'demo2@example.com', `guess-${i}`, `198.18.${i >> 8}.${i & 255}`)).error).toBe('CredentialsSignin');
    }
    // A guesser now gets one try per address per minute.
    expect((await signIn(services, 'demo2@example.com', 'guess-slow', '198.19.0.1')).error).toBe('CredentialsSignin');
    expect((await signIn(services, 'demo2@example.com', 'guess-slow-2', '198.19.0.1')).error).toBe('TooManyAttempts');
    // The owner's right password gets in from a new address at once...
    expect((await signIn(services, 'demo2@example.com', DEMO_PASSWORD, '192.0.2.99')).user).not.toBeNull();
    // ...and from the browser they used before, even after strangers spent the owner's own address too.
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) await signIn(services, 'demo2@example.com', `office-${i}`, '192.0.2.98');
    expect((await signIn(services, 'demo2@example.com', DEMO_PASSWORD, '192.0.2.98')).error).toBe('TooManyAttempts');
    expect((await signIn(services, 'demo2@example.com', DEMO_PASSWORD, '192.0.2.98', device)).user).not.toBeNull();
    // A device cookie of another account, or a forged one, is no device at all.
    const other = await deviceCookieOf(services, 'demo@example.com', DEMO_PASSWORD, '192.0.2.97');
    expect((await signIn(services, 'demo2@example.com', DEMO_PASSWORD, '192.0.2.98', other)).error).toBe('TooManyAttempts');
    expect((await signIn(services, 'demo2@example.com', DEMO_PASSWORD, '192.0.2.98', `${device.slice(0, -2)}xx`)).error).toBe('TooManyAttempts');
  });

  it('creates a publisher with a hashed password and signs it in; the same email with another password is refused, changing nothing', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({
      email: 'New.Publisher@Example.com',
      password: 'a-long-password',
      name: 'New Publisher',
      company: 'Acme',
      callbackUrl: '/oauth/authorize?x=1',
    }))
      form.set(k, v);
    const outcome = await signUpFromForm(form, new Headers({ 'x-forwarded-for': '192.0.2.50' }), services);
    expect(outcome).toMatchObject({ ok: true, location: '/oauth/authorize?x=1' });
    const [row] = await rawAsService(db, (q) =>
      q.query<{ name: string; company: string; password_hash: string }>(
        "select u.name, u.company, c.password_hash from public.users u join public.user_credentials c on c.user_id = u.id where u.email = 'new.publisher@example.com'",
      ),
    );
    expect(row).toMatchObject({ name: 'New Publisher', company: 'Acme', password_hash: expect.stringMatching(/^scrypt\$/) });
    expect(row!.password_hash).not.toContain('a-long-password');
    expect((await signIn(services, 'new.publisher@example.com', 'a-long-password', '192.0.2.51')).user).not.toBeNull();

    // Another password for that email is refused as taken (tests/integration/sign-up.test.ts), and the account is as it was.
    form.set('password', 'another-long-password');
    const again = await signUpFromForm(form, new Headers({ 'x-forwarded-for': '192.0.2.50' }), services);
    expect(again.ok).toBe(false);
    expect(new URL(again.location, 'http://localhost').searchParams.get('error')).toBe('EmailTaken');
    expect((await signIn(services, 'new.publisher@example.com', 'another-long-password', '192.0.2.51')).user).toBeNull();
    expect((await signIn(services, 'new.publisher@example.com', 'a-long-password', '192.0.2.51')).user).not.toBeNull();
  });

  it.each([
    ['a short password', { password: 'short' }, /^PasswordTooShort$/],
    ['an invalid email', { email: 'not-an-email' }, /^InvalidEmail$/],
    ['no name', { name: '' }, /^NameMissing$/],
  ])('sends the form back with %s, keeping what was typed but not the password', async (_what, change, message) => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ email: 'x@example.com', password: 'a-long-password', name: 'X', company: '', ...change })) form.set(k, v);
    const next = new URL((await signUpFromForm(form, new Headers(), services)).location, 'http://localhost');
    expect(next.pathname).toBe('/signup');
    expect(next.searchParams.get('error')).toMatch(message);
    expect(next.searchParams.has('password')).toBe(false);
  });

  it('refuses to send the browser off-site after sign-up', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ email: 'y@example.com', password: 'a-long-password', name: 'Y', company: '', callbackUrl: '//evil.example/x' }))
      form.set(k, v);
    expect((await signUpFromForm(form, new Headers(), services)).location).toBe('/dashboard');
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
      const [{ id }] = (await rawAsService(db, (q) => q.query<{ id: string }>("select id from public.users where email = 'gone@example.com'"))) as [
        { id: string },
      ];
      const secrets = await requireOAuthSecrets(services);
      const cookie = `${sessionCookieName()}=${await encode({ token: { sub: id }, secret: secrets.sessionSecret })}`;
      expect(await sessionUser(request(cookie), secrets, db)).not.toBeNull();
      await rawAsService(db, (q) => q.query('delete from public.users where id = $1', [id]));
      expect(await sessionUser(request(cookie), secrets, db)).toBeNull();
    });
  });
});
