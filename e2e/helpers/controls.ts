import type { Locator, Page } from '@playwright/test';

/**
 * The consoles' form controls as a person uses them (app/_components/ui/): a select opened and an
 * option clicked, a searchable list searched, a day picked on the calendar.
 */

/** Opens the select `control` names and clicks the option named `option`. */
export async function choose(page: Page, control: Locator, option: string | RegExp): Promise<void> {
  await control.click();
  await page.getByRole('option', { name: option, exact: typeof option === 'string' }).click();
}

/** Opens the searchable list `control` names, types `query`, and clicks the option named `option`. */
export async function search(page: Page, control: Locator, query: string, option: string | RegExp): Promise<void> {
  await control.click();
  await page.getByRole('combobox', { name: /^Search/ }).fill(query);
  await page.getByRole('option', { name: option, exact: typeof option === 'string' }).click();
}

/** Opens the calendar of `control`, goes to the month of `day` (YYYY-MM-DD), and clicks it. */
export async function pickDay(page: Page, control: Locator, day: string): Promise<void> {
  await control.click();
  const cell = page.locator(`[data-day="${day}"] button`);
  for (let i = 0; i < 36 && !(await cell.isVisible()); i++) {
    const shown = (await page.locator('[data-day]').first().getAttribute('data-day')) ?? day;
    await page.getByRole('button', { name: day < shown ? 'Go to the Previous Month' : 'Go to the Next Month' }).click();
  }
  await cell.click();
}
