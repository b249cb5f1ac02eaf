import { describe, expect, it } from 'vitest';
import { homeOf, rolesOf } from './roles';

const held = (over: Partial<{ apps: boolean; advertiser: boolean; buyer: boolean; staff: boolean }>) => ({
  apps: false,
  advertiser: false,
  buyer: false,
  staff: false,
  ...over,
});

describe("an account's roles and its console", () => {
  it('is a publisher with apps, or with no other role (a new account), and only then', () => {
    expect(rolesOf(held({}))).toEqual({ publisher: true, advertiser: false, buyer: false, operator: false });
    expect(rolesOf(held({ apps: true, advertiser: true }))).toEqual({ publisher: true, advertiser: true, buyer: false, operator: false });
    expect(rolesOf(held({ advertiser: true })).publisher).toBe(false);
    expect(rolesOf(held({ buyer: true })).publisher).toBe(false);
    expect(rolesOf(held({ staff: true })).publisher).toBe(false);
  });

  it("goes home to the publisher's overview first, then the advertiser's, the buyer's, the operator's", () => {
    expect(homeOf(rolesOf(held({})))).toBe('/dashboard');
    expect(homeOf(rolesOf(held({ apps: true, buyer: true })))).toBe('/dashboard');
    expect(homeOf(rolesOf(held({ advertiser: true, buyer: true })))).toBe('/dashboard/ads');
    expect(homeOf(rolesOf(held({ buyer: true })))).toBe('/dashboard/data');
    expect(homeOf(rolesOf(held({ staff: true })))).toBe('/ops');
    expect(homeOf(rolesOf(held({ staff: true, buyer: true })))).toBe('/dashboard/data');
  });
});
