import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, deliveryLine, type WebhookDelivery } from './webhook-settings';

describe('checkWebhookUrl', () => {
  it('takes an https URL on a public host, in its normal form', () => {
    expect(checkWebhookUrl('  https://Hooks.Example.com/deletions?x=1 ')).toEqual({ ok: true, url: 'https://hooks.example.com/deletions?x=1' });
    expect(checkWebhookUrl('https://8.8.8.8/hook')).toEqual({ ok: true, url: 'https://8.8.8.8/hook' });
    expect(checkWebhookUrl('https://hooks.example.com:8443')).toEqual({ ok: true, url: 'https://hooks.example.com:8443/' });
  });

  it('refuses anything else, saying why', () => {
    const error = (url: string) => {
      const checked = checkWebhookUrl(url);
      return checked.ok ? null : checked.error;
    };
    expect(error('')).toBe('Give the URL of your webhook.');
    expect(error('hooks.example.com/x')).toMatch(/not a URL/);
    expect(error('http://hooks.example.com/x')).toBe('A webhook URL must use https.');
    expect(error('ftp://hooks.example.com/x')).toBe('A webhook URL must use https.');
    expect(error('https://a:b@hooks.example.com/x')).toMatch(/user name or password/);
    expect(error('https://hooks.example.com/x#frag')).toMatch(/fragment/);
    expect(error(`https://hooks.example.com/${'x'.repeat(480)}`)).toMatch(/at most 500/);
    for (const url of [
      'https://127.0.0.1/x',
      'https://0x7f.1/x',
      'https://2130706433/x',
      'https://[::1]/x',
      'https://[::ffff:192.168.0.1]/x',
      'https://169.254.169.254/x',
      'https://192.168.1.10/x',
      'https://localhost/x',
      'https://LOCALHOST./x',
      'https://api.localhost/x',
      'https://printer.local/x',
      'https://db.internal/x',
      'https://router.home.arpa/x',
      'https://intranet/x',
    ]) {
      expect(error(url), url).toBe('A webhook URL must name a public host: not a private, loopback or local address.');
    }
  });
});

describe('deliveryLine', () => {
  const base: WebhookDelivery = {
    id: 'd',
    notice_id: 'n',
    status: 'pending',
    attempts: 0,
    next_attempt_at: new Date('2026-12-01T10:05:00Z'),
    last_attempt_at: null,
    last_status: null,
    last_error: null,
    delivered_at: null,
    created_at: new Date('2026-12-01T10:00:00Z'),
  };

  it('says when it was delivered, or why not and what comes next', () => {
    expect(deliveryLine(base)).toBe('Waiting to be sent to your webhook.');
    expect(deliveryLine({ ...base, attempts: 2, last_status: 500, last_error: 'Answered HTTP 500.' })).toBe(
      'Not delivered yet (attempt 2 of 8): Answered HTTP 500. Next attempt Dec 1, 2026, 10:05 AM UTC.',
    );
    expect(deliveryLine({ ...base, status: 'delivered', attempts: 1, delivered_at: new Date('2026-12-01T10:01:00Z') })).toBe(
      'Delivered to your webhook on Dec 1, 2026, 10:01 AM UTC.',
    );
    expect(deliveryLine({ ...base, status: 'delivered', attempts: 3, delivered_at: new Date('2026-12-01T10:01:00Z') })).toBe(
      'Delivered to your webhook on Dec 1, 2026, 10:01 AM UTC, after 3 attempts.',
    );
    expect(deliveryLine({ ...base, status: 'failed', attempts: 8, last_error: 'No answer within 5 seconds.' })).toBe(
      'Not delivered to your webhook after 8 attempts: No answer within 5 seconds. The notice stands here all the same.',
    );
  });
});
