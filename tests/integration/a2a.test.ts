import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentCard, Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { env } from '@/lib/platform/env';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { DEFAULT_PRICING } from '@/lib/money/pricing/defaults';
import { PGLITE, suiteDatabase, UNLIMITED } from '../helpers/db';
import { inProcessFetch as routeFetch } from '../helpers/in-process-fetch';
import { makeServices, setTestServices } from '../helpers/services';
import { rawAsService } from '../helpers/roles';

/**
 * Interoperability: the A2A SDK's own client reads the agent card and, asked "What is the
 * minimum payout?", gets an answer that cites a docs URL of the service. The client talks to the
 * route handlers in process, through a fetch that dispatches on the path (loopback only).
 */

/** The service's routes, called in process: what the A2A client's `fetch` reaches. */
const inProcessFetch = routeFetch(['/a2a', '/.well-known/agent-card.json'], { clientIp: '192.0.2.61' });

const base = () => env().PUBLIC_BASE_URL;

/** A raw JSON-RPC POST to /a2a, for what the client would never send. */
async function post(body: string, headers: Record<string, string> = { 'A2A-Version': '1.0' }): Promise<Response> {
  return inProcessFetch(`${base()}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

const userMessage = (text: string, metadata?: Record<string, unknown>): Message => ({
  messageId: randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
  metadata,
  extensions: [],
  referenceTaskIds: [],
});

const send = (client: Client, text: string, metadata?: Record<string, unknown>) =>
  client.sendMessage({ tenant: '', message: userMessage(text, metadata), configuration: undefined, metadata: undefined });

const texts = (parts: Part[] = []) => parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));
const data = (parts: Part[] = []) => parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as Record<string, unknown>] : []));

function asTask(result: Task | Message): Task {
  expect('status' in result, 'SendMessage returns a task').toBe(true);
  return result as Task;
}

const suite = suiteDatabase(PGLITE, { unlimited: true });
let client: Client;

beforeAll(async () => {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: inProcessFetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: inProcessFetch }),
    }),
  );
  client = await factory.createFromUrl(base());
});
// Fresh services for each test: no pricing read reused from another test.
beforeEach(() => setTestServices(makeServices({ database: suite.db, rateLimiter: UNLIMITED() })));

describe('the agent card', () => {
  it('is read by the SDK client: name, skills docs and pricing, one JSON-RPC interface at /a2a', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('Monetize');
    expect(card.skills.map((s) => s.id)).toEqual(['docs', 'pricing']);
    for (const skill of card.skills) expect(skill.examples.length).toBeGreaterThan(0);
    expect(card.supportedInterfaces).toHaveLength(1);
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${base()}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: false });
    expect(card.documentationUrl).toBe(`${base()}/docs/agents`);
    expect(client.protocolVersion).toBe('1.0');
  });

  it('is served as JSON, public and cacheable, in the form the SDK parses back', async () => {
    const res = await inProcessFetch(`${base()}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=300');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const json = await res.json();
    expect(json).toMatchObject({ name: 'Monetize', supportedInterfaces: [{ url: `${base()}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
    expect(AgentCard.fromJSON(json).skills).toHaveLength(2);
  });
});

describe('SendMessage through the SDK client', () => {
  it('answers "What is the minimum payout?" with a completed task citing a page of the service, in the same call', async () => {
    const task = asTask(await send(client, 'What is the minimum payout?'));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const reply = texts(task.status?.message?.parts).join('\n');
    expect(reply).toMatch(/\b50 USD\b/);
    const cited = [...reply.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]);
    expect(cited.length).toBeGreaterThan(0);
    for (const url of cited) expect(url.startsWith(`${base()}/`)).toBe(true);
    expect(cited).toContain(`${base()}/pricing#minimum-payout`);
    // …and a page of the docs that explains it.
    expect(cited.some((u) => new RegExp(`^${base()}/docs/[a-z-]+#[a-z0-9-]+$`).test(u))).toBe(true);

    // The artifact carries the same text and the structured answer.
    const [artifact] = task.artifacts;
    expect(texts(artifact?.parts).join('\n')).toBe(reply);
    const [answer] = data(artifact?.parts);
    expect(answer).toMatchObject({ skill: 'pricing', question: 'What is the minimum payout?', found: true });
    expect(answer!.citations).toEqual([
      expect.objectContaining({ title: 'Pricing', url: `${base()}/pricing#minimum-payout` }),
      expect.objectContaining({ url: expect.stringMatching(new RegExp(`^${base()}/docs/`)) }),
    ]);
    expect((answer!.pricing as { min_payout_usd: number }).min_payout_usd).toBe(50);
  });

  it('answers pricing questions with the live values', async () => {
    await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set min_payout_micro = 75000000, cpm_tooltip_micro = 4500000'));
    try {
      const payout = asTask(await send(client, 'What is the minimum payout?'));
      expect(texts(payout.status?.message?.parts).join('\n')).toMatch(/minimum payout is 75 USD/);
      const cpm = asTask(await send(client, 'What is the CPM of a tooltip?'));
      const reply = texts(cpm.status?.message?.parts).join('\n');
      expect(reply).toMatch(/tooltip 4\.5 USD/);
      expect(reply).toContain(`${base()}/pricing#advertiser-cpm-by-ad-format`);
      expect(reply).toMatch(/live values/);
    } finally {
      await rawAsService(suite.db, (q) =>
        q.query('update public.pricing_settings set min_payout_micro = $1, cpm_tooltip_micro = $2', [
          DEFAULT_PRICING.min_payout_usd * 1_000_000,
          DEFAULT_PRICING.advertiser_cpm_usd.tooltip * 1_000_000,
        ]),
      );
    }
  });

  it('answers docs questions from the docs, as /ask does, and takes the skill named in the metadata', async () => {
    const task = asTask(await send(client, 'How long does an access token last?'));
    const [answer] = data(task.artifacts[0]?.parts);
    expect(answer).toMatchObject({ skill: 'docs', found: true });
    expect(texts(task.status?.message?.parts).join('\n')).toMatch(/one hour/);

    const docs = asTask(await send(client, 'What is the minimum payout?', { skill: 'docs' }));
    const [docsAnswer] = data(docs.artifacts[0]?.parts);
    expect(docsAnswer).toMatchObject({ skill: 'docs', found: true });
    expect(texts(docs.status?.message?.parts).join('\n')).toMatch(/50 USD/);
  });

  it('rejects a message without a question, or with one over 500 characters, saying why', async () => {
    for (const text of ['   ', 'x'.repeat(501)]) {
      const task = asTask(await send(client, text));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
      expect(texts(task.status?.message?.parts).join('')).toMatch(/500 characters/);
    }
  });

  it('says so when the docs have no answer, and cites nothing', async () => {
    const task = asTask(await send(client, 'Xyzzy plugh frobnicate?'));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const reply = texts(task.status?.message?.parts).join('\n');
    expect(reply).toMatch(/could not find/);
    expect(reply).not.toMatch(/Sources:/);
    expect(data(task.artifacts[0]?.parts)[0]).toMatchObject({ found: false, citations: [] });
  });

  it('keeps the task for GetTask, refuses to list tasks and to cancel a completed one', async () => {
    const task = asTask(await send(client, 'How do I revoke an API key?'));
    const again = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.artifacts).toHaveLength(1);
    await expect(
      client.listTasks({
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: undefined,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: undefined,
      }),
    ).rejects.toThrow(/not listed/);
    await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(/not cancelable/i);
  });

  it('answers GetTask on another instance than the one that ran the task (tasks are in the database)', async () => {
    const task = asTask(await send(client, 'What is the minimum payout?'));
    // Another instance: services of its own (its own agent and store), the same database.
    setTestServices(makeServices({ database: suite.db, rateLimiter: UNLIMITED() }));
    const again = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(again.id).toBe(task.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(texts(again.status?.message?.parts)).toEqual(texts(task.status?.message?.parts));
    await expect(client.getTask({ tenant: '', id: randomUUID(), historyLength: undefined })).rejects.toThrow(/not found/i);
  });

  it('falls back to SendMessage when the client asks for a stream (the card declares none)', async () => {
    const events = [];
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: userMessage('What is the minimum payout?'),
      configuration: undefined,
      metadata: undefined,
    }))
      events.push(event);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload?.$case).toBe('task');
  });
});

