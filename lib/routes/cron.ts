import { sweepStoredFiles } from '../ads/advertisers/files';
import { runDataJobs } from '../data/buyers/export-job';
import { applyDuePricing } from '../ads/serving/rollup';
import { sameText, sha256Hex } from '../platform/crypto';
import { ApiError } from '../platform/http/errors';
import { describeError, log } from '../platform/log';
import { ROUTES } from '../schemas/registry';
import { defineRoute } from './kernel';

/** Exports written per scheduled call: one license's files, well within a function's time (vercel.json gives it 300 s). */
export const EXPORTS_PER_SCHEDULED_CALL = 1;

/**
 * GET /api/cron/data-jobs: the pricing changes that are due, and the data buyers' background
 * work, once, for a host where no process stays up to run its timer (Vercel: vercel.json calls it
 * every minute). It puts due pricing changes in force (lib/ads/serving/rollup.ts), sends the deletion
 * notices due at buyers' webhooks and writes the next waiting export (lib/data/buyers/export-job.ts,
 * `runDataJobs`), and deletes the creatives' files no creative or recent decision names (and, at
 * the top of each hour, the stored files no table knows: lib/ads/advertisers/files.ts); the queue's leases make a call that overlaps another, or the long-running
 * server's timer, harmless. Only the scheduler may call it: `Authorization: Bearer` and the
 * deployment's CRON_SECRET, compared in constant time (as hashes); without CRON_SECRET the path is 404.
 */
export const dataJobsRoute = defineRoute(ROUTES['/api/cron/data-jobs'], {
  GET: async ({ request, services }) => {
    const presented = /^bearer (.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
    // Hashes first: equal lengths, so the comparison says nothing of the secret's length either.
    if (!services.cronSecret || !sameText(sha256Hex(presented), sha256Hex(services.cronSecret))) {
      // To anyone but the scheduler the path does not exist, whether or not scheduled calls are on.
      throw new ApiError('not_found', 'No such path for this caller: it answers only the scheduler, with the deployment’s CRON_SECRET as its bearer token.');
    }
    const db = await services.database();
    // The pricing changes whose time has come go into force (lib/ads/serving/rollup.ts): on Vercel no
    // server's timer runs them with the roll-up, so this call, every minute, does. A failure is
    // logged and leaves the data jobs to run.
    await applyDuePricing(db).catch((err) => log.error('pricing changes not applied', describeError(err)));
    const run = await runDataJobs(db, services.storage, services.exportSecret, services.dataKey, EXPORTS_PER_SCHEDULED_CALL);
    // Logged, not answered: the answer says what the data jobs did.
    const swept = await sweepStoredFiles(db, services.storage, { orphans: new Date().getUTCMinutes() === 0 });
    if (swept.files + swept.orphans > 0) log.info('stored files swept', swept);
    return Response.json(run, { headers: { 'cache-control': 'no-store' } });
  },
});
