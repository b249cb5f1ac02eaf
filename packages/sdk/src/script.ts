import { createClient, VERSION } from './client';

/**
 * The `<script>` build (served at /sdk/v1.js): `window.Monetize.createClient(...)`. Loaded twice,
 * the first copy stays (its clients and their counts) and one warning says so.
 */
const w = window as unknown as { Monetize?: { createClient: typeof createClient; version: string; warned?: boolean } };
if (w.Monetize) {
  if (!w.Monetize.warned) {
    w.Monetize.warned = true;
    console.warn('Monetize SDK: the script was loaded more than once; the first copy is used.');
  }
} else {
  w.Monetize = { createClient, version: VERSION };
}
