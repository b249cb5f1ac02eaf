import { z } from 'zod';

/**
 * `POST /api/demo/chat`: the demo chat's conversation, newest last, for its canned answer and the ad
 * its server asks for beside it (lib/demo/chat.ts). Bounded like anything a page may send.
 */
export const demoChatRequest = z.object({
  messages: z
    .array(
      z.object({
        role: z.enum(['user', 'assistant'], 'role: user or assistant'),
        content: z.string().min(1, 'content: the message’s text').max(2000, 'content: at most 2,000 characters'),
      }),
    )
    .min(1, 'at least one message: the question')
    .max(40, 'at most 40 messages')
    .refine((m) => m.length === 0 || m[m.length - 1]!.role === 'user', 'the last message is the question: role user'),
});
export type DemoChatRequest = z.output<typeof demoChatRequest>;
