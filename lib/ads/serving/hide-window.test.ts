import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HIDE_WITHIN_DAYS } from './events';

const functionFile = (name: string) => readFileSync(path.join(process.cwd(), 'supabase/schemas/functions', `public.${name}.sql`), 'utf8');

describe('how long a hide is taken', () => {
  it('is as long as the roll-up keeps the decision it names, no longer (a hide of a swept decision would be unknown_decision)', () => {
    const kept = /v_retained_since timestamptz := now\(\) - interval '(\d+) days'/.exec(functionFile('roll_up_ad_traffic'));
    expect(kept, 'the roll-up names how long it keeps decisions').not.toBeNull();
    expect(Number(kept![1])).toBe(HIDE_WITHIN_DAYS);
  });

  it('hides the campaign for 30 days from the hide, as the SDK and the docs say', () => {
    expect(functionFile('sdk_record_events')).toMatch(/public\.sdk_hider\(v_app, p_client_hash\), v_decision\.campaign_id, now\(\) \+ interval '30 days'\)/);
  });
});
