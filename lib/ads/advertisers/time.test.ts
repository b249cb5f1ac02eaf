import { describe, expect, it } from 'vitest';
import { dayIn, endOfDay, startOfDay, timeZones } from './time';

describe("campaign days in the advertiser's time zone", () => {
  it('start at their midnight, in UTC and elsewhere', () => {
    expect(startOfDay('2026-12-01', 'UTC').toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(startOfDay('2026-12-01', 'America/New_York').toISOString()).toBe('2026-12-01T05:00:00.000Z');
    expect(startOfDay('2026-07-01', 'America/New_York').toISOString()).toBe('2026-07-01T04:00:00.000Z');
    expect(startOfDay('2026-12-01', 'Asia/Kolkata').toISOString()).toBe('2026-11-30T18:30:00.000Z');
  });

  it('end at the next midnight, across a daylight-saving change too', () => {
    expect(endOfDay('2026-12-31', 'UTC').toISOString()).toBe('2027-01-01T00:00:00.000Z');
    // Europe/Berlin moves to summer time on 2026-03-29: that day has 23 hours.
    expect(startOfDay('2026-03-29', 'Europe/Berlin').toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(endOfDay('2026-03-29', 'Europe/Berlin').toISOString()).toBe('2026-03-29T22:00:00.000Z');
  });

  it('read an instant back as the day it falls on there', () => {
    const at = new Date('2026-11-30T20:00:00Z');
    expect(dayIn(at, 'UTC')).toBe('2026-11-30');
    expect(dayIn(at, 'Asia/Tokyo')).toBe('2026-12-01');
    expect(dayIn(startOfDay('2026-12-01', 'America/Los_Angeles'), 'America/Los_Angeles')).toBe('2026-12-01');
  });
});

describe('a run as the advertiser reads it', () => {
  it('names its first and last day in their zone', async () => {
    const { formatRun } = await import('./time');
    expect(formatRun(startOfDay('2026-12-01', 'Europe/Paris'), endOfDay('2026-12-31', 'Europe/Paris'), 'Europe/Paris')).toBe('Dec 1, 2026 – Dec 31, 2026');
    expect(formatRun(startOfDay('2026-12-01', 'UTC'), null, 'UTC')).toBe('from Dec 1, 2026');
  });
});

describe('the time zones an advertiser may choose', () => {
  it('start with UTC, once, then every zone the runtime knows, each one a valid zone', () => {
    const zones = timeZones();
    expect(zones[0]).toBe('UTC');
    expect(zones.filter((z) => z === 'UTC')).toHaveLength(1);
    expect(zones).toContain('Europe/Berlin');
    expect(zones).toContain('America/New_York');
    for (const zone of zones) expect(() => new Intl.DateTimeFormat('en-US', { timeZone: zone })).not.toThrow();
  });
});
