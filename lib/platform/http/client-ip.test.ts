import { describe, expect, it } from 'vitest';
import { clientIp, ipv6Groups, senderOf } from './client-ip';

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

describe('senderOf', () => {
  it('counts an IPv6 sender by its /64 network, and an IPv4 sender by its address', () => {
    expect(senderOf('203.0.113.5')).toBe('203.0.113.5');
    expect(senderOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(senderOf('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(senderOf('2001:0db8:0001:0002::')).toBe('2001:db8:1:2::/64');
    expect(senderOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(senderOf('unknown')).toBe('unknown');
  });
});

describe('ipv6Groups', () => {
  it.each([
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['::1', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['1::', [1, 0, 0, 0, 0, 0, 0, 0]],
    ['64:ff9b:1::a00:1', [0x64, 0xff9b, 1, 0, 0, 0, 0xa00, 1]],
    ['::ffff:127.0.0.1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['0:0:0:0:0:ffff:7f00:1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['fe80::1%eth0', [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
  ])('reads %s', (address, groups) => {
    expect(ipv6Groups(address)).toEqual(groups);
  });
});
