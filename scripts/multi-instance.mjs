#!/usr/bin/env node
// `npm run test:instances` ("Many instances, one truth"): three production instances of the app on
// one PostgreSQL database and one Redis (through an Upstash-compatible bridge), behind a local
// balancer, under simulated browsers; one instance is killed mid-traffic. Then it proves, from
// the database and from what each browser was answered, that the instances agree on the money
// and the limits: see ARCHITECTURE.md, "Many instances", for what it checks and what it does not.
// Exits 1 if any check fails. `-- --build` rebuilds the app even if a build exists.
//
// The steps, in order:
// 1. The production build, into .next-instances/ (a dist dir of its own: a concurrent
//    `npm run test:e2e` rebuilds .next-test/), only when it has none or with --build.
// 2. A fresh database `monetize_instances` on the local PostgreSQL (trust auth), migrated and
//    seeded with the demo accounts (scripts/db.ts seed), then prepared by scripts/multi/prepare.ts:
//    keys, a publisher for the limit checks, and two campaigns of sponsored cards.
// 3. The Upstash bridge of the integration tests in front of the local Redis
//    (scripts/multi/bridge.ts), the service's keys deleted before and after.
// 4. Three instances (`node scripts/serve.mjs`, as `npm start` runs), with the same database,
//    OAuth key, session secret and Redis, and the balancer (scripts/multi/balancer.mjs says why it
//    connects from the client's own address).
// 5. The traffic (scripts/multi/traffic.mjs) and, during it: a key revoked and watched on every
//    instance; the budget cut; SIGKILL of the second instance, and its restart.
// 6. The checks: the database after the roll-up (scripts/multi/checks.mjs) and `npm run money:check` on it, then the shared
//    budgets (scripts/multi/limits.mjs), then the report (scripts/multi/report.mjs).
// Everything started is stopped on any way out (success, failure, Ctrl-C), and the database dropped.
//
// Why the budget is cut. Serving paces a campaign: it fills only while what it has been billed
// today plus the ads it served and not yet billed stays below its budget times the share of the
// day gone by (ARCHITECTURE.md, Choosing an ad). So honest traffic never makes the ads served
// worth more than the budget, and the bound at billing ("Spend checked at billing") would never be
// reached. It is reached when a budget shrinks while ads are out, as when an advertiser lowers it
// mid-day: the "capped" campaign serves with a large budget until its ads served are worth the
// run's budget plus OVER_BY impressions, and the run then sets its budget to BUDGET_USD, while
// most of those ads' impressions are still to come, through all three instances at once.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { assertPortFree, cleanup, interrupted, launch, logPath, nextBuild, root, setUp, tail, waitReady } from './bench-process.mjs';
import { startBalancer } from './multi/balancer.mjs';
import { verify, snapshot, waitForRollUp } from './multi/checks.mjs';
import { agentFrom, exchange, sleep } from './multi/client.mjs';
import { budgetFigures, spend, startOfWindow, watchKey } from './multi/limits.mjs';
import { figureRows, printChecks, table, writeResults } from './multi/report.mjs';
import * as S from './multi/settings.mjs';
import { makeBrowsers, Ledger, runBrowsers } from './multi/traffic.mjs';

const TSX_CLI = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const READY_TIMEOUT_MS = 180_000;
/** A page, not an API path: the API's rate limit (40 per window per address here) would refuse a readiness poll. */
const READY_PATH = '/robots.txt';

setUp({ logPrefix: 'instances-', stopTimeoutMs: 10_000, stopping: 'the instances and the bridge' });

const databaseUrl = (() => {
  const url = new URL(S.POSTGRES_SERVER);
  url.pathname = `/${S.DATABASE_NAME}`;
  return url.toString();
})();

// ---------------------------------------------------------------------------------------------
// The database: made fresh at the start, dropped at the end, also when the run is interrupted
// (bench-process.mjs's signal handler stops the children and exits; the exit handler drops it,
// synchronously, as an exit handler must).

