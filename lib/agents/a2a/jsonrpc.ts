import { A2A_VERSION_HEADER, AgentCard, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { A2A_ERROR_CODE, ContentTypeNotSupportedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, JsonRpcTransportHandler, UnauthenticatedUser, defaultServerCallContextBuilder, validateVersion } from '@a2a-js/sdk/server';
import { log, describeError } from '../../platform/log';
import { ApiError } from '../../platform/http/errors';
import { JsonTooDeep, MAX_JSON_DEPTH, parseJson, readText } from '../../platform/http/input';
import { json, type JsonReply } from '../../platform/http/kernel';
import { absoluteUrl } from '../../platform/http/responses';
import type { AskAnswers } from '../../docs/ask/answer';
import type { LivePricing } from '../../money/pricing/settings';
import { agentCard } from './card';
import { MonetizeAgentExecutor, TaskBusManager } from './executor';
import { DatabaseTaskStore } from './task-store';
import type { Database } from '../../platform/db/roles';

/**
 * The A2A JSON-RPC binding for a route handler: what the SDK's Express `jsonRpcHandler` does,
 * for a web `Request`. Every JSON-RPC answer, errors included, is HTTP 200 with a JSON-RPC body,
 * except an internal error (500, saying nothing internal). Streaming methods answer the SDK's
 * error at once: the card declares no streaming, so no stream is ever opened.
 */

type JsonRpcId = string | number | null;

type Agent = { base: string; transport: JsonRpcTransportHandler; handler: DefaultRequestHandler };
/** What the agent needs of the services: prices to quote, answers given, and the database its tasks are kept in. */
export interface AgentServices {
  readonly pricing: LivePricing;
  readonly caches: { readonly askAnswers: AskAnswers };
  database(): Promise<Database>;
}
const agents = new WeakMap<LivePricing, Agent>();

/**
 * One agent per process (per set of services, and per base URL, which tests change). Its tasks
 * are in the database (DatabaseTaskStore), shared by every instance.
 */
function theAgent(services: AgentServices): Agent {
  const base = absoluteUrl('');
  let agent = agents.get(services.pricing);
  if (agent?.base !== base) {
    const store = new DatabaseTaskStore(() => services.database());
    const handler = new DefaultRequestHandler(
      agentCard(),
      store,
      new MonetizeAgentExecutor(services.pricing, services.caches.askAnswers),
      new TaskBusManager(),
    );
    agents.set(services.pricing, (agent = { base, handler, transport: new JsonRpcTransportHandler(handler) }));
  }
  return agent;
}

/** The card as the SDK serialises it (proto JSON: empty fields left out). */
export async function agentCardJson(services: AgentServices): Promise<unknown> {
  return AgentCard.toJSON(await theAgent(services).handler.getAgentCard());
}

/** What an internal error answers: nothing of its cause, which is logged. */
const INTERNAL_MESSAGE = 'The agent could not complete the request.';

const rpcError = (id: JsonRpcId, error: { code: number; message: string; data?: unknown }, status = 200) => json({ jsonrpc: '2.0', id, error }, { status });

function idOf(body: unknown): JsonRpcId {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';
}

/** Answers one POST /a2a. */
export async function answerJsonRpc(request: Request, services: AgentServices): Promise<JsonReply> {
  const contentType = request.headers.get('content-type');
  // As the SDK's Express guard: no Content-Type is read as JSON; another one is refused.
  if (contentType && contentType.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
    const error = new ContentTypeNotSupportedError(`Unsupported Content-Type "${contentType}"; expected application/json.`);
    return rpcError(null, JsonRpcTransportHandler.mapToJSONRPCError(error));
  }
  let body: unknown;
  try {
    body = parseJson(await readText(request));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // Refused before the SDK walks it: its recursion overflows the stack on deep nesting, and
    // the overflow's message would be the answer. JSON-RPC 2.0 §5.1: not a valid request.
    if (err instanceof JsonTooDeep) {
      return rpcError(idOf(err.value), {
        code: A2A_ERROR_CODE.INVALID_REQUEST,
        message: `The request nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
      });
    }
    // JSON-RPC 2.0 §5.1: invalid JSON is a parse error, and its id is null.
    return rpcError(null, { code: A2A_ERROR_CODE.PARSE_ERROR, message: 'Invalid JSON payload.' });
  }

  const id = idOf(body);
  try {
    const { handler, transport } = theAgent(services);
    const context = defaultServerCallContextBuilder({
      extensions: Extensions.parseServiceParameter(request.headers.get(HTTP_EXTENSION_HEADER) ?? undefined),
      user: new UnauthenticatedUser(),
      headers: Object.fromEntries(request.headers),
      // Absent, the SDK reads 0.3, which this agent does not speak: v1.0 clients send `A2A-Version: 1.0`.
      requestedVersion: request.headers.get(A2A_VERSION_HEADER) || undefined,
    });
    validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
    // The transport checks the shape (JSON-RPC 2.0 §4) and answers -32600 for anything else.
    const answer = await transport.handle(body as Record<string, unknown>, context);
    if (isAsyncIterable(answer)) {
      // SendStreamingMessage and SubscribeToTask: the SDK refuses them on the first step, since
      // the card declares no streaming. Should one ever produce an event, it is closed unread.
      const events = answer[Symbol.asyncIterator]();
      await events.next();
      await events.return?.();
      throw new UnsupportedOperationError('Streaming is not supported.');
    }
    // The SDK answers an error thrown inside the agent itself, with that error's own message
    // (a database error, a stack overflow): an internal one is logged and answered as below.
    const failed = (answer as { error?: { code?: unknown; message?: unknown } }).error;
    if (failed?.code === A2A_ERROR_CODE.INTERNAL_ERROR) {
      log.error('a2a: internal error', { message: String(failed.message) });
      return rpcError(id, { code: A2A_ERROR_CODE.INTERNAL_ERROR, message: INTERNAL_MESSAGE }, 500);
    }
    const headers = context.activatedExtensions?.length ? { [HTTP_EXTENSION_HEADER]: context.activatedExtensions.join(',') } : undefined;
    return json(answer, { headers });
  } catch (err) {
    const error = JsonRpcTransportHandler.mapToJSONRPCError(err);
    if (error.code !== A2A_ERROR_CODE.INTERNAL_ERROR) return rpcError(id, error);
    log.error('a2a: internal error', describeError(err));
    return rpcError(id, { code: error.code, message: INTERNAL_MESSAGE }, 500);
  }
}
