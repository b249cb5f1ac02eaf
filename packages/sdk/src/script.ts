import { createClient, VERSION } from './client';
import { findAd } from './server-ad';

/**
 * The `<script>` build (served at /sdk/v1.js): `window.Monetize.createClient(...)`, and
 * `Monetize.findAd(text)` for an ad an app's server appended to its answer. Loaded twice,
 * the first copy stays (its clients and their counts) and one warning says so.
 */
const w = window as unknown as { Monetize?: { createClient: typeof createClient; findAd: typeof findAd; version: string; warned?: boolean } };
if (w.Monetize) {
  if (!w.Monetize.warned) {
    w.Monetize.warned = true;
    console.warn('Monetize SDK: the script was loaded more than once; the first copy is used.');
  }
} else {
  w.Monetize = { createClient, findAd, version: VERSION };
}
