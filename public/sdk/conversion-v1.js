/*
 * Monetize conversion tag, v1. On an advertiser's own pages: it keeps the click id (`mclid`) that
 * an ad's click brought to the landing page, in this site's own storage (localStorage, for 30 days:
 * the longest attribution window), and sends a conversion with it when the page names one.
 * No cookie, nothing about the visitor but the click id, which says which ad was clicked.
 *
 *   Every page (or at least the landing pages):
 *     <script async src="https://<service>/sdk/conversion-v1.js" data-tag="ct_…"></script>
 *   The page where the conversion happens, with its name (and, optionally, its value and your id):
 *     <script async src="…/sdk/conversion-v1.js" data-tag="ct_…" data-conversion="signup"
 *             data-value-usd="49.00" data-event-id="order-1234"></script>
 *   or, from your own script: window.monetizeConversion('purchase', { value_usd: 49, event_id: 'order-1234' })
 */
(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || !script.src) return;
  var tag = script.getAttribute('data-tag');
  var KEY = 'monetize_mclid';
  var KEEP_MS = 30 * 86400000;
  var CLICK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[A-Za-z0-9_-]{22}$/;
  var endpoint = new URL('/functions/v1/conversions/tag', script.src).toString();

  function kept() {
    try {
      var value = JSON.parse(window.localStorage.getItem(KEY) || 'null');
      if (value && typeof value.id === 'string' && CLICK_ID.test(value.id) && Date.now() - value.at < KEEP_MS) return value.id;
    } catch (e) {
      // Storage unavailable (private mode, blocked): only the landing page's own id is known.
    }
    return null;
  }

  var landed = null;
  try {
    landed = new URL(window.location.href).searchParams.get('mclid');
  } catch (e) {
    landed = null;
  }
  if (landed && CLICK_ID.test(landed)) {
    try {
      window.localStorage.setItem(KEY, JSON.stringify({ id: landed, at: Date.now() }));
    } catch (e) {
      // Kept for this page only.
    }
  } else {
    landed = null;
  }

  /** Sends a conversion for the kept click; false when there is none (the visitor did not come from an ad). */
  function convert(name, options) {
    var clickId = landed || kept();
    if (!tag || !clickId || !name) return false;
    var body = { tag: tag, click_id: clickId, name: String(name).slice(0, 100) };
    // A value that is no number of dollars is left out rather than losing the conversion.
    var value = options && options.value_usd !== undefined && options.value_usd !== null && options.value_usd !== '' ? Number(options.value_usd) : NaN;
    if (isFinite(value) && value >= 0) body.value_usd = Math.round(value * 1e6) / 1e6;
    if (options && options.event_id) body.event_id = String(options.event_id).slice(0, 190);
    var text = JSON.stringify(body);
    if (navigator.sendBeacon && navigator.sendBeacon(endpoint, text)) return true;
    if (window.fetch) {
      window.fetch(endpoint, { method: 'POST', body: text, headers: { 'content-type': 'text/plain' }, keepalive: true, credentials: 'omit' }).catch(function () {});
      return true;
    }
    return false;
  }

  window.monetizeConversion = convert;
  var conversion = script.getAttribute('data-conversion');
  if (conversion) convert(conversion, { value_usd: script.getAttribute('data-value-usd'), event_id: script.getAttribute('data-event-id') });
})();
