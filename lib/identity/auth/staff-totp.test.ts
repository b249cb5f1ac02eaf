import { describe, expect, it } from 'vitest';
import { totpCode, totpStep } from './staff-totp';

// RFC 6238 Appendix B: the SHA-1 secret "12345678901234567890" (base32 below), 8-digit codes;
// their last six digits are the 6-digit codes of the same moments.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('staff TOTP', () => {
  it.each([
    [59, '287082'],
    [1111111109, '081804'],
    [1234567890, '005924'],
    [2000000000, '279037'],
  ])('matches RFC 6238 at %i s', (seconds, code) => {
    expect(totpCode(RFC_SECRET, new Date(seconds * 1000))).toBe(code);
    expect(totpStep(RFC_SECRET, code, new Date(seconds * 1000))).toBe(Math.floor(seconds / 30));
  });

  it('accepts the code of one step either side, and names its step, and nothing further', () => {
    const now = new Date(1_700_000_000_000);
    const step = Math.floor(now.getTime() / 30_000);
    expect(totpStep(RFC_SECRET, totpCode(RFC_SECRET, new Date(now.getTime() - 30_000)), now)).toBe(step - 1);
    expect(totpStep(RFC_SECRET, totpCode(RFC_SECRET, new Date(now.getTime() + 30_000)), now)).toBe(step + 1);
    expect(totpStep(RFC_SECRET, totpCode(RFC_SECRET, new Date(now.getTime() - 90_000)), now)).toBeNull();
  });

  it.each(['', '12345', '1234567', 'abcdef', '12 456'])('refuses %j', (code) => {
    expect(totpStep(RFC_SECRET, code, new Date())).toBeNull();
  });
});
