import { describe, expect, it } from 'vitest';
import type { SignedInUser } from '../../identity/auth/users';
import { acknowledgeForm, buyerProfileForm, buyerTopUpForm, downloadForm, licenseForm, licenseRequest, noticeReturnPath } from './forms';

/**
 * The data buyer console's forms, before anything reaches the database: what the quote and
 * confirm forms send, read back; and each form's refusal of bad input, with the fields as typed
 * (and, for the profile, each field's own error), never touching the database.
 */

const user: SignedInUser = { id: '00000000-0000-4000-8000-000000000001', email: 'buyer@example.com', name: null };
/** Services whose database must not be reached: bad input is refused before. */
const untouched = {
  database: () => Promise.reject(new Error('the database was reached')),
  exportSecret: () => Promise.reject(new Error('the secret was reached')),
  now: () => Date.parse('2026-12-01T00:00:00Z'),
  exports: { kick: () => {} },
};

function form(entries: [string, string][]): FormData {
  const f = new FormData();
  for (const [k, v] of entries) f.append(k, v);
  return f;
}

describe('licenseRequest', () => {
  it('reads the listing, the filter (categories and models repeated), the quantity and exclusive', () => {
    const read = licenseRequest(
      form([
        ['listing', 'ai_interactions'],
        ['categories', 'Notes'],
        ['categories', 'travel'],
        ['from', '2026-11-01'],
        ['to', ''],
        ['models', 'demo-1'],
        ['min_app_age_days', '30'],
        ['quantity', '1,000'],
        ['exclusive', 'on'],
        ['step', 'quote'],
      ]),
    );
    expect(read).toEqual({
      ok: true,
      request: {
        step: 'quote',
        listing: 'ai_interactions',
        filter: { categories: ['notes', 'travel'], from: '2026-11-01', to: null, models: ['demo-1'], min_app_age_days: 30 },
        quantity: 1000,
        quantityText: '1000',
        exclusive: true,
        maxPriceMicro: null,
      },
    });
  });

  it('is a quote unless it says buy, and buying carries the price quoted', () => {
    const quote = licenseRequest(
      form([
        ['listing', 'gb_bundles'],
        ['quantity', '0.5'],
      ]),
    );
    expect(quote.ok && quote.request).toMatchObject({ step: 'quote', quantity: 0.5, quantityText: '0.5', exclusive: false });
    const buy = licenseRequest(
      form([
        ['listing', 'gb_bundles'],
        ['quantity', '0.5'],
        ['step', 'buy'],
        ['max_price_micro', '20000000'],
      ]),
    );
    expect(buy.ok && buy.request).toMatchObject({ step: 'buy', maxPriceMicro: 20_000_000 });
  });

  it('refuses what it cannot buy, saying why', () => {
    const refusal = (entries: [string, string][]) => {
      const r = licenseRequest(form(entries));
      return r.ok ? null : r.error;
    };
    expect(
      refusal([
        ['listing', 'emails'],
        ['quantity', '10'],
      ]),
    ).toBe('There is no such listing.');
    expect(
      refusal([
        ['listing', 'ux_sessions'],
        ['quantity', '2.5'],
      ]),
    ).toBe('Give a whole number of records, such as 1000.');
    expect(
      refusal([
        ['listing', 'gb_bundles'],
        ['quantity', '0.0001'],
      ]),
    ).toBe('Give the size in GB, such as 2 or 0.5 (to the MB).');
    expect(
      refusal([
        ['listing', 'ai_interactions'],
        ['quantity', '0'],
      ]),
    ).toBe('Ask for more than nothing.');
    expect(
      refusal([
        ['listing', 'ai_interactions'],
        ['quantity', '10'],
        ['from', '2026-12-02'],
        ['to', '2026-12-01'],
      ]),
    ).toBe('The first day comes before the last.');
    expect(
      refusal([
        ['listing', 'ai_interactions'],
        ['quantity', '10'],
        ['step', 'buy'],
      ]),
    ).toBe('Ask for a quote first.');
    expect(
      refusal([
        ['listing', 'ai_interactions'],
        ['quantity', '10'],
        ['step', 'buy'],
        ['max_price_micro', '-5'],
      ]),
    ).toBe('Ask for a quote first.');
    expect(
      refusal([
        ['listing', 'ai_interactions'],
        ['quantity', '10'],
        ['step', 'steal'],
      ]),
    ).toBe('Ask for a quote first.');
    expect(licenseRequest({} as FormData)).toEqual({ ok: false, error: 'Send the form.' });
  });
});

