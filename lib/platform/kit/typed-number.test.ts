import { describe, expect, it } from 'vitest';
import { campaignInput } from '../../ads/advertisers/schemas';
import { topUpInput } from '../../money/funds';
import { quantityInput } from '../../data/buyers/schemas';
import { readTypedNumber } from './typed-number';

describe('a number as typed in a form', () => {
  it.each([
    ['7500', '7500', ''],
    ['7,500', '7500', ''],
    ['75.00', '75', '00'],
    ['7,500.00', '7500', '00'],
    ['1,234,567.5', '1234567', '5'],
    ['0.5', '0', '5'],
  ])('reads %s', (typed, whole, decimals) => {
    expect(readTypedNumber(typed)).toEqual({ ok: true, whole, decimals });
  });

  it.each(['75,00', '1.234,56', '0,5', '7,5000', '1,2,3', '75,', ',75', '1,000,00'])('refuses %s: a comma where a point belongs', (typed) => {
    expect(readTypedNumber(typed)).toEqual({ ok: false, reason: 'comma' });
  });

  it.each(['', 'lots', '7 500', '1.2.3', '.5', '5.', '-5', '1e3', '0x10', '１２'])('refuses %j as unreadable', (typed) => {
    expect(readTypedNumber(typed)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('money typed in the forms (top-ups of advertisers and data buyers, budgets)', () => {
  const topUp = (amount: string) => topUpInput.safeParse({ amount_usd: amount });

  it.each([
    ['7,500', 7_500_000_000],
    ['7500', 7_500_000_000],
    ['75.00', 75_000_000],
    ['7,500.00', 7_500_000_000],
    ['$1,000.50', 1_000_500_000],
    [' 99.5 ', 99_500_000],
  ])('reads %s as it is meant', (typed, micro) => {
    expect(topUp(typed)).toMatchObject({ success: true, data: { amount_usd: micro } });
  });

  it.each(['75,00', '1.234,56', '7,5'])('refuses %s, saying how to write it, never reading it as 7,500 dollars', (typed) => {
    const parsed = topUp(typed);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      'Give the amount with a point before the cents, such as 75.00: a comma only separates thousands, as in 7,500.',
    );
  });

  it.each(['lots', '1.234', '1234567890', '-5'])('refuses %s as not an amount', (typed) => {
    expect(topUp(typed).error?.issues[0]?.message).toBe('Give the amount in dollars, such as 250 or 99.50.');
  });

  it("reads a campaign's budget and daily cap the same way", () => {
    const campaign = (lifetime: string, daily: string) =>
      campaignInput.safeParse({
        name: 'Spring',
        starts_on: '2030-01-01',
        ends_on: '',
        lifetime_budget_usd: lifetime,
        daily_cap_usd: daily,
        formats: ['sponsored_card'],
        frequency_cap: '3',
        landing_url: 'https://example.com/',
      });
    const budget = campaign('1,000.00', '75,00');
    expect(budget.success).toBe(false);
    expect(budget.error?.issues.map((i) => [i.path.join('.'), i.message])).toContainEqual([
      'daily_cap_usd',
      'Give the daily cap with a point before the cents, such as 75.00: a comma only separates thousands, as in 7,500.',
    ]);
    expect(campaign('1.000,00', '').error?.issues.map((i) => i.path.join('.'))).toContain('lifetime_budget_usd');
  });
});

describe('quantities typed in the data buyers’ license form', () => {
  it('reads 1,000 records and 0.5 GB, and refuses 1,5 GB rather than reading 15', () => {
    expect(quantityInput('ai_interactions').safeParse('1,000')).toMatchObject({ success: true, data: 1000 });
    expect(quantityInput('gb_bundles').safeParse('0.5')).toMatchObject({ success: true, data: 0.5 });
    const gb = quantityInput('gb_bundles').safeParse('1,5');
    expect(gb.success).toBe(false);
    expect(gb.error?.issues[0]?.message).toMatch(/with a point before the decimals/);
    expect(quantityInput('ai_interactions').safeParse('1.5').error?.issues[0]?.message).toBe('Give a whole number of records, such as 1000.');
  });
});
