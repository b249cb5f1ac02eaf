/** What a handler answers: a JSON reply, or a Response of its own (HTML, redirects, streams). */
export type Answer = JsonReply | Response;

/** A JSON answer: its text, status and any headers of its own (`Content-Type` is the kernel's). */
export interface JsonReply {
  readonly kind: 'json';
  readonly status: number;
  readonly text: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): JsonReply {
  return jsonText(JSON.stringify(body), init);
}

/** A JSON answer from its text (for answers serialised ahead of time). */
export function jsonText(text: string, init: { status?: number; headers?: Record<string, string> } = {}): JsonReply {
  return { kind: 'json', status: init.status ?? 200, text, headers: init.headers };
}
