// The conversation `npm run bench` sends with POST /functions/v1/ads: six messages, just under
// the 4,000 characters a request may hold, about keeping meeting notes, as a chat app would send
// the latest turns beside its answer. Some of the bench market's campaigns fit it (scripts/bench-sdk.ts
// gives campaigns hints by topic); most do not.

const turns = [
  [
    'user',
    'I run a small design team and every week we have five or six meetings with clients, and honestly our meeting notes are a mess. Some of us write in Google Docs, some in the Notes app on the phone, one person uses paper. After a call nobody knows where the decisions went or who promised what. What would you suggest for keeping all of it in one place without making everyone change how they work overnight? Last week we lost a whole list of changes a client asked for because the person who wrote them down was on holiday, and we only found the page three days later in a personal folder.',
  ],
  [
    'assistant',
    'That is a very common problem for teams that grew quickly. The first thing that helps is agreeing on one home for notes rather than one tool for writing them: a shared space where every meeting gets a page with the date, the people who attended, the decisions, and the action items with an owner and a due date. Many teams start with a simple template in a shared document and move to a dedicated note taking app once the habit is there. The template matters more than the software at first, because it makes notes searchable and comparable from one meeting to the next. It also helps to decide who takes the notes in each meeting, rotating the job, so that one person is not always writing instead of talking, and to share the page with everyone before the call ends so corrections happen while people still remember.',
  ],
  [
    'user',
    'We tried a shared folder of documents last year and it fell apart after a month because nobody could find anything and the action items never got followed up. I think we need something that links notes to projects and reminds people of their tasks. Is a second brain kind of setup overkill for a team of six? I keep reading about linking ideas and building a knowledge base but I am not sure it is worth the effort. Half the team is enthusiastic about trying a new system and the other half just wants something that gets out of the way and does not need a training session.',
  ],
  [
    'assistant',
    'For six people it does not need to be elaborate. The useful parts of the second brain idea for a team are small: every note lives in one place, notes link to the project they belong to, and action items are pulled out into a list someone reviews each week. A knowledge base grows from that naturally. What usually fails is asking people to file things perfectly. Pick a tool that makes capture fast, with a meeting template, tags for clients, and a way to turn a line into a task with a date. Review the open items at the start of each weekly meeting so they do not get lost. Over a few months the linked notes become a record of every client relationship, which is useful when someone new joins or when a client asks why a decision was made.',
  ],
  [
    'user',
    'That makes sense. Budget is a concern though, we are a small studio. Which notes app would you recommend for a team that wants meeting templates, shared notebooks per client, and tasks that come out of the notes, ideally with a free tier or something cheap per person? And does it matter much whether it works offline, since two of us travel a lot? We also need to export everything if we ever switch, because we were burned once by a tool that shut down and kept our data.',
  ],
  [
    'assistant',
    'Several tools cover that well at a low price per person. Look for shared notebooks or spaces per client, meeting templates, tasks with owners and dates created straight from a note, full text search, and apps for phone and desktop that sync and also work offline. Try two of them for a couple of weeks with real meetings before deciding, and count how often people actually open the notes afterwards: that tells you more than any feature list. Keep the template short, five headings at most, so that writing notes during a call stays quick. Check that export works in a plain format such as Markdown before you commit, and that the free tier allows enough shared notebooks for all your clients; some limit the number of shared spaces, which a studio reaches quickly.',
  ],
];

/** The messages, each at most as long as needed to keep the whole under 4,000 characters. */
export const BENCH_CONVERSATION = (() => {
  const messages = turns.map(([role, content]) => ({ role, content }));
  let total = messages.reduce((n, m) => n + m.content.length, 0);
  if (total > 4000) throw new Error(`the bench conversation is ${total} characters, over 4,000`);
  return messages;
})();