let databaseExists = false;
const DROP = `drop database if exists ${S.DATABASE_NAME} with (force)`;

async function freshDatabase() {
  const admin = postgres(S.POSTGRES_SERVER, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await admin.unsafe(DROP);
    await admin.unsafe(`create database ${S.DATABASE_NAME}`);
    databaseExists = true;
  } finally {
    await admin.end({ timeout: 1 });
  }
}

async function dropDatabase() {
  if (!databaseExists) return;
  const admin = postgres(S.POSTGRES_SERVER, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await admin.unsafe(DROP);
    databaseExists = false;
  } finally {
    await admin.end({ timeout: 1 });
  }
}

process.on('exit', () => {
  if (!databaseExists) return;
  const code = `import postgres from 'postgres'; const s = postgres(${JSON.stringify(S.POSTGRES_SERVER)}, { max: 1, onnotice() {} }); await s.unsafe(${JSON.stringify(DROP)}); await s.end();`;
  spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, timeout: 10_000, stdio: 'ignore' });
});

// ---------------------------------------------------------------------------------------------
// Helpers

/** `tsx <script> ...args` with `env`, asynchronously (the balancer and browsers keep running); resolves with its stdout. */
function runTsx(script, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX_CLI, script, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${script} ${args[0] ?? ''} failed: ${(err || out).trim()}`))));
  });
}

/** The first line of a child's log that parses as JSON (the bridge prints its address so). */
async function jsonLineOf(child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const lines = fs.existsSync(logPath(child.logName)) ? fs.readFileSync(logPath(child.logName), 'utf8').split('\n') : [];
    for (const line of lines) {
      if (line.startsWith('{')) return JSON.parse(line);
    }
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`${child.logName} printed nothing: ${tail(logPath(child.logName), 20)}`);
}

/** Environment of every instance: production, the shared database, secrets and Redis, the run's limits. */
function instanceEnvironment(bridgeUrl, bridgeToken) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(RATE_LIMIT_|SDK_|UPSTASH_|CACHES_OFF$|NODE_OPTIONS$|HOST$|PORT$|PGLITE_DATA_DIR$|PUBLIC_BASE_URL$)/.test(name)) delete env[name];
  }
  return {
    ...env,
    NODE_ENV: 'production',
    NEXT_DIST_DIR: S.DIST_DIR,
    NEXT_TELEMETRY_DISABLED: '1',
    DATABASE_URL: databaseUrl,
    SEED_DEMO: 'true',
    // One OAuth key and session secret for all: a token or cookie of one instance works on another.
    OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
    // The public origin is the balancer's: every instance is the same service.
    PUBLIC_BASE_URL: `http://127.0.0.1:${S.BALANCER_PORT}`,
    UPSTASH_REDIS_REST_URL: bridgeUrl,
    UPSTASH_REDIS_REST_TOKEN: bridgeToken,
    RATE_LIMIT_MAX: String(S.ADDRESS_LIMIT),
    RATE_LIMIT_WINDOW_S: String(S.WINDOW_S),
    SDK_KEY_RATE_LIMIT_MAX: String(S.KEY_LIMIT),
    ROLLUP_INTERVAL_S: String(S.ROLLUP_INTERVAL_S),
    LOG_LEVEL: 'warn',
    STOP_GRACE_MS: '5000',
  };
}

function startInstance(i, env) {
  return launch(`instance-${i + 1}`, [path.join(root, 'scripts/serve.mjs'), '-H', '127.0.0.1', '-p', String(S.INSTANCE_PORTS[i])], env);
}

async function ready(child, i) {
  const why = await waitReady(child, `http://127.0.0.1:${S.INSTANCE_PORTS[i]}${READY_PATH}`, READY_TIMEOUT_MS);
  if (why) throw new Error(`instance ${i + 1} ${why}: ${tail(logPath(child.logName), 30)}`);
}

