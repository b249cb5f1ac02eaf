// What must hold across instances besides the money: a revoked key refused by every instance
// within 5 s, and one rate-limit budget per address and one per publisher, whichever instance
// counts a request.
import { agentFrom, exchange, sleep } from './client.mjs';

/**
 * Watches one key on every instance directly (not through the balancer, so that each answer is
 * one instance's), every `everyMs`, from rotating addresses 127.88.<instance>.<1..20> (so the
 * watch never spends an address's budget). Call `revoked(at)` once the key is revoked;
 * `done` resolves once every instance has refused it `settle` times in a row, or `giveUpMs`
 * after the revocation, with each instance's polls.
 */
export function watchKey({ ports, key, everyMs = 100, settle = 5, giveUpMs = 15_000 }) {
  let revokedAt;
  const watches = ports.map((port, i) => ({
    port,
    agents: Array.from({ length: 20 }, (_, n) => agentFrom(`127.88.${i}.${n + 1}`)),
    polls: [],
    refusedInARow: 0,
  }));
  const done = Promise.all(
    watches.map(async (w) => {
      for (let n = 0; ; n++) {
        if (revokedAt && (w.refusedInARow >= settle || Date.now() > revokedAt + giveUpMs)) break;
        const r = await exchange({
          port: w.port,
          agent: w.agents[n % w.agents.length],
          path: '/functions/v1/validate-key',
          headers: { 'x-api-key': key, 'user-agent': 'instances-revocation-watch' },
        });
        w.polls.push({ sentAt: r.sentAt, answeredAt: r.answeredAt, status: r.status ?? r.error });
        w.refusedInARow = revokedAt && r.sentAt > revokedAt && (r.status === 401 || r.status === 403) ? w.refusedInARow + 1 : 0;
        await sleep(everyMs);
      }
      for (const agent of w.agents) agent.destroy();
    }),
  );
  return {
    revoked: (at) => (revokedAt = at),
    done: done.then(() => watches.map((w, i) => revocationFigures(i, w.polls, revokedAt))),
    /** Whether every instance has answered 200 at least once: each has the key in its 4-second directory. */
    warm: () => watches.every((w) => w.polls.some((p) => p.status === 200)),
  };
}

/**
 * One instance's figures: the last poll sent after the revocation that was still accepted (its
 * directory's stale entry), the first refused one, and the status of the refusals.
 */
function revocationFigures(instance, polls, revokedAt) {
  const after = polls.filter((p) => p.sentAt >= revokedAt);
  const acceptedAfter = after.filter((p) => p.status === 200);
  const firstRefused = after.find((p) => p.status === 401 || p.status === 403);
  const lastAccepted = acceptedAfter.at(-1);
  return {
    instance,
    polls: polls.length,
    acceptedBefore: polls.filter((p) => p.sentAt < revokedAt && p.status === 200).length,
    acceptedAfter: acceptedAfter.length,
    lastAcceptedMs: lastAccepted ? lastAccepted.answeredAt - revokedAt : null,
    firstRefusedMs: firstRefused ? firstRefused.answeredAt - revokedAt : null,
    refusedStatus: firstRefused?.status ?? null,
    // After the first refusal, nothing is accepted again (an instance does not go back to a stale entry).
    acceptedAfterRefusal: firstRefused ? after.filter((p) => p.sentAt > firstRefused.answeredAt && p.status === 200).length : 0,
    others: after.filter((p) => ![200, 401, 403].includes(p.status)).map((p) => p.status),
  };
}

/** Waits until just after the start of a rate-limit window: the Upstash limiter's windows start at multiples of the window since the epoch. */
export async function startOfWindow(windowS) {
  const windowMs = windowS * 1000;
  const into = Date.now() % windowMs;
  await sleep(windowMs - into + 20);
}

/**
 * Sends `requests` (each `{ address, path, headers }`) through the balancer on `port`,
 * `concurrency` at a time, in order; answers each one's status and instance, in order sent.
 */
export async function spend({ port, requests, concurrency }) {
  const agents = new Map();
  const agentOf = (address) => agents.get(address) ?? agents.set(address, agentFrom(address)).get(address);
  const answers = new Array(requests.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const n = next++;
        const { address, path, headers } = requests[n];
        const r = await exchange({ port, agent: agentOf(address), path, headers: { 'user-agent': 'instances-limit-check', ...headers } });
        answers[n] = { status: r.status ?? r.error, instance: r.instance, sentAt: r.sentAt, answeredAt: r.answeredAt, policy: r.headers?.ratelimit };
      }
    }),
  );
  for (const agent of agents.values()) agent.destroy();
  return answers;
}

/** Allowed and refused answers, overall and by instance, and where the first refusal came. */
export function budgetFigures(answers, windowS) {
  const byInstance = {};
  for (const a of answers) {
    const b = (byInstance[a.instance ?? '?'] ??= { allowed: 0, refused: 0 });
    if (a.status === 429) b.refused++;
    else if (a.status === 200) b.allowed++;
  }
  const allowed = answers.filter((a) => a.status === 200).length;
  const refused = answers.filter((a) => a.status === 429).length;
  const first = answers.findIndex((a) => a.status === 429);
  const windowMs = windowS * 1000;
  const windows = new Set(answers.map((a) => Math.floor(a.sentAt / windowMs))).size;
  return {
    sent: answers.length,
    allowed,
    refused,
    other: answers.length - allowed - refused,
    firstRefusalAt: first < 0 ? null : first + 1,
    byInstance,
    seconds: (Math.max(...answers.map((a) => a.answeredAt)) - Math.min(...answers.map((a) => a.sentAt))) / 1000,
    windows,
  };
}
