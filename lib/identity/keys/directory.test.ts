import { describe, expect, it } from 'vitest';
import { ENGINE, type Engine } from '../../platform/db/engine';
import { isDatabaseError } from '../../platform/db/errors';
import { ApiError } from '../../platform/http/errors';
import { generateApiKey } from './api-key';
import { appOfKey, authenticateApiKey, presentedKey, SdkDirectory, type SdkKeyRow } from './directory';

const row: SdkKeyRow = {
  id: 'f1d2c3b4-a596-4877-8899-aabbccddeeff',
  name: 'StoryForge production',
  kind: 'publishable',
  environment: 'production',
  status: 'active',
  key_prefix: 'pk_live_7Hq2xVbN',
  key_last4: '6aEu',
  app_id: '8b0c6f3e-2d41-4c55-9a1e-6f2b7c9d0a13',
  app_name: 'StoryForge AI',
  app_archived: false,
  user_id: '5f0e2d1c-0b9a-4887-a665-544332211000',
  allowed_origins: ['https://storyforge.example'],
};

/** The error `fn` throws, as an ApiError (fails when it throws nothing or something else). */
function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('nothing was thrown');
}

describe('the key a request presents', () => {
  const key = generateApiKey('development').key;
  const presenting = (value?: string) => presentedKey(new Headers(value === undefined ? {} : { 'x-api-key': value }));

  it('is none without the header, whatever else the request carries', () => {
    expect(presenting()).toEqual({ present: false });
    expect(presentedKey(new Headers({ authorization: `Bearer ${key}` }))).toEqual({ present: false });
  });

  it('is the header value when it has the shape of a key, the name of the header in any case', () => {
    expect(presenting(key)).toEqual({ present: true, key });
    expect(presentedKey(new Headers({ 'X-API-Key': key }))).toEqual({ present: true, key });
  });

  it('is present but no key for anything else', () => {
    const twice = new Headers();
    twice.append('x-api-key', key);
    twice.append('x-api-key', key);
    for (const headers of [
      twice,
      ...['', 'svc_sandbox', `Bearer ${key}`, key.slice(0, -1), `${key}x`, key.replace('pk_test_', 'pk_prod_')].map((v) => new Headers({ 'x-api-key': v })),
    ]) {
      expect(presentedKey(headers), headers.get('x-api-key')!).toEqual({ present: true, key: null });
    }
  });
});

describe('the app of a key', () => {
  it('is what the key row says, with the key masked', () => {
    expect(appOfKey(row)).toEqual({
      kind: 'app',
      appId: row.app_id,
      appName: 'StoryForge AI',
      userId: row.user_id,
      archived: false,
      allowedOrigins: ['https://storyforge.example'],
      keyId: row.id,
      keyName: 'StoryForge production',
      keyKind: 'publishable',
      environment: 'production',
      maskedKey: 'pk_live_7Hq2xVbN…6aEu',
    });
  });

  it('is a 401 invalid_token for an unknown key', () => {
    expect(thrown(() => appOfKey(undefined))).toMatchObject({ status: 401, code: 'invalid_token' });
  });

  it('is a 403 forbidden for a revoked key, a key of an archived app, or both', () => {
    const revoked = thrown(() => appOfKey({ ...row, status: 'revoked' }));
    expect(revoked).toMatchObject({ status: 403, code: 'forbidden', message: expect.stringMatching(/revoked/) });
    expect(thrown(() => appOfKey({ ...row, app_archived: true }))).toMatchObject({
      status: 403,
      code: 'forbidden',
      message: expect.stringMatching(/archived/),
    });
    expect(thrown(() => appOfKey({ ...row, status: 'revoked', app_archived: true }))).toMatchObject({ status: 403, code: 'forbidden' });
  });
});

describe('checking a key', () => {
  const key = generateApiKey('production').key;
  const request = (value?: string) => ({ headers: new Headers(value === undefined ? {} : { 'x-api-key': value }) });
  /** A database whose every statement fails with `err`, counting the attempts. */
  const failing = (err: Error) => {
    const state = { calls: 0 };
    const engine: Engine = {
      get [ENGINE]() {
        return engine;
      },
      script: () => {
        state.calls++;
        return Promise.reject(err);
      },
    } as unknown as Engine;
    return { state, services: { database: () => Promise.resolve(engine), sdkDirectory: new SdkDirectory(Date.now) } };
  };

  it('does not ask the database about a missing or malformed key', async () => {
    const db = failing(new Error('must not be asked'));
    await expect(authenticateApiKey(request(), db.services)).rejects.toMatchObject({ status: 401, code: 'invalid_token' });
    await expect(authenticateApiKey(request('pk_live_short'), db.services)).rejects.toMatchObject({ status: 401, code: 'invalid_token' });
    expect(db.state.calls).toBe(0);
  });

  it('passes the database being down on as the database error it is, for the kernel to answer 503 (tests/integration/sdk-keys.test.ts)', async () => {
    const down = failing(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    const failed = await authenticateApiKey(request(key), down.services).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isDatabaseError(failed)).toBe(true);
    expect(down.state.calls).toBe(1);
    const unopened = {
      database: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
      sdkDirectory: new SdkDirectory(Date.now),
    };
    expect(
      isDatabaseError(
        await authenticateApiKey(request(key), unopened).then(
          () => null,
          (e: unknown) => e,
        ),
      ),
    ).toBe(true);
  });

  it('lets any other failure through, as the bug it is', async () => {
    const broken = failing(new TypeError('x is not a function'));
    await expect(authenticateApiKey(request(key), broken.services)).rejects.toBeInstanceOf(TypeError);
  });
});

describe("an instance's directory of keys", () => {
  const key = generateApiKey('production').key;
  /** A database that answers `row` for any key after `release()`d, counting the lookups. */
  const gated = () => {
    const state = { calls: 0, fail: null as Error | null };
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const engine: Engine = {
      get [ENGINE]() {
        return engine;
      },
      script: async () => {
        state.calls++;
        await gate;
        if (state.fail) throw state.fail;
        return [[{}], [row]];
      },
    } as unknown as Engine;
    return {
      state,
      db: () => Promise.resolve(engine),
      open: () => release(),
    };
  };

  it('asks the database once for all the requests that need one key while it looks', async () => {
    let now = 0;
    const directory = new SdkDirectory(() => now);
    const db = gated();
    const asked = Array.from({ length: 20 }, () => directory.key(db.db, key));
    db.open();
    expect(await Promise.all(asked)).toEqual(Array(20).fill(row));
    expect(db.state.calls).toBe(1);
    // Kept until the entry expires, then asked again, once.
    now = 3_999;
    await directory.key(db.db, key);
    expect(db.state.calls).toBe(1);
    now = 4_000;
    await Promise.all([directory.key(db.db, key), directory.key(db.db, key)]);
    expect(db.state.calls).toBe(2);
  });

  it('hands a failed lookup to everyone waiting, and keeps nothing of it', async () => {
    const directory = new SdkDirectory(() => 0);
    const db = gated();
    db.state.fail = new Error('connection reset');
    const asked = [directory.key(db.db, key), directory.key(db.db, key)];
    db.open();
    for (const result of await Promise.allSettled(asked)) expect(result).toMatchObject({ status: 'rejected' });
    expect(db.state.calls).toBe(1);
    db.state.fail = null;
    expect(await directory.key(db.db, key)).toEqual(row);
    expect(db.state.calls).toBe(2);
  });
});
