import type { Queryable } from '../../lib/platform/db/engine';

/**
 * The facts public.sdk_event_reason decides on, as sdk_record_events passes them. Each left out is
 * that of an event that counts: an impression of a tooltip from the ad's client, 5 seconds after
 * it was served, 80% of it in view for 1.2 seconds; a click on an ad whose impression counted
 * (a click's impression facts are null, as sdk_record_events leaves them); a hide from the ad's
 * client of an ad not hidden before (its other facts as sdk_record_events passes them).
 */
export interface EventFacts {
  kind?: 'impression' | 'click' | 'hide';
  bot?: boolean | null;
  /** The ids the decision has counted. */
  impression?: string | null;
  click?: string | null;
  running?: boolean | null;
  overBudget?: boolean | null;
  sameClient?: boolean | null;
  /** Seconds since the ad was served. */
  age?: number | null;
  format?: string | null;
  share?: number | null;
  seconds?: number | null;
  area?: number | null;
  repeat?: boolean | null;
  /** The id of the hide the decision has counted. */
  hide?: string | null;
}

/** The reason public.sdk_event_reason gives an event of these facts, or null when it counts. */
export async function reasonOf(q: Queryable, f: EventFacts): Promise<string | null> {
  const kind = f.kind ?? 'impression';
  const click = kind === 'click';
  const hide = kind === 'hide';
  const given = <K extends keyof EventFacts>(key: K, otherwise: EventFacts[K]) => (f[key] === undefined ? otherwise : f[key]);
  const [row] = await q.query<{ v: string | null }>(
    'select public.sdk_event_reason($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::bigint, $13, $14) as v',
    [
      kind,
      given('bot', false),
      given('impression', click ? 'i' : null),
      given('click', null),
      given('running', true),
      given('overBudget', false),
      given('sameClient', click ? null : true),
      given('age', click || hide ? null : 5),
      given('format', click || hide ? null : 'tooltip'),
      given('share', click || hide ? null : 0.8),
      given('seconds', click || hide ? null : 1.2),
      given('area', null),
      given('repeat', false),
      given('hide', null),
    ],
  );
  return row!.v;
}
