import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { checkedLookup, isPrivateAddress, publicAddressesOnly, refusedLiteral } from './private-address';

// The address rules themselves are tested where they were first used, in lib/identity/oauth/client-metadata.test.ts.

describe('isPrivateAddress', () => {
  it('judges an IPv4-mapped address by its IPv4 part, in every spelling', () => {
    for (const address of ['::ffff:10.0.0.1', '::ffff:a00:1', '0:0:0:0:0:ffff:a00:1', '0::FFFF:10.0.0.1'])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['::ffff:8.8.8.8', '::ffff:808:808', '0:0:0:0:0:ffff:808:808']) expect(isPrivateAddress(address), address).toBe(false);
  });
});

/** What a checked lookup of `host` answers, as Node asks for it when connecting (`all: true`). */
function lookUp(host: string, allowed: (a: string) => boolean): Promise<{ error: NodeJS.ErrnoException | null; addresses: LookupAddress[] }> {
  return new Promise((resolve) => {
    checkedLookup(allowed)(host, { all: true }, (error: NodeJS.ErrnoException | null, addresses: unknown) =>
      resolve({ error, addresses: (addresses as LookupAddress[]) || [] }),
    );
  });
}

describe('checkedLookup', () => {
  it('refuses a name that resolves to a private address, before any connection', async () => {
    const { error } = await lookUp('localhost', publicAddressesOnly);
    expect(error?.code).toBe('EPRIVATE');
  });

  it('hands on the addresses it checked when they are allowed', async () => {
    const { error, addresses } = await lookUp('localhost', () => true);
    expect(error).toBeNull();
    expect(addresses.length).toBeGreaterThan(0);
    for (const a of addresses) expect(isPrivateAddress(a.address)).toBe(true);
  });
});

describe('refusedLiteral', () => {
  it('refuses a host written as a private IP address, in either family, and leaves names to the lookup', () => {
    expect(refusedLiteral('127.0.0.1', publicAddressesOnly)).toBe(true);
    expect(refusedLiteral('[::1]', publicAddressesOnly)).toBe(true);
    expect(refusedLiteral('[fd00::1]', publicAddressesOnly)).toBe(true);
    expect(refusedLiteral('8.8.8.8', publicAddressesOnly)).toBe(false);
    expect(refusedLiteral('hooks.example.com', publicAddressesOnly)).toBe(false);
    expect(refusedLiteral('127.0.0.1', () => true)).toBe(false);
  });
});
