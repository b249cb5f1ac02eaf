import { expect, test } from '@playwright/test';
import { DEMO_PASSWORD } from '../lib/demo/seed';

/**
 * Each side at home (issue 43), in Chromium at a phone's and a laptop's width: each demo account
 * signs in from the header, with no destination, and lands in the console of its role with only
 * its role's sections; the roles it lacks are offered as links, and a page of a role it lacks
 * says how to take it up, never showing another role's checklist. The header's Console goes to
 * the same home.
 */

const ACCOUNTS = [
  {
    email: 'demo@example.com',
    home: /\/dashboard$/,
    heading: 'Console',
    tabs: ['Overview', 'Earnings', 'Payouts', 'Connected apps'],
    offers: ['+ Advertise', '+ Buy data'],
  },
  { email: 'advertiser@example.com', home: /\/dashboard\/ads$/, heading: 'Advertising', tabs: ['Advertising'], offers: ['+ Publish an app', '+ Buy data'] },
  { email: 'buyer@example.com', home: /\/dashboard\/data$/, heading: 'Data', tabs: ['Data'], offers: ['+ Publish an app', '+ Advertise'] },
] as const;

for (const viewport of [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 800 },
]) {
  for (const account of ACCOUNTS) {
    test(`${account.email} signs in to its own console, with only its sections (${viewport.name})`, async ({ browser }) => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto('/pricing');
      await page.getByRole('link', { name: 'Sign in' }).click();
      await page.getByLabel('Email').fill(account.email);
      await page.getByLabel('Password').fill(DEMO_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page).toHaveURL(account.home);
      await expect(page.getByRole('heading', { level: 1 }).first()).toContainText(account.heading);

      const nav = page.getByRole('navigation', { name: 'Console' });
      const sections = nav.getByRole('list').first().getByRole('link');
      await expect(sections).toHaveText([...account.tabs]);
      await expect(nav.getByRole('list', { name: 'Take up another role' }).getByRole('link')).toHaveText([...account.offers]);

      // The header's Console goes to the same home.
      await page.goto('/pricing');
      await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Console' }).click();
      await expect(page).toHaveURL(account.home);

      // Nothing of another role's checklist on the publisher's overview, for an account that publishes nothing.
      if (account.email !== 'demo@example.com') {
        await page.goto('/dashboard');
        await expect(page.getByRole('heading', { level: 1, name: 'Publishing' })).toBeVisible();
        await expect(page.getByText(/first impression/i)).toHaveCount(0);
        await expect(page.getByRole('heading', { name: 'Create an app' })).toBeVisible();
        await page.goto('/dashboard/earnings');
        await expect(page.getByRole('heading', { name: 'This page is for publishers' })).toBeVisible();
        await expect(page.getByRole('link', { name: 'Add an app to earn from ads in it' })).toBeVisible();
      }
      await context.close();
    });
  }
}