describe('the forms refuse bad input before the database', () => {
  it('says each profile field’s own error, and keeps what was typed', async () => {
    const state = await buyerProfileForm(
      form([
        ['company', ' '],
        ['intended_use', 'AI'],
        ['billing_email', 'billing@buyers.test'],
        ['country', 'Germany'],
      ]),
      user,
      untouched,
    );
    expect(state.error).toBe('Check the 4 fields marked below.');
    expect(state.fieldErrors).toEqual({
      company: 'Give the company name.',
      intended_use: 'Say in a sentence or two what you will use the data for (at least 10 characters).',
      country: 'Give the country as its two-letter code, such as US or DE.',
      accept_terms: 'Accept the data license terms to buy data.',
    });
    expect(state.values).toMatchObject({ intended_use: 'AI', billing_email: 'billing@buyers.test', country: 'Germany' });
  });

  it('says a single error as it is', async () => {
    const state = await buyerProfileForm(
      form([
        ['company', 'Acme'],
        ['intended_use', 'Training a support assistant.'],
        ['billing_email', 'billing@buyers.test'],
        ['country', 'de'],
      ]),
      user,
      untouched,
    );
    expect(state.error).toBe('Accept the data license terms to buy data.');
    expect(state.fieldErrors).toEqual({ accept_terms: 'Accept the data license terms to buy data.' });
  });

  it('refuses a top-up that is not an amount, a license request it cannot read, a notice or a download it does not know', async () => {
    expect(await buyerTopUpForm(form([['amount_usd', 'lots']]), user, untouched)).toEqual({
      error: 'Give the amount in dollars, such as 250 or 99.50.',
      values: { amount_usd: 'lots' },
    });
    expect(
      await licenseForm(
        form([
          ['listing', 'ai_interactions'],
          ['quantity', 'ten'],
          ['exclusive', 'on'],
        ]),
        user,
        untouched,
      ),
    ).toEqual({
      error: 'Give a whole number of records, such as 1000.',
      values: { quantity: 'ten', exclusive: 'on' },
    });
    expect((await acknowledgeForm(form([['id', 'not-a-notice']]), user, untouched)).error).toBe('Unknown notice.');
    expect(
      (
        await downloadForm(
          form([
            ['license', 'not-a-license'],
            ['format', 'parquet'],
          ]),
          user,
          untouched,
        )
      ).error,
    ).toBe('Unknown license.');
    expect(
      (
        await downloadForm(
          form([
            ['license', user.id],
            ['format', 'csv'],
          ]),
          user,
          untouched,
        )
      ).error,
    ).toBe('Choose Parquet or JSONL.');
  });
});

describe('noticeReturnPath', () => {
  it('goes back to the Data page or a license’s page, and nowhere else', () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect(noticeReturnPath(form([['back', '/dashboard/data']]))).toBe('/dashboard/data');
    expect(noticeReturnPath(form([['back', `/dashboard/data/licenses/${id}`]]))).toBe(`/dashboard/data/licenses/${id}`);
    for (const back of ['https://evil.example/', '//evil.example', '/dashboard/data/licenses/x', `/dashboard/data/licenses/${id}?x=1`, '/dashboard']) {
      expect(noticeReturnPath(form([['back', back]]))).toBe('/dashboard/data');
    }
    expect(noticeReturnPath(form([]))).toBe('/dashboard/data');
  });
});
