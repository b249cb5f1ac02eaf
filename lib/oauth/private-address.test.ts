import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './private-address';

// The address rules themselves are tested where they are used, in client-metadata.test.ts.

describe('isPrivateAddress', () => {
  it('judges an IPv4-mapped address by its IPv4 part, in every spelling', () => {
    for (const address of ['::ffff:10.0.0.1', '::ffff:a00:1', '0:0:0:0:0:ffff:a00:1', '0::FFFF:10.0.0.1'])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['::ffff:8.8.8.8', '::ffff:808:808', '0:0:0:0:0:ffff:808:808']) expect(isPrivateAddress(address), address).toBe(false);
  });
});
