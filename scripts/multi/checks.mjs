// What the database must say after the traffic, against what the browsers were told.
// Every check answers `{ name, ok, figures }`; `figures` is what the report prints.

// Money is in micro-dollars, as the database keeps it (bigint columns arrive as strings).
const micro = (value) => Number(value);
const usd = (microUsd) => `$${(microUsd / 1_000_000).toFixed(6)}`;
const cents = (microUsd) => `$${(microUsd / 1_000_000).toFixed(2)}`;

const TOTALS = ['ad_requests', 'fills', 'impressions', 'clicks', 'invalid_events', 'revenue_micro'];

/** The traffic placements' totals and today's daily figures, and the database's clock: what the roll-up adds to. */
export async function snapshot(sql, placementIds) {
  const [{ at, today }] = await sql`select now() as at, (now() at time zone 'UTC')::date::text as today`;
  const placements =
    await sql`select id, ad_requests, fills, impressions, clicks, invalid_events, revenue_micro from public.placements where id = any(${placementIds})`;
  const daily = await sql`
    select placement_id as id, ad_requests, fills, impressions, clicks, invalid_events, revenue_micro
    from public.daily_stats where placement_id = any(${placementIds}) and day = ${today}::date`;
  return { at, today, placements: byId(placements), daily: byId(daily) };
}

function byId(rows) {
  return Object.fromEntries(rows.map((r) => [r.id, Object.fromEntries(TOTALS.map((k) => [k, Number(r[k])]))]));
}

