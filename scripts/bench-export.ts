/**
 * `npx tsx scripts/bench-export.ts [rows]` (default 1,000,000): how fast a data buyer's export is
 * written (lib/data/buyers/export-files.ts) and how much memory it takes, on synthetic AI
 * interactions made deterministically from a seed: a record id, the subject's pseudonym, the app's
 * categories (JSON), the kind, when it arrived and happened, the model, a prompt of 200 to 400
 * characters and a response of 300 to 800, in batches of 5,000 as the export job reads them.
 * Both files are streamed into a LocalStorage under a temporary folder (putStream), deleted at
 * the end.
 *
 * It runs the export twice, each in a fresh process so that neither run's memory counts in the
 * other's: with a tenth of the rows, then with all of them, and prints both as JSON: rows,
 * seconds (`generate_seconds` of them making the rows), rows per second, each file's bytes, and
 * the process's peak RSS and heap (process.memoryUsage() every 50 ms, after each batch and as
 * each chunk is stored). A
 * writer whose memory is bounded shows about the same peaks for both runs.
 *
 * Synthetic text repeats more than real conversations do, so the files compress better than real
 * exports will; the rows per second are this machine's, with nothing else running.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JSONL_CONTENT_TYPE, PARQUET_CONTENT_TYPE, writeExport, type ExportColumn } from '../lib/data/buyers/export-files';
import { mulberry32 } from '../lib/platform/random';
import { LocalStorage } from '../lib/platform/storage/local';

const BATCH_ROWS = 5_000;
const SEED = 20_261_207;
const SAMPLE_MS = 50;
const MIB = 1024 * 1024;

const COLUMNS: ExportColumn[] = [
  { name: 'record_id', type: 'STRING', nullable: false, description: 'The record, a UUID.' },
  { name: 'subject', type: 'STRING', nullable: false, description: "The user's pseudonym, 32 hex digits, the same for all of one user's records." },
  { name: 'app_categories', type: 'JSON', nullable: false, description: 'The categories of the app the record came from, an array of strings.' },
  { name: 'kind', type: 'STRING', nullable: false, description: 'The kind of record.' },
  { name: 'received_at', type: 'TIMESTAMP', nullable: false, description: 'When the service received it.' },
  { name: 'occurred_at', type: 'TIMESTAMP', nullable: true, description: 'When it happened, as the app said.' },
  { name: 'model', type: 'STRING', nullable: true, description: 'The model that answered, as the app said.' },
  { name: 'prompt', type: 'STRING', nullable: false, description: "The user's prompt." },
  { name: 'response', type: 'STRING', nullable: false, description: "The model's response." },
];

const CATEGORIES = [
  'productivity',
  'education',
  'developer_tools',
  'writing',
  'health',
  'finance',
  'travel',
  'entertainment',
  'customer_support',
  'research',
  'design',
  'marketing',
];
const MODELS = ['gpt-4o', 'gpt-4.1-mini', 'o4-mini', 'claude-sonnet-4', 'claude-haiku-4', 'gemini-2.5-flash', 'llama-3.3-70b', 'mistral-large'];
const ASKS = [
  'Can you help me',
  'How do I',
  'Please explain how to',
  'What is the best way to',
  'Write a short note to',
  'Summarize why we should',
  'Give me three ideas to',
  'Draft an email asking my team to',
  'Is it a good idea to',
  'Compare two ways to',
];
const VERBS = [
  'plan',
  'write',
  'fix',
  'review',
  'organize',
  'explain',
  'improve',
  'translate',
  'budget',
  'schedule',
  'test',
  'measure',
  'design',
  'summarize',
  'prepare',
];
const NOUNS = [
  'the quarterly report',
  'a birthday dinner',
  'my Python script',
  'our onboarding flow',
  'a trip to Lisbon',
  'the marketing budget',
  'a cover letter',
  'the database migration',
  'a workout routine',
  'my thesis outline',
  'the customer complaint',
  'a recipe for lentil soup',
  'our pricing page',
  'the weekly standup',
  'a lesson on fractions',
  'the landing page copy',
  'a café in Zürich',
  'the 東京 itinerary',
  'a naïve Bayes model',
  'my résumé',
];
const WORDS = (
  'the a an and or but so because while when if then also really quite very more less most some any each every this that these those it they we you I my our your ' +
  'time team work project plan idea question answer problem solution data code test bug feature user customer budget week month year day morning evening ' +
  'first second next last new old small large simple clear short long better best good fast slow easy hard important useful possible likely ' +
  'should could would might must can will need want try make take give keep start finish check change move add remove use find show help ' +
  'about with without for from into over under between after before during through around against toward ' +
  'report email meeting schedule deadline draft version review note list table chart summary example step option detail reason result'
).split(' ');
const OPENERS = [
  'Sure!',
  'Here is a plan.',
  'Good question.',
  'Of course.',
  'Let me break this down.',
  'There are a few options.',
  'In short:',
  'Here you go 🙂',
];

/** A deterministic generator of the bench's rows. */
function rowMaker(seed: number) {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const hex8 = () =>
    Math.floor(random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  const uuid = () => {
    const h = hex8() + hex8() + hex8() + hex8();
    const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };
  // 400 apps, each with one to three categories, and 25,000 users among them.
  const apps = Array.from({ length: 400 }, () => {
    const count = 1 + Math.floor(random() * 3);
    return [...new Set(Array.from({ length: count }, () => pick(CATEGORIES)))];
  });
  const subjects = Array.from({ length: 25_000 }, () => ({ pseudonym: hex8() + hex8() + hex8() + hex8(), app: Math.floor(random() * apps.length) }));

  const sentence = (words: number) => {
    let s = pick(WORDS);
    s = s[0]!.toUpperCase() + s.slice(1);
    for (let i = 1; i < words; i++) s += ` ${random() < 0.1 ? pick(NOUNS) : pick(WORDS)}`;
    return `${s}${random() < 0.15 ? '?' : '.'}`;
  };
  /** Text of `min` to `max` characters, cut at a word. */
  const text = (start: string, min: number, max: number) => {
    const length = min + Math.floor(random() * (max - min + 1));
    let s = start;
    while (s.length < length) s += ` ${random() < 0.08 ? `\n${1 + Math.floor(random() * 5)}. ` : ''}${sentence(6 + Math.floor(random() * 14))}`;
    if (s.length > length) {
      const cut = s.lastIndexOf(' ', length);
      s = s.slice(0, cut > min ? cut : length);
    }
    return s;
  };

  let clock = Date.UTC(2026, 9, 1);
  return (): Record<string, unknown> => {
    const subject = pick(subjects);
    clock += Math.floor(random() * 5_000);
    const received = new Date(clock);
    return {
      record_id: uuid(),
      subject: subject.pseudonym,
      app_categories: apps[subject.app],
      kind: 'ai_interaction',
      received_at: received,
      occurred_at: random() < 0.1 ? null : new Date(clock - Math.floor(random() * 120_000)),
      model: random() < 0.15 ? null : pick(MODELS),
      prompt: text(`${pick(ASKS)} ${pick(VERBS)} ${pick(NOUNS)}?`, 200, 400),
      response: text(pick(OPENERS), 300, 800),
    };
  };
}

interface Run {
  rows: number;
  seconds: number;
  generate_seconds: number;
  rows_per_second: number;
  jsonl_bytes: number;
  parquet_bytes: number;
  /** After loading the modules, before the first row. */
  start_rss_mib: number;
  peak_rss_mib: number;
  peak_heap_used_mib: number;
  peak_heap_total_mib: number;
  /** Memory outside the JavaScript heap: buffers and array buffers. */
  peak_external_mib: number;
}

const mib = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;

/** One export of `rows` rows, in this process. */
async function measure(rows: number): Promise<Run> {
  const dir = await mkdtemp(path.join(tmpdir(), 'monetize-bench-export-'));
  try {
    const storage = new LocalStorage(dir);
    const peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0 };
    const sample = () => {
      const m = process.memoryUsage();
      peak.rss = Math.max(peak.rss, m.rss);
      peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
      peak.heapTotal = Math.max(peak.heapTotal, m.heapTotal);
      peak.external = Math.max(peak.external, m.external);
    };
    // And as each chunk is stored: the timer does not fire while a row group is being encoded.
    async function* sampled(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
      for await (const chunk of chunks) {
        sample();
        yield chunk;
      }
    }
    const startRss = process.memoryUsage().rss;
    const timer = setInterval(sample, SAMPLE_MS);
    const makeRow = rowMaker(SEED);
    let generating = 0;
    async function* batches(): AsyncGenerator<Record<string, unknown>[]> {
      for (let done = 0; done < rows;) {
        const from = performance.now();
        const batch = Array.from({ length: Math.min(BATCH_ROWS, rows - done) }, makeRow);
        generating += performance.now() - from;
        done += batch.length;
        yield batch;
      }
    }
    const started = performance.now();
    try {
      const result = await writeExport(
        batches(),
        COLUMNS,
        {
          jsonl: (chunks) => storage.putStream('export.jsonl', sampled(chunks), JSONL_CONTENT_TYPE),
          parquet: (chunks) => storage.putStream('export.parquet', sampled(chunks), PARQUET_CONTENT_TYPE),
        },
        { onBatch: sample },
      );
      const seconds = (performance.now() - started) / 1000;
      sample();
      const [jsonl, parquet] = await Promise.all([storage.get('export.jsonl'), storage.get('export.parquet')]);
      if (jsonl?.size !== result.jsonlBytes || parquet?.size !== result.parquetBytes) throw new Error('the stored files are not the sizes the export answered');
      return {
        rows: result.rows,
        seconds: Math.round(seconds * 100) / 100,
        generate_seconds: Math.round(generating / 10) / 100,
        rows_per_second: Math.round(result.rows / seconds),
        jsonl_bytes: result.jsonlBytes,
        parquet_bytes: result.parquetBytes,
        start_rss_mib: mib(startRss),
        peak_rss_mib: mib(peak.rss),
        peak_heap_used_mib: mib(peak.heapUsed),
        peak_heap_total_mib: mib(peak.heapTotal),
        peak_external_mib: mib(peak.external),
      };
    } finally {
      clearInterval(timer);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One export in a fresh process of its own (this script, run with `--one`), so that its peaks are its own. */
function measureApart(rows: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, '--one', String(rows)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the run of ${rows} rows exited with ${code}`));
      try {
        resolve(JSON.parse(out) as Run);
      } catch (err) {
        reject(err);
      }
    });
  });
}

async function main(args: string[]): Promise<void> {
  if (args[0] === '--one') {
    process.stdout.write(`${JSON.stringify(await measure(Number(args[1])))}\n`);
    return;
  }
  const rows = args[0] ? Number(args[0].replaceAll(/[_,]/g, '')) : 1_000_000;
  if (!Number.isInteger(rows) || rows < 10) throw new Error(`usage: npx tsx scripts/bench-export.ts [rows, at least 10]`);
  const tenthRows = Math.round(rows / 10);
  console.error(`Export of ${tenthRows} rows, then of ${rows}, in batches of ${BATCH_ROWS}, each in a fresh process ...`);
  const tenth = await measureApart(tenthRows);
  const all = await measureApart(rows);
  console.log(
    JSON.stringify(
      {
        ...all,
        tenth,
        peak_rss_ratio: Math.round((all.peak_rss_mib / tenth.peak_rss_mib) * 100) / 100,
        batch_rows: BATCH_ROWS,
        node: process.version,
      },
      null,
      2,
    ),
  );
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
