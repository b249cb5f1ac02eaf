import { readFile } from 'node:fs/promises';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { expect, test } from '@playwright/test';
import { LISTINGS } from '../lib/data/buyers/schemas';
import { DEMO_BUYER_EMAIL } from '../lib/demo/data-market';
import { DEMO_PASSWORD } from '../lib/demo/seed';
import { accountToken } from './helpers/account-token';

/**
 * A data buyer from catalog to file, in Chromium, on the production build: the demo buyer opens
 * the AI-interaction rows, filters them to one app category (education: the demo publisher's
 * Quizly), looks at the sample, buys a standard license of five rows at the quoted price, waits
 * for the export, downloads the Parquet file through its signed link, and the test reads it back:
 * five rows, the listing's columns, every row from an education app. The demo publisher, whose
 * rows were sold, earned exactly their share of the price, to the micro-dollar, in
 * `GET /api/v1/me/earnings` (`data_revenue_micro`) and on the console's earnings page.
 */

const DEMO = { email: 'demo@example.com', password: DEMO_PASSWORD };

test('the demo buyer licenses AI-interaction rows of one category, downloads the Parquet file, and the publisher earns its share', async ({
  page,
  browser,
  request,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const base = new URL(baseURL!).origin;

  // The demo publisher's data revenue before, from the account API.
  const publisher = await (await browser.newContext()).newPage();
  const token = await accountToken(publisher, request, { base, clientName: 'Data e2e', scope: 'earnings:read', signIn: DEMO });
  const earned = async () =>
    ((await (await request.get('/api/v1/me/earnings', { headers: { authorization: `Bearer ${token}` } })).json()) as { data_revenue_micro: number })
      .data_revenue_micro;
  const before = await earned();
  const pricing = (await (await request.get('/api/v1/pricing')).json()) as {
    dataset_prices_usd: { per_ai_interaction_row: number };
    publisher_data_revenue_share: number;
  };

  // The buyer signs in and opens the listing.
  await page.goto('/signin?callbackUrl=%2Fdashboard%2Fdata');
  await page.getByLabel('Email').fill(DEMO_BUYER_EMAIL);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Data' })).toBeVisible();
  await page.getByRole('link', { name: 'Open the listing AI-interaction rows' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'AI-interaction rows' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Fields of AI-interaction rows' })).toContainText('prompt');
  // Today's sample, unfiltered: a few records, with no identifier (the same few for every filter today).
  const sample = page.getByRole('region', { name: 'Sample of AI-interaction rows' });
  await expect(sample.getByRole('row')).not.toHaveCount(0);
  await expect(sample).not.toContainText('record_id');

  // Filtered to education apps: what is available.
  await page.getByRole('checkbox', { name: /^education/ }).check();
  await page.getByRole('button', { name: 'Show what matches' }).click();
  await expect(page).toHaveURL(/categories=education/);
  const available = Number((await page.getByTestId('available-records').textContent())!.replace(/[^0-9]/g, ''));
  expect(available).toBeGreaterThanOrEqual(5);

  // A quote for five rows, then the purchase at that price.
  const priceMicro = Math.round(pricing.dataset_prices_usd.per_ai_interaction_row * 1e6) * 5;
  await page.getByLabel('How many rows').fill('5');
  await page.getByRole('button', { name: 'Get a quote' }).click();
  const price = `$${(priceMicro / 1e6).toFixed(2)}`;
  await expect(page.getByRole('heading', { name: `Standard license: ${price}` })).toBeVisible();
  await page.getByRole('button', { name: `Buy for ${price}` }).click();
  await expect(page).toHaveURL(/\/dashboard\/data\/licenses\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: 'AI-interaction rows: standard license' })).toBeVisible();

  // The export is written in the background; the page shows it done, then the file downloads.
  await expect(page.getByRole('button', { name: 'Download Parquet' })).toBeVisible({ timeout: 90_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Parquet' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^monetize-ai-interactions-[0-9a-f]{8}\.parquet$/);
  const bytes = await readFile((await download.path())!);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  expect(Number(parquetMetadata(file).num_rows)).toBe(5);
  expect(
    parquetMetadata(file)
      .schema.slice(1)
      .map((c) => c.name),
  ).toEqual(LISTINGS.ai_interactions.fields.map((f) => f.name));
  const rows = (await parquetReadObjects({ file })) as { app_categories: string[]; subject: string }[];
  expect(rows).toHaveLength(5);
  for (const row of rows) {
    expect(row.app_categories).toContain('education');
    expect(row.subject).toMatch(/^[0-9a-f]{32}$/);
  }

  // Then the same rows as JSONL, from the same page without a reload: a download leaves both buttons usable.
  await expect(page.getByRole('button', { name: 'Download JSONL' })).toBeEnabled();
  const [jsonl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download JSONL' }).click()]);
  expect(jsonl.suggestedFilename()).toMatch(/^monetize-ai-interactions-[0-9a-f]{8}\.jsonl$/);
  const lines = (await readFile((await jsonl.path())!, 'utf8')).trim().split('\n');
  expect(lines.map((l) => (JSON.parse(l) as { subject: string }).subject).sort()).toEqual(rows.map((r) => r.subject).sort());
  await expect(page.getByRole('button', { name: 'Download Parquet' })).toBeEnabled();

  // The publisher whose rows were sold earned its share, to the micro-dollar.
  const share = Math.round(priceMicro * pricing.publisher_data_revenue_share);
  expect((await earned()) - before).toBe(share);
  await publisher.goto('/dashboard/earnings');
  expect(Number(await publisher.getByTestId('earnings-data-revenue').locator('data').getAttribute('value'))).toBe(await earned());
  await expect(publisher.getByTestId('data-sale').first()).toContainText('Quizly');
});
