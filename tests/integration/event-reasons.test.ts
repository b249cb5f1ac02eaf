import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../lib/platform/db/engine';
import { EVENT_KINDS, EVENT_REASON_CHECKS, EVENT_REASONS, EVENT_STATUSES } from '../../lib/schemas/sdk';
import { testEngines } from '../helpers/db';
import { reasonOf, type EventFacts } from '../helpers/event-facts';

/**
 * Why an event is not counted has one list, in one order: EVENT_REASON_CHECKS (lib/schemas/sdk.ts),
 * of which the API's enum is made. Here the others are held to it: the documentation's counting
 * rules and its table of answers (content/docs/sdk-integration.md), and the one SQL rule,
 * public.sdk_event_reason, whose text names its reasons in the list's order and which answers
 * in it. What each reason means at its edges, and each at work in sdk_record_events, is
 * tests/integration/sql-rules.test.ts.
 */

type Kind = (typeof EVENT_KINDS)[number];

const DOCS = readFileSync(path.join(process.cwd(), 'content', 'docs', 'sdk-integration.md'), 'utf8');

/** The reasons the list has for a kind of event, in its order, and those public.sdk_event_reason decides. */
const listed = (kind: Kind): string[] => EVENT_REASON_CHECKS.filter((c) => c[kind] !== null).map((c) => c.reason);
const ruled = (kind: Kind): string[] => EVENT_REASON_CHECKS.filter((c) => c[kind] === 'rule').map((c) => c.reason);

/** The reason codes a piece of the documentation names, in order, once each: the words in backquotes that are no status. */
function reasonsIn(text: string): string[] {
  const codes = [...text.matchAll(/`([a-z]+(?:_[a-z]+)*)`/g)].map((m) => m[1]!);
  return [...new Set(codes.filter((code) => !(EVENT_STATUSES as readonly string[]).includes(code)))];
}

/** The numbered rules of the documentation's "Counting rules": those of every event, of impressions, of clicks and of hides. */
function countingRules(): Record<'every' | Kind, string> {
  const section = DOCS.slice(DOCS.indexOf('## Counting rules'));
  const body = section.slice(0, section.indexOf('\n## ', 1));
  const numbered = (part: string) =>
    part
      .split('\n')
      .filter((line) => /^\d+\. /.test(line))
      .join('\n');
  const impressions = body.indexOf('For impressions:');
  const clicks = body.indexOf('For clicks:');
  const hides = body.indexOf('For hides');
  const after = body.indexOf('\n\n', body.indexOf('\n', hides) + 1);
  expect([impressions, clicks, hides, after].every((at) => at > 0)).toBe(true);
  return {
    every: numbered(body.slice(0, impressions)),
    impression: numbered(body.slice(impressions, clicks)),
    click: numbered(body.slice(clicks, hides)),
    hide: numbered(body.slice(hides, after)),
  };
}

/**
 * Facts that make each rule apply, for each kind (the rest as in an event that counts). Chosen so
 * that two rules' facts together still make both apply, but for being too soon and too late at once.
 */
const FACTS: Record<Kind, Record<string, EventFacts>> = {
  impression: {
    bot: { bot: true },
    other_client: { sameClient: false },
    too_soon: { age: 0.5 },
    too_late: { age: 1000 },
    impossible_evidence: { seconds: 2000 },
    not_viewable: { share: 0.4 },
    already_counted: { impression: 'i' },
    campaign_ended: { running: false },
  },
  click: {
    bot: { bot: true },
    already_counted: { click: 'c' },
    no_impression: { impression: null },
    campaign_ended: { running: false },
    over_budget: { overBudget: true },
    repeat_click: { repeat: true },
  },
  hide: {
    bot: { bot: true },
    other_client: { sameClient: false },
    already_counted: { hide: 'h' },
  },
};
const EXCLUSIVE = [['too_soon', 'too_late']];

describe('the one list of reasons, in TypeScript and in the documentation', () => {
  it('names every reason once, each for one kind of event at least', () => {
    expect(new Set(EVENT_REASONS).size).toBe(EVENT_REASONS.length);
    expect(EVENT_REASON_CHECKS.filter((c) => c.impression === null && c.click === null)).toEqual([]);
  });

  it("the documentation's counting rules name each kind's reasons in the list's order", () => {
    const rules = countingRules();
    for (const kind of EVENT_KINDS) {
      expect(reasonsIn(`${rules.every}\n${rules[kind]}`), kind).toEqual(listed(kind));
    }
  });

  it("the documentation's table of answers has every reason once, with its status, in the list's order", () => {
    // Its rows: a status, then a reason (none for `recorded` and `duplicate`).
    const row = new RegExp(`^\\| \`(${EVENT_STATUSES.join('|')})\` \\| \`([a-z_]+)\` \\|`, 'gm');
    const rows = [...DOCS.matchAll(row)].map((m) => ({ status: m[1]!, reason: m[2]! }));
    const withStatus = (status: string) => rows.filter((r) => r.status === status).map((r) => r.reason);
    expect(rows.map((r) => r.status).filter((s) => s !== 'invalid' && s !== 'rejected')).toEqual([]);
    expect(withStatus('rejected')).toEqual(EVENT_REASON_CHECKS.filter((c) => c.impression === 'token').map((c) => c.reason));
    expect(withStatus('invalid')).toEqual(EVENT_REASON_CHECKS.filter((c) => c.impression !== 'token').map((c) => c.reason));
  });
});

for (const engine of testEngines()) {
  describe(`public.sdk_event_reason and the one list, on ${engine.name}`, () => {
    let db: Engine;

    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it("names the reasons it decides in the list's order", async () => {
      const [row] = await db.query<{ definition: string }>("select pg_get_functiondef('public.sdk_event_reason'::regproc) as definition");
      const named = [...row!.definition.matchAll(/then '([a-z_]+)'/g)].map((m) => m[1]);
      expect(named).toEqual(EVENT_REASON_CHECKS.filter((c) => c.impression === 'rule' || c.click === 'rule').map((c) => c.reason));
    });

    for (const kind of EVENT_KINDS) {
      it(`answers a${kind === 'impression' ? 'n' : ''} ${kind}'s reasons in the list's order: of any two that apply, the first`, async () => {
        const reasons = ruled(kind);
        // The facts above are for every reason the list says this rule decides for the kind, and only those.
        expect(Object.keys(FACTS[kind])).toEqual(reasons);
        const alone: Record<string, string | null> = {};
        for (const reason of reasons) alone[reason] = await reasonOf(db, { kind, ...FACTS[kind][reason] });
        expect(alone).toEqual(Object.fromEntries(reasons.map((r) => [r, r])));

        const pairs: string[] = [];
        const answers: string[] = [];
        for (const [i, first] of reasons.entries()) {
          for (const later of reasons.slice(i + 1)) {
            if (EXCLUSIVE.some(([a, b]) => a === first && b === later)) continue;
            pairs.push(`${first} before ${later}`);
            const answer = await reasonOf(db, { kind, ...FACTS[kind][later], ...FACTS[kind][first] });
            answers.push(`${answer} before ${later}`);
          }
        }
        expect(answers).toEqual(pairs);
      });
    }
  });
}
