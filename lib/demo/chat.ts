import { appendAd, createServerClient, type ServerAd } from '../../packages/server/src/index';
import type { DemoChatRequest } from '../schemas/demo';
import { issuer } from '../identity/oauth/resources';
import { log } from '../platform/log';
import type { Database } from '../platform/db/roles';
import { answerTo } from './answers';
import { demoServer } from './page';

/**
 * `POST /api/demo/chat`: the demo chat answers from its server, as an AI app whose server calls its
 * model does. The answer streams (a canned one, word by word, standing for the model's), the ad
 * requests for its inline placement and its sponsored follow-up start beside it with the demo
 * app's server key and the user's client, and `appendAd` adds each ad after the answer's last word. The page reads the ad
 * from the text (`findAd`) and the browser SDK shows it and counts it (`client.show`), from the
 * client the request was bound to. The conversation goes to the ad request and nowhere else.
 */

/** How long the demo's ad request may take: its answer streams for longer than this anyway. */
const AD_TIMEOUT_MS = 1500;
/** The pause between two words of the answer, as a model's tokens arrive. */
const WORD_MS = 15;

export interface DemoChatServices {
  database(): Promise<Database>;
  /** How the demo's server reaches the service (tests answer in process); the platform's `fetch` by default. */
  fetch?: typeof fetch;
}

export async function demoChat(request: DemoChatRequest, client: { ip: string; userAgent: string }, services: DemoChatServices): Promise<Response> {
  const messages = request.messages;
  const question = messages[messages.length - 1]!.content;
  const answer = answerTo(question, messages.filter((m) => m.role === 'user').length - 1);
  const server = await demoServer(() => services.database());
  const ads = server
    ? createServerClient({
        key: server.key,
        baseUrl: issuer(),
        timeoutMs: AD_TIMEOUT_MS,
        fetch: services.fetch,
        onNoAd: (why) => {
          if (why.reason !== 'no_fill') log.warn('demo chat: no ad', { why: why.reason });
        },
      })
    : null;
  // Both started before the first word: they run while the answer streams. The follow-up (a
  // suggested next question) comes after the inline ad, so it is the answer's very last chunk.
  const ad: Promise<ServerAd | null> = ads && server ? ads.getAd({ placementId: server.placement, messages, client }) : Promise.resolve(null);
  const followUp: Promise<ServerAd | null> = ads && server?.followUp ? ads.getAd({ placementId: server.followUp, messages, client }) : Promise.resolve(null);
  return new Response(appendAd(appendAd(words(answer), ad), followUp).pipeThrough(new TextEncoderStream()), {
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
  });
}

/** The answer word by word, a short pause apart, as a model streams it. */
function words(answer: string): ReadableStream<string> {
  const parts = answer.match(/\S+\s*/g) ?? [];
  let next = 0;
  return new ReadableStream<string>({
    async pull(controller) {
      if (next >= parts.length) return controller.close();
      if (next > 0) await new Promise((resolve) => setTimeout(resolve, WORD_MS));
      controller.enqueue(parts[next++]!);
    },
  });
}
