import { describe, expect, it } from 'vitest';
import { ipv6Groups, isPrivateAddress } from './private-address';

// The address rules themselves are tested where they are used, in client-metadata.test.ts.

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

describe('isPrivateAddress', () => {
  it('judges an IPv4-mapped address by its IPv4 part, in every spelling', () => {
    for (const address of ['::ffff:10.0.0.1', '::ffff:a00:1', '0:0:0:0:0:ffff:a00:1', '0::FFFF:10.0.0.1']) expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['::ffff:8.8.8.8', '::ffff:808:808', '0:0:0:0:0:ffff:808:808']) expect(isPrivateAddress(address), address).toBe(false);
  });
});
