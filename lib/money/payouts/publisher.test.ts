import { describe, expect, it } from 'vitest';
import type { PayoutMethodRow } from '../../schemas/account';
import { micro, usdToMicro } from '../../platform/kit/micro';
import { payoutBlocker, refusalMessage } from './publisher';

const money = (available: number) => ({ ad_revenue_micro: micro(0), data_revenue_micro: micro(0), pending_micro: micro(0), available_micro: micro(available) });
const method = (ready = true): PayoutMethodRow => ({ rail: 'manual', masked: 'Dana · •••• 1234', ready, status_note: null, updated_at: new Date(0) });

describe('payoutBlocker', () => {
  it('offers the payout when the balance in whole cents reaches the minimum and a method is ready', () => {
    expect(payoutBlocker(money(50_000_000), method(), usdToMicro(50))).toBeNull();
  });

  it('says why not, in the order the database checks', () => {
    expect(payoutBlocker(money(90_000_000), null, usdToMicro(50))).toMatch(/add a payout method/);
    expect(payoutBlocker(money(90_000_000), method(false), usdToMicro(50))).toMatch(/not ready yet/);
    // $49.999999 is $49.99 in whole cents: one cent short.
    expect(payoutBlocker(money(49_999_999), method(), usdToMicro(50))).toBe('Your available balance is $49.99; the minimum payout is $50.00: $0.01 to go.');
    // Nothing to pay, even with no minimum.
    expect(payoutBlocker(money(9_999), method(), usdToMicro(0))).toMatch(/^Nothing is available to pay out yet/);
  });

  it('says how much is missing', () => {
    expect(refusalMessage({ reason: 'below_minimum', available_micro: micro(12_340_000), minimum_micro: micro(50_000_000) })).toBe(
      'Your available balance is $12.34; the minimum payout is $50.00: $37.66 to go.',
    );
  });
});
