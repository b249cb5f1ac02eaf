import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { AUTH_METHODS } from '@/lib/identity/oauth/metadata';
import { KEY_ENVIRONMENTS, KEY_KINDS, KEY_STATUSES, PAYOUT_RAILS, PAYOUT_STATUSES, PLACEMENT_FORMATS, PLACEMENT_STATUSES } from '@/lib/schemas/account';
import { LEDGER_ACCOUNT_KINDS, LEDGER_TRANSACTION_KINDS } from '@/lib/schemas/ledger';
import { CONVERSION_REASONS, CONVERSION_SOURCES } from '@/lib/schemas/conversions';
import {
  ADVERTISER_CATEGORIES,
  CAMPAIGN_STATUSES,
  CREATIVE_STATUSES,
  PAUSE_REASONS,
  REVERSAL_CAUSES,
  TOP_UP_RAILS,
  TOP_UP_STATUSES,
} from '@/lib/schemas/advertising';
import { LICENSE_LISTINGS, LICENSE_STATUSES, WEBHOOK_DELIVERY_STATUSES } from '@/lib/schemas/data-buyers';
import { DATA_KINDS, EVENT_KINDS, NO_FILL_REASONS } from '@/lib/schemas/sdk';
import { testEngines } from '../helpers/db';

/**
 * The value lists of the database's CHECK constraints (`column in ('a', 'b')`), read from the
 * catalog of a migrated database, against the enumerations the code validates and types with.
 * Adding a value to one side only fails here, on every engine the run has; so does a new
 * enumeration in a migration that no one has mapped below.
 */

/** `table.column` → the code's enumeration of the same values. */
const ENUMERATIONS: Record<string, readonly string[]> = {
  'placements.format': PLACEMENT_FORMATS,
  'placements.status': PLACEMENT_STATUSES,
  'payouts.status': PAYOUT_STATUSES,
  'payouts.rail': PAYOUT_RAILS,
  'payout_methods.rail': PAYOUT_RAILS,
  'api_keys.environment': KEY_ENVIRONMENTS,
  'api_keys.status': KEY_STATUSES,
  'api_keys.kind': KEY_KINDS,
  'oauth_clients.token_endpoint_auth_method': AUTH_METHODS,
  'campaign_draw.format': PLACEMENT_FORMATS,
  'creatives.format': PLACEMENT_FORMATS,
  'ad_events.kind': EVENT_KINDS,
  'ad_decisions.no_fill_reason': NO_FILL_REASONS,
  'ad_traffic_counts.no_fill_reason': NO_FILL_REASONS,
  'data_records.kind': DATA_KINDS,
  'ledger_accounts.kind': LEDGER_ACCOUNT_KINDS,
  'ledger_transactions.kind': LEDGER_TRANSACTION_KINDS,
  'campaigns.status': CAMPAIGN_STATUSES,
  'conversions.invalid_reason': CONVERSION_REASONS,
  'conversions.source': CONVERSION_SOURCES,
  'campaigns.pause_reason': PAUSE_REASONS,
  'campaigns.advertiser_category': ADVERTISER_CATEGORIES,
  'creatives.status': CREATIVE_STATUSES,
  'top_ups.rail': TOP_UP_RAILS,
  'top_ups.status': TOP_UP_STATUSES,
  'payment_reversals.cause': REVERSAL_CAUSES,
  'account_holds.cause': REVERSAL_CAUSES,
  'data_licenses.listing': LICENSE_LISTINGS,
  'data_licenses.status': LICENSE_STATUSES,
  'data_deletion_deliveries.status': WEBHOOK_DELIVERY_STATUSES,
};

/**
 * Enumerations the code has no exported list for yet: the values are spelled out where they are
 * used. Written down here so a change to the CHECK still fails this test until the code follows.
 */
const UNOWNED: Record<string, readonly string[]> = {
  'user_identities.provider': ['github', 'google'],
  'idempotency_records.state': ['running', 'done'],
  'data_records.status': ['unsold', 'sold'],
  // The data buyers' side (migration 20261209000000_data_buyers), spelled out in lib/data/buyers/.
  'top_ups.account_kind': ['advertiser', 'buyer'],
  'payment_reversals.account_kind': ['advertiser', 'buyer'],
  'data_deletion_notices.reason': ['consent_withdrawn', 'purpose_withdrawn'],
  'data_exports.status': ['queued', 'running', 'done', 'failed', 'superseded'],
};

interface Check {
  table: string;
  column: string;
  definition: string;
}

/** The single-column CHECK constraints of the tables in `public`, as PostgreSQL prints them. */
async function checks(db: Engine): Promise<Check[]> {
  return db.query<Check & Record<string, unknown>>(
    `select c.relname as table, a.attname as column, pg_get_constraintdef(k.oid) as definition
     from pg_constraint k
     join pg_class c on c.oid = k.conrelid
     join pg_namespace n on n.oid = c.relnamespace
     join pg_attribute a on a.attrelid = k.conrelid and a.attnum = k.conkey[1]
     where k.contype = 'c' and n.nspname = 'public' and cardinality(k.conkey) = 1
     order by 1, 2`,
  );
}

/**
 * The allowed values of `column in (...)`, which PostgreSQL keeps as
 * `CHECK ((column = ANY (ARRAY['a'::text, 'b'::text])))`; null for any other kind of CHECK.
 */
function allowedValues(definition: string): string[] | null {
  const list = /^CHECK \(\(\(?"?\w+"?\)? = ANY \(\(?ARRAY\[(.*)\]\)?(?:::text\[\])?\)\)\)$/.exec(definition);
  if (!list) return null;
  return [...list[1]!.matchAll(/'((?:[^']|'')*)'::(?:text|character varying)/g)].map((m) => m[1]!.replace(/''/g, "'"));
}

describe('allowedValues', () => {
  it('reads the list of a `column in (...)` CHECK, and nothing else', () => {
    expect(allowedValues("CHECK ((format = ANY (ARRAY['floating_video'::text, 'it''s'::text])))")).toEqual(['floating_video', "it's"]);
    expect(allowedValues('CHECK ((impressions >= 0))')).toBeNull();
    expect(allowedValues('CHECK ((email = lower(email)))')).toBeNull();
  });
});

for (const engine of testEngines()) {
  describe(`CHECK constraints and the code's enumerations on ${engine.name}`, () => {
    let db: Engine;
    let found: Map<string, string[]>;
    beforeAll(async () => {
      db = await engine.open();
      found = new Map();
      for (const c of await checks(db)) {
        const values = allowedValues(c.definition);
        if (values) found.set(`${c.table}.${c.column}`, values);
      }
    });
    afterAll(async () => {
      await db?.close();
    });

    it('finds every enumeration of the data model in the catalog', () => {
      expect([...found.keys()].sort()).toEqual([...Object.keys(ENUMERATIONS), ...Object.keys(UNOWNED)].sort());
    });

    it.each(Object.entries(ENUMERATIONS))('%s allows exactly the values of the code', (key, values) => {
      expect(found.get(key), key).toBeDefined();
      expect([...found.get(key)!].sort()).toEqual([...values].sort());
      // Each list names each value once, on both sides.
      expect(new Set(values).size).toBe(values.length);
      expect(new Set(found.get(key)).size).toBe(found.get(key)!.length);
    });

    it.each(Object.entries(UNOWNED))('%s allows exactly the values the code spells out', (key, values) => {
      expect([...found.get(key)!].sort()).toEqual([...values].sort());
    });
  });
}
