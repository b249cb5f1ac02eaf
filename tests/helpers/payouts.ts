import type { Queryable } from '../../lib/platform/db/engine';

/**
 * Gives `user` `micro` of final earnings the way the service makes them (content/docs/payouts.md):
 * an adjustment in their favour dated in the month after the last closed one, that month's days
 * posted, then the month closed. Each call closes one more month of the database it runs on, so
 * use it on a suite's own copy. Runs in `q`, as the service. Answers how many months it closed
 * (1, unless another run closed the month first).
 */
export async function giveFinalEarnings(q: Queryable, user: string, micro: number): Promise<number> {
  const [{ month } = { month: '' }] = await q.query<{ month: string }>(
    "select (coalesce(max(month) + interval '1 month', date_trunc('month', now())))::date::text as month from public.ledger_month_closes",
  );
  await q.query(
    `select public.ledger_post('adjustment', 'test-earned:' || $1, $3::date + 9, 'test earnings',
       jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher', $1::uuid), 'amount_micro', $2::bigint),
                         jsonb_build_object('account_id', public.ledger_account('ad_sales', null), 'amount_micro', -$2::bigint)))`,
    [user, micro, month],
  );
  await q.query("select public.ledger_post_ad_revenue(100000, public.ledger_month_final_at($1::date) + interval '1 day')", [month]);
  const [{ closed } = { closed: 0 }] = await q.query<{ closed: number }>(
    'select public.ledger_close_months(public.ledger_month_final_at($1::date)) as closed',
    [month],
  );
  return closed;
}
