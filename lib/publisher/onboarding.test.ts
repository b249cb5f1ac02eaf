import { describe, expect, it } from 'vitest';
import { onboardingSteps, type OnboardingInput } from './onboarding';

const none: OnboardingInput = { apps: [], placements: [], keys: [], impressions: 0 };
const app = { id: 'a1', name: 'Writer' };
const done = (input: OnboardingInput) => onboardingSteps(input).steps.map((s) => s.done);

describe('the first-run checklist', () => {
  it('starts with nothing done, pointing at the app form', () => {
    const { steps, complete } = onboardingSteps(none);
    expect(done(none)).toEqual([false, false, false, false, false]);
    expect(complete).toBe(false);
    expect(steps[0]!.href).toBe('#new-app');
  });

  it('follows the account step by step, each link on the first app', () => {
    const withApp = { ...none, apps: [app] };
    expect(done(withApp)).toEqual([true, false, false, false, false]);
    expect(onboardingSteps(withApp).steps[1]!.href).toBe('/dashboard/apps/a1#placements');
    const withPlacement = { ...withApp, placements: [{ app_id: 'a1', status: 'active', impressions: 0 }] };
    expect(done(withPlacement)).toEqual([true, true, false, false, false]);
    const withKey = { ...withPlacement, keys: [{ app_id: 'a1', status: 'active', last_used_at: null }] };
    expect(done(withKey)).toEqual([true, true, true, false, false]);
    const used = { ...withPlacement, keys: [{ app_id: 'a1', status: 'active', last_used_at: '2026-11-26T10:00:00Z' }] };
    expect(done(used)).toEqual([true, true, true, true, false]);
    const seen = { ...used, impressions: 1 };
    expect(onboardingSteps(seen).complete).toBe(true);
  });

  it('does not count an archived placement as a placement, nor a revoked key never used as a key', () => {
    const input = {
      apps: [app],
      placements: [{ app_id: 'a1', status: 'archived', impressions: 0 }],
      keys: [{ app_id: 'a1', status: 'revoked', last_used_at: null }],
      impressions: 0,
    };
    expect(done(input)).toEqual([true, false, false, false, false]);
  });

  it('marks the earlier steps done once a later one is (an account whose placement was archived after earning)', () => {
    const input = { apps: [app], placements: [{ app_id: 'a1', status: 'archived', impressions: 40 }], keys: [], impressions: 40 };
    expect(onboardingSteps(input).complete).toBe(true);
  });
});
