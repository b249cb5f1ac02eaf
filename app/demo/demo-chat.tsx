'use client';

import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { createClient, type MonetizeEvent } from '../../packages/sdk/src/index';
import { MonetizeAd } from '../../packages/sdk/src/react';
import type { DemoFormat } from '@/lib/demo/page';

/** Canned answers: the demo is about the ads, not the AI. */
const ANSWERS = [
  'Here is a five-question quiz on the water cycle: 1. What drives evaporation? 2. Where does condensation happen? 3. Name two kinds of precipitation. 4. What is runoff? 5. How does water return to the air from plants?',
  'Flashcards for photosynthesis: light reactions happen in the thylakoids; the Calvin cycle fixes carbon in the stroma; oxygen comes from split water molecules.',
  'A warm-up for fractions: add 1/3 and 1/6, then simplify. Next, which is larger, 3/5 or 5/8? Finally, write 0.75 as a fraction.',
  'Three questions about the French Revolution: when did the Estates-General meet, what was the Tennis Court Oath, and why did the monarchy fall in 1792?',
];

interface Message {
  role: 'user' | 'assistant';
  text: string;
}

export function DemoChat({ apiKey, placements }: { apiKey: string; placements: Record<DemoFormat, string> }) {
  const client = useMemo(() => createClient({ key: apiKey }), [apiKey]);
  const [events, setEvents] = useState<string[]>([]);
  const [messages, setMessages] = useState<Message[]>([
    { role: 'user', text: 'Make me a quiz about the water cycle.' },
    { role: 'assistant', text: ANSWERS[0]! },
  ]);
  const [draft, setDraft] = useState('');

  useEffect(
    () =>
      client.on((e: MonetizeEvent) =>
        setEvents((list) => [
          ...list.slice(-19),
          `${e.type}${e.ad ? `: ${e.ad.format} from ${e.ad.ad.advertiser}` : e.placementId ? `: ${e.placementId}` : ''}`,
        ]),
      ),
    [client],
  );

  function ask(event: FormEvent) {
    event.preventDefault();
    const question = draft.trim();
    if (!question) return;
    setDraft('');
    setMessages((list) => [...list, { role: 'user', text: question }, { role: 'assistant', text: ANSWERS[(list.length / 2) % ANSWERS.length]! }]);
  }

  return (
    <div className="demo-app">
      <section className="demo-chat" aria-label="Chat with Quizly">
        <ol className="demo-messages">
          {messages.map((m, i) => (
            <li key={i} className={`demo-message demo-${m.role}`}>
              <p>{m.text}</p>
              {m.role === 'assistant' && (
                <MonetizeAd
                  client={client}
                  placementId={placements.inline_text}
                  format="inline_text"
                  keywords={['quiz', 'learning']}
                  className="demo-inline-ad"
                />
              )}
            </li>
          ))}
        </ol>
        <form className="demo-ask" onSubmit={ask}>
          <label htmlFor="demo-question">Ask Quizly</label>
          <input id="demo-question" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Make me a quiz about…" autoComplete="off" />
          <button type="submit">Send</button>
        </form>
      </section>

      <section className="demo-events" aria-label="What the SDK did">
        <h2>What the SDK did</h2>
        <ol aria-live="polite" data-testid="sdk-events">
          {events.map((e, i) => (
            <li key={i}>{e}</li>
          ))}
        </ol>
      </section>

      <section className="demo-more" aria-label="More from Quizly">
        <h2>More from Quizly</h2>
        <p>Quizly turns any document into quizzes, flashcards and short lessons. Teachers share them with a class; students practise before exams.</p>
        <p>Scroll on: the sponsored card below counts as seen only once half of it has been in view for a whole second.</p>
        <div className="demo-spacer" aria-hidden="true" />
        <MonetizeAd
          client={client}
          placementId={placements.sponsored_card}
          format="sponsored_card"
          keywords={['learning']}
          fallback={() => {
            const note = document.createElement('p');
            note.className = 'demo-fallback';
            note.textContent = 'Quizly Pro: unlimited quizzes for your whole class.';
            return note;
          }}
          className="demo-card-ad"
        />
        <div className="demo-spacer" aria-hidden="true" />
      </section>

      <MonetizeAd client={client} placementId={placements.floating_video} format="floating_video" />
    </div>
  );
}
