import { describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, describeApiKey, generateApiKey, hashApiKey, keyTag, maskApiKey, SERVER_KEY_PATTERN } from './api-key';

describe('SDK API keys', () => {
  it('are tagged by environment, random, and described by prefix, last 4 and hash', () => {
    const live = generateApiKey('production');
    const test = generateApiKey('development');
    expect(live.key).toMatch(/^pk_live_[A-Za-z0-9]{32}$/);
    expect(test.key).toMatch(/^pk_test_[A-Za-z0-9]{32}$/);
    expect(generateApiKey('production').key).not.toBe(live.key);
    expect(live.prefix).toBe(live.key.slice(0, 16));
    expect(live.last4).toBe(live.key.slice(-4));
    expect(live.hash).toBe(hashApiKey(live.key));
    expect(describeApiKey(live.key)).toEqual({ prefix: live.prefix, last4: live.last4, hash: live.hash });
  });

  it('have one shape, which every generated key has and nothing else', () => {
    for (const environment of ['production', 'development'] as const) {
      for (let i = 0; i < 50; i++) expect(generateApiKey(environment).key).toMatch(API_KEY_PATTERN);
    }
    const body = 'A'.repeat(32);
    expect(API_KEY_PATTERN.test(keyTag('production') + body)).toBe(true);
    for (const bad of [
      '',
      'pk_live_',
      `pk_live_${'A'.repeat(31)}`,
      `pk_live_${'A'.repeat(33)}`,
      `pk_prod_${body}`,
      `PK_LIVE_${body}`,
      `pk_live_${'A'.repeat(31)}-`,
      ` pk_live_${body}`,
      `pk_live_${body}\n`,
      'svc_sandbox',
    ]) {
      expect(API_KEY_PATTERN.test(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('server keys are tagged sk_, match only the server shape, and publishable keys only theirs', () => {
    const live = generateApiKey('production', 'server');
    const test = generateApiKey('development', 'server');
    expect(live.key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(test.key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(live.prefix).toBe(live.key.slice(0, 16));
    for (let i = 0; i < 50; i++) {
      const server = generateApiKey(i % 2 ? 'production' : 'development', 'server').key;
      const publishable = generateApiKey(i % 2 ? 'production' : 'development').key;
      expect(SERVER_KEY_PATTERN.test(server) && !API_KEY_PATTERN.test(server), server).toBe(true);
      expect(API_KEY_PATTERN.test(publishable) && !SERVER_KEY_PATTERN.test(publishable), publishable).toBe(true);
    }
    const body = 'A'.repeat(32);
    for (const bad of [
      'sk_live_',
      `sk_live_${'A'.repeat(31)}`,
      `sk_prod_${body}`,
      `SK_LIVE_${body}`,
      ` sk_live_${body}`,
      `sk_live_${body}\n`,
      `pk_live_${body}`,
    ]) {
      expect(SERVER_KEY_PATTERN.test(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('are masked to the prefix and the last 4 characters only', () => {
    const k = generateApiKey('production');
    const masked = maskApiKey(k.prefix, k.last4);
    expect(masked).toBe(`${k.prefix}…${k.last4}`);
    expect(masked).not.toContain(k.key.slice(16, -4));
  });
});
