import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unseal } from '../../platform/crypto';
import { manualDetails, maskDetails, PAYOUT_DETAILS_PURPOSE, sealDetails } from './details';

describe('manual payout details', () => {
  it('takes an IBAN or account number written with spaces and hyphens, and keeps it in one form', () => {
    const d = manualDetails.parse({ account_holder: '  Dana Demo ', account: 'de89 3704-0044 0532 0130 00' });
    expect(d).toEqual({ account_holder: 'Dana Demo', account: 'DE89370400440532013000' });
    expect(manualDetails.parse({ account_holder: 'Sam', account: '12345678', routing: '110000000' }).routing).toBe('110000000');
    expect(manualDetails.parse({ account_holder: 'Sam', account: '12345678', routing: '' }).routing).toBeUndefined();
  });

  it.each([
    ['no holder', { account_holder: ' ', account: '12345678' }],
    ['a holder too long', { account_holder: 'x'.repeat(101), account: '12345678' }],
    ['an account too short', { account_holder: 'Sam', account: '12345' }],
    ['an account too long', { account_holder: 'Sam', account: '1'.repeat(35) }],
    ['markup in the account', { account_holder: 'Sam', account: '<script>' }],
    ['a routing code with symbols', { account_holder: 'Sam', account: '12345678', routing: '1;2' }],
  ])('refuses %s', (_name, input) => {
    expect(manualDetails.safeParse(input).success).toBe(false);
  });

  it('masks all but the last four of the account, and seals the rest', () => {
    const d = manualDetails.parse({ account_holder: 'Dana Demo', account: 'DE89370400440532013000' });
    expect(maskDetails(d)).toBe('Dana Demo · •••• 3000');
    const key = randomBytes(32);
    const { ciphertext, masked } = sealDetails(key, d);
    expect(masked).toBe('Dana Demo · •••• 3000');
    expect(ciphertext).not.toContain('3704');
    expect(JSON.parse(unseal(key, ciphertext, PAYOUT_DETAILS_PURPOSE))).toEqual(d);
  });
});