describe('JSON-RPC over HTTP at /a2a', () => {
  const rpc = (method: string, params: unknown = {}, id: number | string = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

  it('answers SendMessage in v1.0 JSON (what the docs show with curl)', async () => {
    const res = await post(rpc('SendMessage', { message: { role: 'ROLE_USER', messageId: randomUUID(), parts: [{ text: 'What is the minimum payout?' }] } }));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } } });
    const artifact = body.result.task.artifacts[0];
    expect(artifact.parts[0].text).toContain(`${base()}/pricing#minimum-payout`);
    expect(artifact.parts[1]).toMatchObject({ mediaType: 'application/json', data: { skill: 'pricing', found: true } });
    expect(res.headers.get('X-RateLimit-Limit')).toBeTruthy();
    expect(res.headers.get('Cache-Control')).toBe('no-store');
  });

  it('answers malformed JSON with the parse error -32700 and id null', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
  });

  it('answers an error inside the agent with HTTP 500 and -32603, saying nothing of its cause', async () => {
    const cause = 'connect ECONNREFUSED 10.1.2.3:5432 (internal detail)';
    setTestServices(makeServices({ database: () => Promise.reject(new Error(cause)), rateLimiter: UNLIMITED() }));
    const res = await post(rpc('GetTask', { id: randomUUID() }, 9));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('ECONNREFUSED');
    expect(text).not.toContain('internal detail');
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'The agent could not complete the request.' } });
  });

  describe('a request nested deeper than 64 levels', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const message = (extra: string) =>
      `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"${randomUUID()}","parts":[${extra}]}}}`;

    it.each([
      ['in a message metadata', () => message(`{"text":"What is the minimum payout?","metadata":{"a":${nested(9000)}}}`)],
      ['in a data part', () => message(`{"data":${deepObject(9000)}}`)],
      ['in params', () => `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":${nested(9000)}}`],
      ['just past the limit', () => message(`{"text":"hi","metadata":{"a":${nested(59)}}}`)],
    ])('is refused up front with -32600 invalid request, never an internal message (%s)', async (_where, body) => {
      const res = await post(body());
      expect(res.status).toBe(200);
      const json = await res.json();
      expect(json).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'The request nests arrays and objects more than 64 levels deep.' } });
    });

    it('answers -32600 with id null when the id itself is what is nested', async () => {
      const res = await post(`{"jsonrpc":"2.0","id":${nested(9000)},"method":"SendMessage","params":{}}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    });

    it('still answers a message whose metadata is nested exactly 64 levels deep in all', async () => {
      // 64 levels in all: the request, params, message, parts, the part, metadata, then 58 arrays.
      const res = await post(message(`{"text":"What is the minimum payout?","metadata":{"a":${nested(58)}}}`));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: 7, result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } } });
    });
  });

  it('answers an unknown method with -32601', async () => {
    const res = await post(rpc('message/explode', {}, 'x-7'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 'x-7', error: { code: -32601 } });
  });

  it('answers a request that is not JSON-RPC 2.0 with an error, not a crash', async () => {
    for (const body of ['[]', 'null', '{"id": 1, "method": "SendMessage"}', '{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}}']) {
      const res = await post(body);
      expect(res.status, body).toBe(200);
      const json = await res.json();
      expect(json.error.code, body).toBeLessThan(0);
      expect(json.error.code, body).not.toBe(-32603);
    }
  });

  it('answers the streaming methods with the SDK error at once: no stream is opened', async () => {
    for (const method of ['SendStreamingMessage', 'SubscribeToTask']) {
      const params = method === 'SubscribeToTask' ? { id: randomUUID() } : { message: { role: 'ROLE_USER', messageId: randomUUID(), parts: [{ text: 'hi' }] } };
      const res = await post(rpc(method, params));
      expect(res.status).toBe(200);
      expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({ id: 1, error: { code: -32004, message: expect.stringMatching(/[Ss]treaming/) } });
    }
  });

  it('refuses push notification configs: the card declares none', async () => {
    const res = await post(rpc('CreateTaskPushNotificationConfig', { taskId: randomUUID(), url: 'https://example.com/hook' }));
    expect((await res.json()).error.code).toBe(-32003);
  });

  it('requires A2A-Version 1.0: without it the SDK reads 0.3 and answers -32009', async () => {
    for (const headers of [{}, { 'A2A-Version': '0.3' }, { 'A2A-Version': '2.0' }] as Record<string, string>[]) {
      const res = await post(
        rpc('SendMessage', { message: { role: 'ROLE_USER', messageId: randomUUID(), parts: [{ text: 'What is the minimum payout?' }] } }),
        headers,
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: 1, error: { code: -32009 } });
    }
  });

  it('refuses a body that is not JSON with -32005', async () => {
    const res = await inProcessFetch(`${base()}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'A2A-Version': '1.0' },
      body: rpc('SendMessage'),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: null, error: { code: -32005 } });
  });

  it('refuses a body over 64 KiB with 413 before reading it as JSON-RPC', async () => {
    const res = await post(rpc('SendMessage', { message: { role: 'ROLE_USER', messageId: randomUUID(), parts: [{ text: 'x'.repeat(70_000) }] } }));
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('payload_too_large');
  });

  it('answers GET with 405 in the error envelope', async () => {
    const res = await inProcessFetch(`${base()}/a2a`);
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('POST, OPTIONS');
    expect(await res.json()).toEqual({ error: { status: 405, code: 'method_not_allowed', message: expect.any(String) } });
  });

  it('is rate limited: the 121st request in the window is 429 with Retry-After', async () => {
    setTestServices(makeServices({ database: suite.db, rateLimiter: new MemoryRateLimiter({ max: 120, windowSeconds: 60 }) }));
    try {
      for (let i = 0; i < 120; i++) expect((await post(rpc('GetTask', { id: randomUUID() }))).status).toBe(200);
      const refused = await post(rpc('GetTask', { id: randomUUID() }));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect(refused.headers.get('RateLimit-Policy')).toBe('"default";q=120;w=60');
    } finally {
      setTestServices(makeServices({ database: suite.db, rateLimiter: UNLIMITED() }));
    }
  });
});
