import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/platform/http/errors';
import { appOfKey, authenticateApiKey, checkOrigin, SdkDirectory, type SdkKeyRow } from '../../../lib/identity/keys/directory';
import { explain, maskKey, type Refusal } from '../src/explain';

/*
 * What the console is told of a refusal (src/explain.ts), from the refusals the service really
 * answers: the words the SDK tells a 403's causes apart by are held to the service's own messages
 * (lib/identity/keys/directory.ts) here, so neither can change without the other.
 */

const KEY = 'pk_test_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
const MASKED = 'pk_test_Ab3dEf6h…Xy4z';
const ASKER = { key: KEY, base: 'https://monetize.example', origin: 'https://shop.example' };

const row: SdkKeyRow = {
  id: 'f1d2c3b4-a596-4877-8899-aabbccddeeff',
  name: 'Shop',
  kind: 'publishable',
  environment: 'development',
  status: 'active',
  key_prefix: KEY.slice(0, 16),
  key_last4: KEY.slice(-4),
  app_id: '8b0c6f3e-2d41-4c55-9a1e-6f2b7c9d0a13',
  app_name: 'Shop',
  app_archived: false,
  user_id: '5f0e2d1c-0b9a-4887-a665-544332211000',
  allowed_origins: ['https://app.example'],
};

/** The refusal the service answers for what `fn` throws, as the SDK reads it. */
async function refusal(fn: () => unknown): Promise<Refusal> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const { error } = err.body();
    return { status: error.status, code: error.code, message: error.message };
  }
  throw new Error('nothing was thrown');
}

describe('a key as the console lists it', () => {
  it('is its first 16 characters, "…" and its last 4, the form the service masks it in', () => {
    expect(maskKey(KEY)).toBe(MASKED);
    expect(appOfKey(row).maskedKey).toBe(MASKED);
  });

  it('is nothing for a value that is not a publishable key, which is never printed', () => {
    for (const value of ['', 'pk_test_short', `${KEY}x`, 'sk_live_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z', 'Bearer abc']) expect(maskKey(value)).toBeNull();
  });
});

describe("the service's refusals, explained", () => {
  it('a page on an origin the app does not allow: an error naming the origin, the key and where to add it', async () => {
    const refused = await refusal(() => checkOrigin({ allowedOrigins: row.allowed_origins }, new Headers({ origin: 'https://shop.example' })));
    const told = explain(refused, ASKER);
    expect(told.level).toBe('error');
    expect(told.text).toBe(
      `this page may not use key ${MASKED}: https://shop.example is not one of the allowed web origins of the key's app, so no ads are shown. ` +
        'Fix: add https://shop.example to "Allowed web origins" in the app\'s settings, in the console at https://monetize.example/dashboard; it applies within 5 seconds. ' +
        `(The service answered 403 forbidden: ${refused.message})`,
    );
  });

  it('a revoked key, a key of an archived app: an error saying which, and what to use instead', async () => {
    const revoked = explain(await refusal(() => appOfKey({ ...row, status: 'revoked' })), ASKER);
    expect(revoked).toMatchObject({ level: 'error', text: expect.stringContaining(`key ${MASKED} was revoked. Fix: create a key for the app`) });
    const archived = explain(await refusal(() => appOfKey({ ...row, app_archived: true })), ASKER);
    expect(archived).toMatchObject({ level: 'error', text: expect.stringContaining(`the app of key ${MASKED} was archived`) });
    expect(new Set([revoked.cause, archived.cause]).size).toBe(2);
  });

  it('an unknown key, a missing one, a value that is not a key: an error pointing to the console', async () => {
    const unknown = explain(await refusal(() => appOfKey(undefined)), ASKER);
    expect(unknown).toMatchObject({ level: 'error', text: expect.stringContaining(`the service knows no key ${MASKED}`) });
    const services = { database: () => Promise.reject(new Error('not asked')), sdkDirectory: new SdkDirectory(Date.now) };
    for (const headers of [new Headers(), new Headers({ 'x-api-key': 'not a key' })]) {
      const refused = await refusal(() => authenticateApiKey({ headers }, services));
      expect(refused.status).toBe(401);
      const told = explain(refused, { ...ASKER, key: headers.get('x-api-key') ?? '' });
      expect(told.text).toContain('the key given to createClient is not a publishable key');
      expect(told.text).toContain('https://monetize.example/dashboard');
    }
  });

  it('names a cause by the service, the key, and for an unknown placement the placement: the same cause is one', () => {
    const origin: Refusal = { status: 403, code: 'forbidden', message: "The origin https://shop.example is not allowed to use this app's keys." };
    expect(explain(origin, ASKER).cause).toBe(explain({ ...origin, placementId: 'pl_2' }, ASKER).cause);
    expect(explain(origin, ASKER).cause).not.toBe(explain(origin, { ...ASKER, key: `${KEY.slice(0, -1)}Z` }).cause);
    const placement: Refusal = { status: 404, code: 'not_found', message: 'No placement with this id belongs to the app of this key.' };
    expect(explain({ ...placement, placementId: 'pl_1' }, ASKER).cause).not.toBe(explain({ ...placement, placementId: 'pl_2' }, ASKER).cause);
    // The service's own troubles are one cause whichever key met them.
    const busy: Refusal = { status: 429, code: 'rate_limited', message: 'Too many requests.' };
    expect(explain(busy, ASKER).cause).toBe(explain(busy, { ...ASKER, key: 'pk_live_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z' }).cause);
  });

  it("warns of what passes by itself, and passes any other refusal on with the service's words", () => {
    expect(explain({ status: 429, code: 'rate_limited', message: 'Too many requests.', retryAfter: '12' }, ASKER)).toMatchObject({
      level: 'warn',
      text: expect.stringContaining('requests are refused for 12 s'),
    });
    expect(explain({ status: 503, code: 'unavailable', message: 'Later.' }, ASKER).level).toBe('warn');
    expect(explain({ status: 0, message: 'Failed to fetch' }, ASKER)).toMatchObject({
      level: 'warn',
      text: expect.stringContaining('could not reach the service at https://monetize.example (Failed to fetch)'),
    });
    expect(explain({ status: 403, code: 'forbidden', message: 'Something new.' }, ASKER)).toMatchObject({
      level: 'error',
      text: 'a request was refused. (The service answered 403 forbidden: Something new.)',
    });
  });

  it('says "this page\'s origin" where the page has none to name (a sandboxed frame\'s `null`)', () => {
    const told = explain({ status: 403, code: 'forbidden', message: 'The origin null is not allowed.' }, { ...ASKER, origin: 'null' });
    expect(told.text).toContain(`add this page's origin to "Allowed web origins"`);
  });
});
