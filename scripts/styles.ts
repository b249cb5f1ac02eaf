/**
 * `npm run styles` (and `npm install`'s postinstall, scripts/postinstall.mjs): builds the site's
 * stylesheet, app/globals.generated.css, from app/globals.css unless it is up to date
 * (lib/platform/styles/tailwind.ts). Next builds it too whenever it loads next.config.ts to compile, so this
 * only spares the first `npm run dev` the work.
 */
import { ensureStyles, STYLES_OUTPUT } from '../lib/platform/styles/tailwind';

const started = Date.now();
ensureStyles().then(
  (built) =>
    console.log(built ? `styles: built ${STYLES_OUTPUT} in ${((Date.now() - started) / 1000).toFixed(1)} s` : `styles: ${STYLES_OUTPUT} is up to date`),
  (err: unknown) => {
    console.error(`styles: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