/** Waits until the roll-up has taken every count (ad_traffic_counts empty twice in a row); answers the seconds it took. */
export async function waitForRollUp(sql, timeoutMs) {
  const started = Date.now();
  let emptyInARow = 0;
  while (Date.now() - started < timeoutMs) {
    const [{ n }] = await sql`select count(*)::int as n from public.ad_traffic_counts`;
    emptyInARow = n === 0 ? emptyInARow + 1 : 0;
    if (emptyInARow >= 2) return (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  throw new Error(`ad_traffic_counts still not empty after ${timeoutMs / 1000} s: is the roll-up running?`);
}

/**
 * The first answer that settled an event (`recorded`, `duplicate` or `invalid`) on an attempt
 * that was not a deliberate resend, and whether an earlier attempt failed without an answer
 * (then the event may have been recorded by a server that died before it could say so).
 */
function firstAnswer(e) {
  const answer = e.answers.find((a) => !a.deliberate);
  const failedBefore = e.failures.some((f) => !f.deliberate && (!answer || f.attempt < answer.attempt));
  return { answer, failedBefore };
}

/** Every check on the database, after the roll-up. */
export async function verify(sql, { before, placementIds, ledger, campaigns }) {
  const checks = [];
  const decisions = await sql`
    select id::text, placement_id::text, campaign_id::text, creative_id, impression_event_id, click_event_id,
           cost_micro, revenue_micro, impressed_at
    from public.ad_decisions where placement_id = any(${placementIds}) and created_at >= ${before.at}`;
  const decisionById = new Map(decisions.map((d) => [d.id, d]));

  // 1. Every event answered `recorded` is on its decision, once; nothing is billed twice.
  const billed = new Map(); // event id → decision id
  for (const d of decisions) {
    if (d.impression_event_id) billed.set(d.impression_event_id, d.id);
    if (d.click_event_id) billed.set(d.click_event_id, d.id);
  }
  const [{ twice }] = await sql`
    select count(*)::int as twice from (
      select e from (select impression_event_id as e from public.ad_decisions where impression_event_id is not null
                     union all select click_event_id from public.ad_decisions where click_event_id is not null) x
      group by e having count(*) > 1) y`;
  let recorded = 0;
  let recordedTwice = 0;
  let missing = 0;
  let lostThenFound = 0;
  let lostInvalid = 0;
  const unexplained = [];
  for (const e of ledger.events.values()) {
    const recordedAnswers = e.answers.filter((a) => a.status === 'recorded').length;
    const column = e.type === 'impression' ? 'impression_event_id' : 'click_event_id';
    const inDb = billed.get(e.id) === e.decision && decisionById.get(e.decision)?.[column] === e.id;
    if (recordedAnswers > 0) {
      recorded++;
      if (recordedAnswers > 1) recordedTwice++;
      if (!inDb) missing++;
    } else if (billed.has(e.id)) {
      // Billed, yet never answered `recorded`: only right if that answer was lost with a dead
      // instance (an attempt failed, and the retry found it `duplicate`).
      const { answer, failedBefore } = firstAnswer(e);
      if (failedBefore && (answer === undefined || answer.status === 'duplicate')) lostThenFound++;
      else unexplained.push(e.id);
    } else {
      const { answer, failedBefore } = firstAnswer(e);
      if (failedBefore && answer?.status === 'duplicate') lostInvalid++;
    }
  }
  const notOurs = [...billed.keys()].filter((id) => !ledger.events.has(id));
  checks.push({
    name: 'Every event answered `recorded` is in the database once',
    ok: missing === 0 && recordedTwice === 0 && twice === 0 && unexplained.length === 0 && notOurs.length === 0,
    figures: [
      `${recorded} events answered \`recorded\`; ${recorded - missing} of them on their decision (${missing} missing)`,
      `${billed.size} billed in the database: those, plus ${lostThenFound} recorded by an instance that died before answering (found \`duplicate\` on retry); ${unexplained.length} unexplained, ${notOurs.length} not sent by the run`,
      `event ids billed twice in ad_decisions: ${twice}; events answered \`recorded\` twice: ${recordedTwice}`,
    ],
    details: { unexplained: unexplained.slice(0, 20), notOurs: notOurs.slice(0, 20) },
  });

  // 2. Retries change nothing.
  const deliberate = [...ledger.events.values()].flatMap((e) => e.answers.filter((a) => a.deliberate));
  const deliberateOther = deliberate.filter((a) => a.status !== 'duplicate');
  const elsewhere = [...ledger.events.values()].filter((e) => {
    const first = e.answers.find((a) => !a.deliberate);
    return first && e.answers.some((a) => a.deliberate && a.instance !== first.instance);
  }).length;
  const afterFailure = [...ledger.events.values()].flatMap((e) => e.answers.filter((a) => !a.deliberate && a.attempt > 0));
  const afterFailureByStatus = countBy(afterFailure, (a) => a.status);
  checks.push({
    name: 'Retried events are answered `duplicate`',
    ok: deliberateOther.length === 0 && deliberate.length > 0,
    figures: [
      `${deliberate.length} deliberate resends of answered events: ${deliberate.length - deliberateOther.length} \`duplicate\`${deliberateOther.length ? `, ${deliberateOther.length} not: ${JSON.stringify(countBy(deliberateOther, (a) => a.status))}` : ''}; ${elsewhere} of them answered by another instance than the first answer`,
      `${afterFailure.length} events answered on a retry after a failed attempt: ${formatCounts(afterFailureByStatus)}`,
    ],
  });

  // 3. The roll-up added exactly what the decisions hold.
  const after = await snapshot(sql, placementIds);
  const invalidAnswered = [...ledger.events.values()].filter((e) => {
    const { answer } = firstAnswer(e);
    return answer?.status === 'invalid' && answer.reason !== 'unknown_decision';
  }).length;
  const expected = { ad_requests: 0, fills: 0, impressions: 0, clicks: 0, invalid_events: invalidAnswered + lostInvalid, revenue_micro: 0 };
  const expectedBy = {};
  for (const d of decisions) {
    const x = (expectedBy[d.placement_id] ??= { ad_requests: 0, fills: 0, impressions: 0, clicks: 0, revenue_micro: 0 });
    x.ad_requests++;
    if (d.creative_id) x.fills++;
    if (d.impression_event_id) x.impressions++;
    if (d.click_event_id) x.clicks++;
    x.revenue_micro += micro(d.revenue_micro);
  }
  for (const x of Object.values(expectedBy)) for (const k of Object.keys(x)) expected[k] += x[k];
  const delta = (from, to) => Object.fromEntries(TOTALS.map((k) => [k, placementIds.reduce((s, id) => s + ((to[id]?.[k] ?? 0) - (from[id]?.[k] ?? 0)), 0)]));
  const placementsDelta = delta(before.placements, after.placements);
  const dailyDelta = delta(before.daily, after.daily);
  const perPlacementOk = placementIds.every((id) =>
    ['ad_requests', 'fills', 'impressions', 'clicks', 'revenue_micro'].every(
      (k) => (after.placements[id]?.[k] ?? 0) - (before.placements[id]?.[k] ?? 0) === (expectedBy[id]?.[k] ?? 0),
    ),
  );
  const sameAs = (d) => TOTALS.every((k) => d[k] === expected[k]);
  checks.push({
    name: 'The roll-up added what the decisions hold (placements, daily_stats)',
    ok: perPlacementOk && sameAs(placementsDelta) && sameAs(dailyDelta) && before.today === after.today,
    figures: [
      `decisions: ${expected.ad_requests} ad requests, ${expected.fills} fills, ${expected.impressions} impressions, ${expected.clicks} clicks, ${usd(expected.revenue_micro)} earned; ${expected.invalid_events} invalid events (${invalidAnswered} answered \`invalid\`, ${lostInvalid} whose answer was lost)`,
      `placements added: ${formatTotals(placementsDelta)}`,
      `daily_stats added: ${formatTotals(dailyDelta)}`,
    ],
  });

  // 4. Spend: billed within each day's budget plus one impression, and the counters agree.
  const spend = await sql`
    with billed as (
      select campaign_id, (impressed_at at time zone 'UTC')::date as day, count(*)::int as impressions,
             sum(cost_micro) as billed, max(cost_micro) as price
      from public.ad_decisions where impression_event_id is not null group by 1, 2
    ), clicked as (
      select campaign_id, (clicked_at at time zone 'UTC')::date as day, count(*)::int as clicks
      from public.ad_decisions where click_event_id is not null group by 1, 2
    )
    select c.id::text, c.name, c.daily_budget_micro, b.day::text, b.impressions, coalesce(k.clicks, 0)::int as clicks, b.billed, b.price,
           s.spent_micro, s.impressions as spend_impressions, s.clicks as spend_clicks,
           public.sdk_budget_spent(c.id, b.day::timestamp at time zone 'UTC') as counter
    from billed b join public.campaigns c on c.id = b.campaign_id
    left join clicked k on k.campaign_id = b.campaign_id and k.day = b.day
    left join public.campaign_daily_spend s on s.campaign_id = b.campaign_id and s.day = b.day
    order by c.name, b.day`;
  const overBudget = spend.filter((r) => micro(r.billed) > micro(r.daily_budget_micro) + micro(r.price));
  const spendWrong = spend.filter(
    (r) => micro(r.spent_micro ?? 0) !== micro(r.billed) || Number(r.spend_impressions ?? 0) !== r.impressions || Number(r.spend_clicks ?? 0) !== r.clicks,
  );
  const counterWrong = spend.filter((r) => r.day === after.today && Number(r.counter ?? 0) !== micro(r.billed));
  const capped = spend.find((r) => r.id === campaigns.capped.id && r.day === after.today);
  const cappedRefused = [...ledger.events.values()].filter(
    (e) => e.campaign === 'capped' && e.type === 'impression' && e.answers.some((a) => a.reason === 'over_budget'),
  ).length;
  const cappedServedUsd = ledger.ads.capped * campaigns.impressionUsd;
  checks.push({
    name: 'No campaign billed over its daily budget plus one impression, and the capped one billed all of it',
    ok:
      overBudget.length === 0 &&
      capped !== undefined &&
      cappedRefused > 0 &&
      cappedServedUsd > micro(capped.daily_budget_micro) / 1_000_000 &&
      // Leases of the budget left nothing unbilled: within one impression of the budget.
      micro(capped.billed) > micro(capped.daily_budget_micro) - micro(capped.price),
    figures: [
      capped
        ? `capped campaign: ads served worth $${cappedServedUsd.toFixed(3)} (${ledger.ads.capped} × $${campaigns.impressionUsd}), billed ${usd(micro(capped.billed))} for ${capped.impressions} impressions against a budget of ${cents(micro(capped.daily_budget_micro))} (bound: $${((micro(capped.daily_budget_micro) + micro(capped.price)) / 1_000_000).toFixed(3)}); ${cappedRefused} impressions refused \`over_budget\``
        : 'capped campaign: nothing billed',
      ...spend.map(
        (r) => `${r.name} on ${r.day}: billed ${usd(micro(r.billed))} of ${cents(micro(r.daily_budget_micro))}${overBudget.includes(r) ? ' OVER' : ''}`,
      ),
    ],
  });
  checks.push({
    name: 'campaign_daily_spend and the budgets (`budget:` counters less what leases hold unspent) equal what was billed',
    ok: spendWrong.length === 0 && counterWrong.length === 0,
    figures: spend.map(
      (r) =>
        `${r.name} on ${r.day}: decisions ${usd(micro(r.billed))} (${r.impressions} impressions, ${r.clicks} clicks); campaign_daily_spend ${usd(micro(r.spent_micro ?? 0))} (${Number(r.spend_impressions ?? 0)}, ${Number(r.spend_clicks ?? 0)}); budget ${r.day === after.today ? usd(Number(r.counter ?? 0)) : '(past day)'}`,
    ),
  });
  return checks;
}

export function countBy(items, key) {
  const counts = {};
  for (const item of items) {
    const k = key(item);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

export function formatCounts(counts) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return entries.length ? entries.map(([k, n]) => `${n} ${k}`).join(', ') : 'none';
}

function formatTotals(t) {
  return `${t.ad_requests} ad requests, ${t.fills} fills, ${t.impressions} impressions, ${t.clicks} clicks, ${t.invalid_events} invalid, ${usd(t.revenue_micro)}`;
}
