import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
import { absoluteUrl } from '../../platform/http/responses';
import { QUESTION_MAX } from '../../schemas/ask';

/**
 * The agent card (A2A v1.0 §8), served at /.well-known/agent-card.json. One JSON-RPC interface at
 * /a2a; no streaming and no push notifications: every task completes within the call that
 * created it. No security scheme: the agent reads only public content and prices.
 */

const TEXT = 'text/plain';
const JSON_MEDIA = 'application/json';

function skill(s: Pick<AgentSkill, 'id' | 'name' | 'description' | 'tags' | 'examples'>): AgentSkill {
  return { ...s, inputModes: [TEXT], outputModes: [TEXT, JSON_MEDIA], securityRequirements: [] };
}

export function agentCard(): AgentCard {
  return {
    name: 'Monetize',
    description: `Answers questions about Monetize, the monetization platform for AI apps, from its docs and its live prices, citing the pages each answer comes from. Send one question of 1 to ${QUESTION_MAX} characters as a text part; each message gets a completed task in the same call. Public: it reads no publisher's account.`,
    supportedInterfaces: [{ url: absoluteUrl('/a2a'), protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION, tenant: '' }],
    provider: { organization: 'Monetize', url: absoluteUrl('/') },
    version: '1.0.0',
    documentationUrl: absoluteUrl('/docs/agents'),
    capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: [TEXT],
    defaultOutputModes: [TEXT, JSON_MEDIA],
    skills: [
      skill({
        id: 'docs',
        name: 'Docs questions',
        description:
          'Answers a question about how Monetize works (the product, the REST API, OAuth, the SDK, payouts) with sentences from the best-matching passages of the docs, each cited by its page and section URL. The same answers as /ask.',
        tags: ['docs', 'questions', 'citations'],
        examples: ['How long does an access token last?', 'How do I revoke an API key?', 'What does fill rate mean?'],
      }),
      skill({
        id: 'pricing',
        name: 'Pricing',
        description:
          'Answers with the live prices: revenue shares, advertiser CPMs per ad format, data-set prices, the exclusive license multiplier and the minimum payout, citing the sections of the pricing page. Chosen for questions about prices, or with `"skill": "pricing"` in the message metadata.',
        tags: ['pricing', 'payouts', 'cpm'],
        examples: ['What is the minimum payout?', 'What is the CPM of a tooltip?', 'How much of the ad revenue does a publisher keep?'],
      }),
    ],
    signatures: [],
  };
}
