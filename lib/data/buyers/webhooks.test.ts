import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unseal } from '../../platform/crypto';
import {
  MAX_ATTEMPTS,
  newWebhookSecret,
  noticePayload,
  postWebhook,
  PUBLIC_NETWORK,
  retryDelaySeconds,
  RETRY_DELAYS_S,
  sealWebhookSecret,
  secretHint,
  WEBHOOK_SECRET_PURPOSE,
  webhookHeaders,
  webhookSignature,
} from './webhooks';

describe('webhookSignature', () => {
  it('signs as the Standard Webhooks scheme does (the reference libraries’ test vector)', () => {
    // From the standard-webhooks libraries' tests: the same secret, id, timestamp and payload give this signature.
    expect(webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('changes with the id, the timestamp, the body and the secret', () => {
    const secret = newWebhookSecret();
    const base = webhookSignature(secret, 'a', 1, '{}');
    expect(webhookSignature(secret, 'b', 1, '{}')).not.toBe(base);
    expect(webhookSignature(secret, 'a', 2, '{}')).not.toBe(base);
    expect(webhookSignature(secret, 'a', 1, '{ }')).not.toBe(base);
    expect(webhookSignature(newWebhookSecret(), 'a', 1, '{}')).not.toBe(base);
  });

  it('goes out in the three headers, with the body’s type', () => {
    const secret = newWebhookSecret();
    expect(webhookHeaders(secret, 'delivery-1', 1_700_000_000, '{"x":1}')).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Monetize-Webhooks/1',
      'webhook-id': 'delivery-1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': webhookSignature(secret, 'delivery-1', 1_700_000_000, '{"x":1}'),
    });
  });
});

describe('the signing secret', () => {
  it('is whsec_ and 24 random bytes in base64, shown afterwards as a hint of its last four characters', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(newWebhookSecret()).not.toBe(secret);
    expect(secretHint(secret)).toBe(`whsec_…${secret.slice(-4)}`);
  });

  it('is sealed for its purpose only', () => {
    const key = randomBytes(32);
    const secret = newWebhookSecret();
    const { ciphertext, hint } = sealWebhookSecret(key, secret);
    expect(ciphertext).not.toContain(secret.slice(6));
    expect(hint).toBe(secretHint(secret));
    expect(unseal(key, ciphertext, WEBHOOK_SECRET_PURPOSE)).toBe(secret);
    expect(() => unseal(key, ciphertext, 'payout-details')).toThrow();
    expect(() => unseal(randomBytes(32), ciphertext, WEBHOOK_SECRET_PURPOSE)).toThrow();
  });
});

describe('retryDelaySeconds', () => {
  it('waits 1 min, 5 min, 30 min, 2 h, 6 h, 12 h and 24 h, and gives up after the eighth attempt', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7].map(retryDelaySeconds)).toEqual([60, 300, 1_800, 7_200, 21_600, 43_200, 86_400]);
    expect(retryDelaySeconds(8)).toBeNull();
    expect(retryDelaySeconds(9)).toBeNull();
    expect(retryDelaySeconds(0)).toBeNull();
    // About two days from the first attempt to the last.
    const hours = RETRY_DELAYS_S.reduce((a, b) => a + b, 0) / 3600;
    expect(hours).toBeGreaterThan(40);
    expect(hours).toBeLessThan(48);
  });
});

describe('noticePayload', () => {
  it('is the notice as JSON: its type, id, time, reason, licenses and record ids', () => {
    const body = noticePayload({
      id: 'n-1',
      reason: 'consent_withdrawn',
      created_at: new Date('2026-12-01T10:00:00.123Z'),
      license_ids: ['l-1'],
      record_ids: ['r-1', 'r-2'],
    });
    expect(JSON.parse(body)).toEqual({
      type: 'data.deletion_notice',
      id: 'n-1',
      created_at: '2026-12-01T10:00:00.123Z',
      reason: 'consent_withdrawn',
      license_ids: ['l-1'],
      record_ids: ['r-1', 'r-2'],
    });
  });
});

describe('postWebhook', () => {
  const send = (url: string) => postWebhook(url, {}, '{}', PUBLIC_NETWORK, 1_000);

  it('sends nothing to a URL that is not https, or to a private address written as one', async () => {
    expect(await send('http://hooks.example.com/x')).toEqual({ delivered: false, status: null, error: 'The webhook URL is not https: nothing was sent.' });
    for (const url of ['https://127.0.0.1:9/x', 'https://[::1]:9/x', 'https://169.254.169.254/latest/meta-data', 'https://10.0.0.1/x']) {
      expect(await send(url), url).toEqual({
        delivered: false,
        status: null,
        error: 'The webhook’s host is a private, loopback or link-local address: nothing was sent.',
      });
    }
    expect(await send('not a url')).toMatchObject({ delivered: false, error: expect.stringContaining('not a valid URL') });
  });

  it('refuses a name that resolves to a private address before connecting', async () => {
    expect(await send('https://localhost:9/x')).toEqual({
      delivered: false,
      status: null,
      error: 'The webhook’s host is a private, loopback or link-local address: nothing was sent.',
    });
  });
});
