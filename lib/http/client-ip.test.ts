import { describe, expect, it } from 'vitest';
import { clientIp } from './client-ip';

describe('client IP', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    // The client sent its own header; our platform appended the real peer last.
    ['1.2.3.4, 203.0.113.9', '203.0.113.9'],
    ['1.2.3.4,5.6.7.8 ,  203.0.113.9', '203.0.113.9'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['2001:DB8::1', '2001:db8::1'],
  ])('X-Forwarded-For %j is %s', (header, ip) => {
    expect(clientIp(new Headers({ 'x-forwarded-for': header }))).toBe(ip);
  });

  it('does not trust X-Real-IP or other client headers', () => {
    expect(clientIp(new Headers({ 'x-real-ip': '9.9.9.9' }))).toBe('unknown');
  });
});
