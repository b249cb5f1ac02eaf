import { writeFileSync } from 'node:fs';
import { chromium, expect, test } from '@playwright/test';
import { chromiumPath } from '../scripts/chromium.mjs';

/**
 * Lighthouse (the same audits as Chrome's DevTools, desktop settings) on the pages a new visitor
 * lands on: each of performance, accessibility, best practices and SEO must score 95 or more.
 * Lighthouse drives its own Chromium over the DevTools protocol; its reports are written beside
 * the test's other output. A score is the median of three runs, as Lighthouse's own guide to
 * variability advises: on a busy two-core machine one run's blocking time swings by a third.
 */

const PAGES = ['/', '/docs', '/pricing', '/publishers'];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const DEBUGGING_PORT = 9333;
const RUNS = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test('the home page, docs, pricing and /publishers score 95 or more in every Lighthouse category', async ({ baseURL }, testInfo) => {
  test.setTimeout(480_000);
  const { default: lighthouse, desktopConfig } = await import('lighthouse');
  const browser = await chromium.launch({
    executablePath: chromiumPath() ?? undefined,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', `--remote-debugging-port=${DEBUGGING_PORT}`],
  });
  const scores: Record<string, Record<string, number>> = {};
  try {
    for (const path of PAGES) {
      const runs: Record<string, number>[] = [];
      for (let run = 0; run < RUNS; run++) {
        const result = await lighthouse(
          new URL(path, baseURL).href,
          { port: DEBUGGING_PORT, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] },
          desktopConfig,
        );
        expect(result, path).toBeTruthy();
        writeFileSync(testInfo.outputPath(`lighthouse${path === '/' ? '-home' : path.replace(/\//g, '-')}-${run + 1}.json`), result!.report as string);
        runs.push(Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((result!.lhr.categories[c]?.score ?? 0) * 100)])));
      }
      scores[path] = Object.fromEntries(CATEGORIES.map((c) => [c, median(runs.map((r) => r[c]!))]));
    }
  } finally {
    await browser.close();
  }
  testInfo.annotations.push({ type: 'lighthouse', description: JSON.stringify(scores) });
  console.log('Lighthouse scores:', JSON.stringify(scores));
  for (const [path, byCategory] of Object.entries(scores))
    for (const [c, score] of Object.entries(byCategory)) expect(score, `${path} ${c}`).toBeGreaterThanOrEqual(95);
});
