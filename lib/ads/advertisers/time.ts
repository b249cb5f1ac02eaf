/**
 * Campaign dates are days in the advertiser's time zone (their profile's); the database keeps
 * instants. A campaign runs from the first instant of its start day there to the first instant
 * after its end day there.
 */

/**
 * The time zones an advertiser may choose, UTC first: the runtime's list of IANA zones
 * (`Intl.supportedValuesOf`) names only places, so it leaves out UTC, which a form defaulting to
 * it would then show as the list's first place (Africa/Abidjan).
 */
export function timeZones(): string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
}

/** How far `zone`'s wall clock is ahead of UTC at `at`, in milliseconds. */
function offsetAt(at: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(at / 1000) * 1000;
}

/** The first instant of `day` (YYYY-MM-DD) in `zone`. */
export function startOfDay(day: string, zone: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d);
  // The offset at the guess, then at the answer: right on either side of a daylight-saving change.
  const first = wall - offsetAt(wall, zone);
  return new Date(wall - offsetAt(first, zone));
}

/** The first instant after `day` in `zone` (the start of the next day there). */
export function endOfDay(day: string, zone: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
  return startOfDay(next, zone);
}

/** The day (YYYY-MM-DD) an instant falls on in `zone`. */
export function dayIn(at: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** An instant as the advertiser reads it: the day and time in their zone, with the zone's name. */
export function formatIn(at: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(at);
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The days a campaign runs, as its advertiser reads them: "Dec 1, 2026 – Dec 31, 2026" in their zone (its end is the instant after its last day). */
export function formatRun(startsAt: Date, endsAt: Date | null, zone: string): string {
  let format = dayFormats.get(zone);
  if (!format) dayFormats.set(zone, (format = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'short', day: 'numeric' })));
  const start = format.format(startsAt);
  return endsAt === null ? `from ${start}` : `${start} – ${format.format(new Date(endsAt.getTime() - 1))}`;
}
