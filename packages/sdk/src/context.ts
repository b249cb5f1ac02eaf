import type { ContextMessage } from './types';

/** What the service takes of a conversation: its latest 6 messages, 4,000 characters in all. */
export const CONTEXT_LIMITS = { messages: 6, characters: 4000 };

/**
 * The latest messages of a conversation as the service takes them: users' and assistants' only,
 * trimmed, without empty ones, the newest kept first up to CONTEXT_LIMITS; of a message that would
 * go past the characters, its end.
 */
export function trimContext(messages: readonly ContextMessage[]): ContextMessage[] {
  const kept: ContextMessage[] = [];
  let left = CONTEXT_LIMITS.characters;
  for (let i = messages.length - 1; i >= 0 && kept.length < CONTEXT_LIMITS.messages && left > 0; i--) {
    const m = messages[i];
    const content = String(m?.content ?? '').trim();
    if ((m?.role !== 'user' && m?.role !== 'assistant') || !content) continue;
    // Its end, without the second half of a character cut in two.
    const part = content
      .slice(-left)
      .replace(/^[\uDC00-\uDFFF]/, '')
      .trim();
    if (!part) break;
    kept.unshift({ role: m.role, content: part });
    left -= part.length;
  }
  return kept;
}
