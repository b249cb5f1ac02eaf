// One HTTP exchange from a chosen loopback address, and the SDK's way of retrying one.
import http from 'node:http';
import { INSTANCE_HEADER } from './balancer.mjs';
import { REQUEST_TIMEOUT_MS, RETRY_DELAYS_MS } from './settings.mjs';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A keep-alive pool whose connections leave from `address` (any of 127.0.0.0/8). */
export const agentFrom = (address) => new http.Agent({ keepAlive: true, maxSockets: 4, localAddress: address });

/**
 * Sends one request to 127.0.0.1:`port` through `agent`; resolves (never rejects) with
 * `{ status, headers, text, json, instance, sentAt, answeredAt }` or `{ error, sentAt, answeredAt }`.
 * `instance` is the balancer's INSTANCE_HEADER (0-based), when the balancer answered for one.
 */
export function exchange({ port, agent, method = 'GET', path, headers = {}, body }) {
  return new Promise((resolve) => {
    const sentAt = Date.now();
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...result, sentAt, answeredAt: Date.now() });
    };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          const instance = res.headers[INSTANCE_HEADER] === undefined ? undefined : Number(res.headers[INSTANCE_HEADER]);
          finish({ status: res.statusCode, headers: res.headers, text, json, instance });
        });
        res.on('error', (err) => finish({ error: err.code ?? err.message }));
        res.on('aborted', () => finish({ error: 'aborted' }));
      },
    );
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })), REQUEST_TIMEOUT_MS);
    req.on('error', (err) => finish({ error: err.code ?? err.message }));
    req.end(payload);
  });
}

/** What the SDK retries: a network failure, a 429 or a 5xx (ARCHITECTURE.md, The browser SDK). */
export const retriable = (r) => r.error !== undefined || r.status === 429 || r.status >= 500;

/**
 * The request, then the same request again after each of RETRY_DELAYS_MS while the answer is
 * retriable; `onAttempt(result, attempt)` sees every attempt. Resolves with the last answer.
 */
export async function withRetries(request, onAttempt) {
  for (let attempt = 0; ; attempt++) {
    const r = await exchange(request);
    onAttempt(r, attempt);
    if (!retriable(r) || attempt >= RETRY_DELAYS_MS.length) return r;
    await sleep(RETRY_DELAYS_MS[attempt]);
  }
}
