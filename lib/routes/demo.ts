import { demoChat } from '../demo/chat';
import { ROUTES } from '../schemas/registry';
import { defineRoute } from './kernel';

/** POST /api/demo/chat: the demo chat's answer, streamed, with the ad its server asked for as the last chunk (lib/demo/chat.ts). */
export const demoChatRoute = defineRoute(ROUTES['/api/demo/chat'], {
  POST: ({ body, request, clientIp, services }) => demoChat(body, { ip: clientIp, userAgent: request.headers.get('user-agent') ?? '' }, services),
});
