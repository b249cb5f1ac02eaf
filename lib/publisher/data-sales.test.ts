import { describe, expect, it } from 'vitest';
import { groupDataSales } from './data-sales';

describe('groupDataSales', () => {
  it('makes one sale of a transaction’s postings (one per app), newest first, and totals each UTC month', () => {
    const { sales, months } = groupDataSales([
      { transaction_id: 't1', sold_at: '2026-11-20T10:00:00Z', app: 'Quizly', micro: '8000' },
      { transaction_id: 't1', sold_at: '2026-11-20T10:00:00Z', app: 'StoryForge AI', micro: 1600 },
      { transaction_id: 't2', sold_at: '2026-11-26T09:00:00Z', app: null, micro: '40' },
      { transaction_id: 't3', sold_at: '2026-10-31T23:59:59Z', app: 'Quizly', micro: '1' },
    ]);
    expect(sales.map((s) => [s.id, s.micro, s.apps.map((a) => a.app)])).toEqual([
      ['t2', 40, ['An archived app']],
      ['t1', 9600, ['Quizly', 'StoryForge AI']],
      ['t3', 1, ['Quizly']],
    ]);
    expect(months).toEqual([
      { month: '2026-11', sales: 2, micro: 9640 },
      { month: '2026-10', sales: 1, micro: 1 },
    ]);
    expect(groupDataSales([])).toEqual({ sales: [], months: [] });
  });
});
