import { expect, type Page } from '@playwright/test';
import { totpCode } from '../../lib/identity/auth/staff-totp';
import { DEMO_OPERATOR_EMAIL, DEMO_OPERATOR_TOTP_SECRET, DEMO_PASSWORD } from '../../lib/demo/seed';

/**
 * Signs the demo operator in to /ops with a password and a TOTP code. A code is good once: when
 * another test just used this step's, it waits for the next step and tries again.
 */
export async function opsSignIn(page: Page): Promise<void> {
  await page.goto('/ops/signin');
  for (let attempt = 0; attempt < 2; attempt++) {
    await page.getByLabel('Email').fill(DEMO_OPERATOR_EMAIL);
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByLabel('Authentication code').fill(totpCode(DEMO_OPERATOR_TOTP_SECRET, new Date()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/ops(\/signin\?.*)?$/);
    if (!page.url().includes('/signin')) break;
    await page.waitForTimeout(31_000 - (Date.now() % 30_000));
  }
  await expect(page.getByRole('heading', { level: 1, name: 'Operator console' })).toBeVisible();
}
