import type { Queryable } from '../../lib/platform/db/engine';

/**
 * The facts public.sdk_event_reason decides on, as sdk_record_events passes them. Each left out is
 * that of an event that counts: an impression of a tooltip from the ad's client, 5 seconds after
 * it was served, 80% of it in view for 1.2 seconds; a click on an ad whose impression counted
 * (a click's impression facts are null, as sdk_record_events leaves them).
 */
export interface EventFacts {
  kind?: 'impression' | 'click';
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
}

/** The reason public.sdk_event_reason gives an event of these facts, or null when it counts. */
export async function reasonOf(q: Queryable, f: EventFacts): Promise<string | null> {
  const kind = f.kind ?? 'impression';
  const click = kind === 'click';
  const given = <K extends keyof EventFacts>(key: K, otherwise: EventFacts[K]) => (f[key] === undefined ? otherwise : f[key]);
  const [row] = await q.query<{ v: string | null }>('select public.sdk_event_reason($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::bigint, $13) as v', [
    kind,
    given('bot', false),
    given('impression', click ? 'i' : null),
    given('click', null),
    given('running', true),
    given('overBudget', false),
    given('sameClient', click ? null : true),
    given('age', click ? null : 5),
    given('format', click ? null : 'tooltip'),
    given('share', click ? null : 0.8),
    given('seconds', click ? null : 1.2),
    given('area', null),
    given('repeat', false),
  ]);
  return row!.v;
}