function build() {
  const buildId = path.join(root, S.DIST_DIR, 'BUILD_ID');
  if (fs.existsSync(buildId) && !process.argv.includes('--build')) {
    const builtAt = fs.statSync(buildId).mtimeMs;
    const head = Number(spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: root, encoding: 'utf8' }).stdout.trim()) * 1000;
    const age = Math.round((Date.now() - builtAt) / 60_000);
    console.log(`Reusing the build in ${S.DIST_DIR}/ (${age} min old${head > builtAt ? '; older than the last commit: run with -- --build to rebuild' : ''})`);
    return;
  }
  return nextBuild(`the app into ${S.DIST_DIR}/`, 'build', [], { NEXT_DIST_DIR: S.DIST_DIR });
}

// ---------------------------------------------------------------------------------------------

async function main() {
  for (const port of [S.BALANCER_PORT, ...S.INSTANCE_PORTS]) await assertPortFree(port, 'stop whatever listens there, or set INSTANCES_PORT');
  await build();

  process.stdout.write(`Database ${S.DATABASE_NAME}: fresh, migrated, seeded ... `);
  await freshDatabase();
  const prepareEnv = { ...process.env, DATABASE_URL: databaseUrl, SEED_DEMO: 'true', LOG_LEVEL: 'warn' };
  await runTsx('scripts/db.ts', ['seed'], prepareEnv);
  const setup = JSON.parse(await runTsx('scripts/multi/prepare.ts', ['setup'], prepareEnv));
  console.log(`done (${setup.pausedCampaigns} demo campaigns paused; a sponsored card costs $${setup.impressionUsd})`);

  const bridgeToken = randomBytes(24).toString('base64url');
  const bridge = launch('bridge', [TSX_CLI, 'scripts/multi/bridge.ts'], { ...process.env, BRIDGE_TOKEN: bridgeToken });
  const { url: bridgeUrl, redis, deletedAtStart } = await jsonLineOf(bridge, 30_000);
  console.log(`Upstash bridge ${bridgeUrl} in front of Redis ${redis} (${deletedAtStart} stale service keys deleted)`);

  const env = instanceEnvironment(bridgeUrl, bridgeToken);
  process.stdout.write(`Starting 3 instances on ports ${S.INSTANCE_PORTS.join(', ')} ... `);
  const started = Date.now();
  const instances = S.INSTANCE_PORTS.map((_, i) => startInstance(i, env));
  await Promise.all(instances.map((child, i) => ready(child, i)));
  console.log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const log = (line) => console.log(`  ${line}`);
  // Set during the traffic: called as each request is handed to an instance.
  let dispatched = () => {};
  const balancer = await startBalancer(S.BALANCER_PORT, S.INSTANCE_PORTS, { log, onDispatch: (b) => dispatched(b) });
  console.log(`Balancer on 127.0.0.1:${S.BALANCER_PORT}`);

  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  try {
    const placementIds = setup.traffic.map((t) => t.placementId);
    await waitForRollUp(sql, 60_000); // the seed's counts: taken before the snapshot
    const before = await snapshot(sql, placementIds);

    // -----------------------------------------------------------------------------------------
    // The traffic, and what happens during it.
    const ledger = new Ledger();
    const browsers = makeBrowsers(S.CLIENTS, setup.traffic);
    const t0 = Date.now();
    const timeline = [];
    const note = (what) => {
      const s = (Date.now() - t0) / 1000;
      timeline.push({ s, what });
      log(`+${s.toFixed(1)} s  ${what}`);
    };
    const trafficEnds = t0 + S.TRAFFIC_SECONDS * 1000;
    console.log(`Traffic: ${S.CLIENTS} browsers for ${S.TRAFFIC_SECONDS} s through the balancer`);
    const traffic = runBrowsers({ browsers, port: S.BALANCER_PORT, ledger, until: () => Date.now() >= trafficEnds });

    // A key revoked while every instance has it in its directory (the watch's polls put it there).
    const watch = watchKey({ ports: S.INSTANCE_PORTS, key: setup.limits.revoked.key });
    const revocation = (async () => {
      await sleep(S.REVOKE_AT_S * 1000);
      while (!watch.warm()) await sleep(100);
      const { revokedAt } = JSON.parse(await runTsx('scripts/multi/prepare.ts', ['revoke', setup.limits.userId, setup.limits.revoked.id], prepareEnv));
      watch.revoked(revokedAt);
      note('key revoked through the console write path (revokeApiKey)');
      return watch.done;
    })();
    revocation.catch(() => {}); // awaited after the traffic; this only keeps Node from calling it unhandled meanwhile

    // The budget cut, once the capped campaign's ads served are worth the budget and OVER_BY more;
    // or sooner, should its billed impressions near the budget first (on a machine so slow that
    // few ads are out at a time): cut later, the campaign would have been billed more than the
    // new budget before it had it, and the bound checked at the end could not hold.
    const price = setup.impressionUsd;
    const cappedRecorded = () =>
      [...ledger.events.values()].filter((e) => e.campaign === 'capped' && e.type === 'impression' && e.answers.some((a) => a.status === 'recorded')).length;
    let cut;
    const cutting = (async () => {
      while (Date.now() < trafficEnds) {
        if (ledger.ads.capped * price >= S.BUDGET_USD + S.OVER_BY * price || cappedRecorded() * price >= 0.9 * S.BUDGET_USD) {
          await sql`update public.campaigns set daily_budget_micro = ${Math.round(S.BUDGET_USD * 1_000_000)} where id = ${setup.campaigns.capped.id}`;
          const recorded = cappedRecorded();
          cut = { servedUsd: ledger.ads.capped * price, recordedUsd: recorded * price };
          note(
            `capped campaign's budget cut to $${S.BUDGET_USD.toFixed(2)}: ${ledger.ads.capped} ads served ($${cut.servedUsd.toFixed(3)}), ${recorded} impressions recorded so far ($${cut.recordedUsd.toFixed(3)})`,
          );
          return;
        }
        await sleep(100);
      }
      note('the capped campaign never served enough to cut its budget: more browsers or seconds are needed');
    })();

    // SIGKILL of one instance: no goodbye, the requests in flight cut (the kill waits, up to 5 s,
    // for a moment when the balancer has handed it two or more); then a restart.
    const killing = (async () => {
      await sleep(S.KILL_AT_S * 1000);
      const inFlight = await new Promise((resolve) => {
        const kill = () => {
          dispatched = () => {};
          clearTimeout(timer);
          const n = balancer.backends[S.KILLED].inFlight;
          process.kill(-instances[S.KILLED].pid, 'SIGKILL');
          resolve(n);
        };
        const timer = setTimeout(kill, 5_000);
        dispatched = (b) => b.index === S.KILLED && b.inFlight >= 2 && kill();
      });
      note(`instance ${S.KILLED + 1} killed (SIGKILL) with ${inFlight} requests in flight through the balancer`);
      await instances[S.KILLED].exited;
      await sleep(Math.max(0, t0 + S.RESTART_AT_S * 1000 - Date.now()));
      instances[S.KILLED] = startInstance(S.KILLED, env);
      note(`instance ${S.KILLED + 1} restarting`);
      await ready(instances[S.KILLED], S.KILLED);
      note(`instance ${S.KILLED + 1} ready again`);
    })();

    await Promise.all([traffic, cutting, killing]);
    const revoked = await revocation;
    note(`traffic over: every page view finished`);

    // The revoked key after all that, on every instance (the restarted one included), and a
    // valid key beside it, so that the refusal is the key's.
    const after = [];
    const agent = agentFrom('127.88.9.1');
    for (const port of S.INSTANCE_PORTS) {
      const validate = (key) => exchange({ port, agent, path: '/functions/v1/validate-key', headers: { 'x-api-key': key } });
      after.push({ revoked: (await validate(setup.limits.revoked.key)).status, valid: (await validate(setup.traffic[0].key)).status });
    }
    agent.destroy();

    const rolledUpIn = await waitForRollUp(sql, 60_000);
    note(`roll-up done ${rolledUpIn.toFixed(1)} s later (ad_traffic_counts empty)`);
    const checks = await verify(sql, { before, placementIds, ledger, campaigns: { ...setup.campaigns, impressionUsd: price } });
    // The money's invariants (npm run money:check) on the database the killed instance wrote to.
    const money = spawnSync('npx', ['tsx', 'scripts/money-check.ts'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      encoding: 'utf8',
      timeout: 120_000,
    });
    const moneyLines = `${money.stdout ?? ''}${money.stderr ?? ''}`.trim().split('\n');
    checks.push({
      name: '`npm run money:check` passes after the kill and the restart',
      ok: money.status === 0,
      figures: [moneyLines.filter((l) => /^(FAIL|ok)/.test(l)).length + ' checks', ...moneyLines.filter((l) => !/^ok /.test(l)).slice(-12)],
    });

    // Traffic answered as it should: 200 or 204, or a failure while the instance died.
    const unexpected = Object.entries({ ...ledger.attempts.ads.byStatus, ...prefixed(ledger.attempts.events.byStatus) }).filter(
      ([status]) => !['200', '204', 'events 200'].includes(status),
    );
    const unanswered = [...ledger.events.values()].filter((e) => e.answers.length === 0).length;
    checks.unshift({
      name: 'Every request answered, after the SDK-style retries',
      ok: unanswered === 0 && ledger.ads.failed === 0 && unexpected.every(([status]) => /502|ECONNRESET|socket hang up|aborted|503/.test(status)),
      figures: [
        `${ledger.attempts.ads.total + ledger.attempts.events.total} attempts; not 200/204: ${unexpected.length ? unexpected.map(([s, n]) => `${n} × ${s}`).join(', ') : 'none'}`,
        `events never answered after every retry: ${unanswered}; ads failed after every retry: ${ledger.ads.failed}`,
      ],
    });

    checks.push({
      name: `A revoked key is refused by every instance within ${S.REVOCATION_BOUND_MS / 1000} s`,
      ok:
        revoked.every((r) => r.acceptedBefore > 0 && r.firstRefusedMs !== null && r.firstRefusedMs <= S.REVOCATION_BOUND_MS && r.acceptedAfterRefusal === 0) &&
        revoked.every((r) => r.lastAcceptedMs === null || r.lastAcceptedMs <= S.REVOCATION_BOUND_MS) &&
        after.every((a) => a.revoked === 403 && a.valid === 200),
      figures: [
        ...revoked.map(
          (r) =>
            `instance ${r.instance + 1}: accepted ${r.acceptedBefore} times before; after the revocation ${r.acceptedAfter} more (last +${r.lastAcceptedMs === null ? '0' : (r.lastAcceptedMs / 1000).toFixed(2)} s), first refused +${r.firstRefusedMs === null ? 'never' : (r.firstRefusedMs / 1000).toFixed(2)} s with ${r.refusedStatus}`,
        ),
        `after the traffic (instance ${S.KILLED + 1} restarted): revoked key ${after.map((a) => a.revoked).join(' / ')}, a valid key ${after.map((a) => a.valid).join(' / ')}`,
      ],
    });

    // -----------------------------------------------------------------------------------------
    // Shared budgets, on a quiet machine, each from the start of a window: an address's
    // (RATE_LIMIT_MAX) and a publisher's keys' (SDK_KEY_RATE_LIMIT_MAX). Counted per instance,
    // neither would refuse anything here: each instance would see a third of the requests.
    await startOfWindow(S.WINDOW_S);
    const addressBudget = {
      limit: S.ADDRESS_LIMIT,
      ...budgetFigures(
        await spend({
          port: S.BALANCER_PORT,
          concurrency: 3,
          requests: Array.from({ length: 2 * S.ADDRESS_LIMIT }, () => ({ address: '127.99.0.1', path: '/api/v1/pricing' })),
        }),
        S.WINDOW_S,
      ),
    };
    await startOfWindow(S.WINDOW_S);
    const keyBudget = {
      limit: S.KEY_LIMIT,
      ...budgetFigures(
        await spend({
          port: S.BALANCER_PORT,
          concurrency: 12,
          // Two keys of one publisher, from 50 addresses (none near its own budget).
          requests: Array.from({ length: Math.round(1.5 * S.KEY_LIMIT) }, (_, n) => ({
            address: `127.99.1.${(n % 50) + 1}`,
            path: '/functions/v1/validate-key',
            headers: { 'x-api-key': setup.limits.budget[n % 2].key },
          })),
        }),
        S.WINDOW_S,
      ),
    };
    for (const [name, b] of [
      [`One budget per address across instances (RATE_LIMIT_MAX ${S.ADDRESS_LIMIT} per ${S.WINDOW_S} s)`, addressBudget],
      [`One budget per publisher's keys across instances (SDK_KEY_RATE_LIMIT_MAX ${S.KEY_LIMIT} per ${S.WINDOW_S} s)`, keyBudget],
    ]) {
      const everyInstanceRefused = S.INSTANCE_PORTS.every((_, i) => (b.byInstance[i]?.refused ?? 0) > 0);
      // Within one window exactly the limit passes; a run that strays into the next window lets
      // through a little more there (the sliding window weighs the last one by what is left of it).
      const bound = b.windows === 1 ? b.limit : Math.ceil(b.limit * 1.25);
      checks.push({
        name,
        ok: b.allowed >= b.limit && b.allowed <= bound && everyInstanceRefused && b.other === 0,
        figures: [
          `${b.sent} requests round-robin over the three instances in ${b.seconds.toFixed(1)} s (${b.windows} window${b.windows > 1 ? 's' : ''}): ${b.allowed} allowed, ${b.refused} refused with 429, the first at request ${b.firstRefusalAt}`,
          `by instance (allowed/refused): ${Object.entries(b.byInstance)
            .map(([i, x]) => `${Number(i) + 1}: ${x.allowed}/${x.refused}`)
            .join(', ')}; counted per instance, all ${b.sent} would have been allowed`,
        ],
      });
    }

    // -----------------------------------------------------------------------------------------
    const settings = { clients: S.CLIENTS, seconds: S.TRAFFIC_SECONDS, ports: S.INSTANCE_PORTS };
    console.log('\nFigures\n');
    console.log(table(['Figure', 'Value'], figureRows({ ledger, balancer, timeline, revocation: revoked, addressBudget, keyBudget, settings })));
    console.log('\nChecks\n');
    printChecks(checks);
    const file = writeResults({
      settings: { ...settings, S },
      trafficStartedAt: t0,
      cut,
      timeline,
      revoked,
      after,
      addressBudget,
      keyBudget,
      checks,
      balancer: balancer.stats,
      ledger,
    });
    const failed = checks.filter((c) => !c.ok);
    console.log(`\n${checks.length - failed.length} passed, ${failed.length} failed; every event in ${path.relative(root, file)}`);
    return failed.length === 0 ? 0 : 1;
  } finally {
    await sql.end({ timeout: 1 });
    await balancer.close();
  }
}

function prefixed(counts) {
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [`events ${k}`, v]));
}

let code = 1;
try {
  code = await main();
} catch (err) {
  // After Ctrl-C, whatever was running fails because we stopped it: nothing to say.
  if (!interrupted) console.error(`\ntest:instances failed: ${err.stack ?? err.message}`);
} finally {
  await cleanup();
  await dropDatabase().catch((err) => console.error(`could not drop ${S.DATABASE_NAME}: ${err.message}`));
}
process.exit(code);
