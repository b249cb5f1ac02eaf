import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { LocalStorage } from '@/lib/platform/storage';
import { JSONL_CONTENT_TYPE, PARQUET_COLUMNS_KEY, PARQUET_CONTENT_TYPE, writeExport, type ExportColumn, type ExportSinks } from './export-files';

/**
 * The export writer (./export-files.ts): both files from one pass, read back by an independent
 * Parquet reader (hyparquet) and by JSON.parse, every column type with its nulls; the empty
 * export; the counts it answers; failures of the source, of either sink and of a value, each
 * rejecting and stopping both files; and a slow sink holding the writer back. How fast it is and
 * how much memory it takes are measured by scripts/bench-export.ts, not here.
 */

const COLUMNS: ExportColumn[] = [
  { name: 'record_id', type: 'STRING', nullable: false, description: 'The record.' },
  { name: 'data', type: 'JSON', nullable: true, description: 'What the app sent.' },
  { name: 'received_at', type: 'TIMESTAMP', nullable: false, description: 'When it arrived.' },
  { name: 'occurred_at', type: 'TIMESTAMP', nullable: true, description: 'When it happened.' },
  { name: 'score', type: 'DOUBLE', nullable: true, description: 'A score.' },
  { name: 'tokens', type: 'INT64', nullable: true, description: 'A count.' },
  { name: 'sold', type: 'BOOLEAN', nullable: false, description: 'Whether it was sold.' },
  { name: 'note', type: 'STRING', nullable: true, description: 'A note.' },
];

const UNICODE = 'naïve café, 日本語, emoji 😀👩‍💻, RTL שלום, "quotes", back\\slash, tab\t, new\nline, \u2028 and \u0001';

const ROWS: Record<string, unknown>[] = [
  {
    record_id: 'r1',
    data: { prompt: UNICODE, nested: { list: [1, 2.5, 'three', null, { deep: [true, false] }], empty: {}, none: [] } },
    received_at: new Date('2026-11-01T12:34:56.789Z'),
    occurred_at: new Date('2026-11-01T12:34:50.000Z'),
    score: 0.1,
    tokens: 2n ** 63n - 1n,
    sold: true,
    note: UNICODE,
  },
  { record_id: 'r2', data: null, received_at: new Date(0), occurred_at: null, score: null, tokens: null, sold: false, note: null },
  // Missing properties are nulls; properties that are not columns are left out.
  { record_id: 'r3', received_at: new Date('1999-12-31T23:59:59.999Z'), sold: false, extra: 'not a column' },
  { record_id: 'r4', data: ['a', 'b'], received_at: new Date('2100-01-01T00:00:00Z'), score: -1e300, tokens: -(2n ** 63n), sold: true, note: '' },
  { record_id: 'r5', data: 'just a string', received_at: new Date(1), score: 5e-324, tokens: Number.MAX_SAFE_INTEGER, sold: true, note: 'x'.repeat(10_000) },
  { record_id: 'r6', data: 42, received_at: new Date(2), score: 12345.678, tokens: -7, sold: false },
  { record_id: 'r7', data: false, received_at: new Date(3), tokens: 0, sold: true },
];

async function* batchesOf(rows: readonly Record<string, unknown>[], size: number): AsyncGenerator<Record<string, unknown>[]> {
  for (let i = 0; i < rows.length; i += size) {
    await Promise.resolve();
    yield rows.slice(i, i + size);
  }
}

/** A sink that keeps what it reads, and how its reading ended. */
function collector() {
  const chunks: Uint8Array[] = [];
  const state: { outcome?: 'done' | Error } = {};
  const sink = async (source: AsyncIterable<Uint8Array>) => {
    try {
      for await (const chunk of source) chunks.push(chunk);
      state.outcome = 'done';
    } catch (err) {
      state.outcome = err as Error;
      throw err;
    }
  };
  return { sink, chunks, state, bytes: () => Buffer.concat(chunks) };
}

function collectors() {
  const jsonl = collector();
  const parquet = collector();
  const sinks: ExportSinks = { jsonl: jsonl.sink, parquet: parquet.sink };
  return { jsonl, parquet, sinks };
}

/** The file's bytes as the ArrayBuffer hyparquet reads. */
function arrayBuffer(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** What a row reads back as from Parquet: every column, null where it had no value, INT64 as bigint. */
function asParquet(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    COLUMNS.map(({ name, type }) => {
      const value = row[name] ?? null;
      return [name, value !== null && type === 'INT64' ? BigInt(value as number | bigint) : value];
    }),
  );
}

/** What a row reads back as from its JSONL line by JSON.parse: timestamps as ISO strings, INT64 as (possibly rounded) numbers. */
function asJsonl(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    COLUMNS.map(({ name, type }) => {
      const value = row[name] ?? null;
      if (value === null) return [name, null];
      if (type === 'TIMESTAMP') return [name, (value as Date).toISOString()];
      if (type === 'INT64') return [name, Number(value)];
      return [name, value];
    }),
  );
}

describe('writeExport', () => {
  it('writes every column type, nulls, unicode and nested JSON to both files, which read back as the rows', async () => {
    const { jsonl, parquet, sinks } = collectors();
    const result = await writeExport(batchesOf(ROWS, 2), COLUMNS, sinks, { rowGroupRows: 3 });

    const lines = jsonl.bytes().toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(ROWS.length);
    expect(lines.map((l) => JSON.parse(l))).toEqual(ROWS.map(asJsonl));
    // Keys in the columns' order; INT64 beyond 2^53 as its exact digits.
    for (const line of lines) expect(Object.keys(JSON.parse(line))).toEqual(COLUMNS.map((c) => c.name));
    expect(lines[0]).toContain('"tokens":9223372036854775807,');
    expect(lines[3]).toContain('"tokens":-9223372036854775808,');
    expect(lines[0]).toContain('"received_at":"2026-11-01T12:34:56.789Z"');

    const file = arrayBuffer(parquet.bytes());
    expect(await parquetReadObjects({ file })).toEqual(ROWS.map(asParquet));

    expect(result).toEqual({ rows: ROWS.length, jsonlBytes: jsonl.bytes().length, parquetBytes: parquet.bytes().length });
    expect(jsonl.state.outcome).toBe('done');
    expect(parquet.state.outcome).toBe('done');
  });

  it('makes the Parquet schema from the columns, in row groups of the size asked, snappy-compressed, with the descriptions', async () => {
    const { parquet, sinks } = collectors();
    await writeExport(batchesOf(ROWS, 2), COLUMNS, sinks, { rowGroupRows: 3 });
    const metadata = parquetMetadata(arrayBuffer(parquet.bytes()));

    expect(metadata.num_rows).toBe(BigInt(ROWS.length));
    expect(metadata.row_groups.map((g) => g.num_rows)).toEqual([3n, 3n, 1n]);
    for (const group of metadata.row_groups) for (const column of group.columns) expect(column.meta_data?.codec).toBe('SNAPPY');
    const [root, ...schema] = metadata.schema;
    expect(root).toMatchObject({ num_children: COLUMNS.length });
    expect(schema.map((e) => [e.name, e.repetition_type, e.type, e.converted_type, e.logical_type])).toEqual([
      ['record_id', 'REQUIRED', 'BYTE_ARRAY', 'UTF8', { type: 'STRING' }],
      ['data', 'OPTIONAL', 'BYTE_ARRAY', 'JSON', { type: 'JSON' }],
      ['received_at', 'REQUIRED', 'INT64', 'TIMESTAMP_MILLIS', { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' }],
      ['occurred_at', 'OPTIONAL', 'INT64', 'TIMESTAMP_MILLIS', { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' }],
      ['score', 'OPTIONAL', 'DOUBLE', undefined, undefined],
      ['tokens', 'OPTIONAL', 'INT64', undefined, undefined],
      ['sold', 'REQUIRED', 'BOOLEAN', undefined, undefined],
      ['note', 'OPTIONAL', 'BYTE_ARRAY', 'UTF8', { type: 'STRING' }],
    ]);
    const described = metadata.key_value_metadata?.find((kv) => kv.key === PARQUET_COLUMNS_KEY);
    expect(JSON.parse(described!.value!)).toEqual(COLUMNS);
  });

  it('writes many batches across row groups, a row group holding rows of several batches', async () => {
    const rows = Array.from({ length: 2_345 }, (_, i) => ({
      record_id: `r${i}`,
      data: { i, tags: [`t${i % 7}`] },
      received_at: new Date(Date.UTC(2026, 0, 1) + i * 1000),
      occurred_at: i % 3 ? new Date(Date.UTC(2026, 0, 1) + i * 1000 - 500) : null,
      score: i % 5 ? i / 7 : null,
      tokens: i % 4 ? i * 1000 : null,
      sold: i % 2 === 0,
      note: i % 11 ? `note ${i} ${'ü'.repeat(i % 50)}` : null,
    }));
    const { jsonl, parquet, sinks } = collectors();
    const progress: number[] = [];
    const result = await writeExport(batchesOf(rows, 100), COLUMNS, sinks, { rowGroupRows: 1_000, onBatch: (n) => void progress.push(n) });

    expect(result.rows).toBe(2_345);
    expect(progress).toEqual(Array.from({ length: 24 }, (_, i) => Math.min((i + 1) * 100, 2_345)));
    const file = arrayBuffer(parquet.bytes());
    expect(parquetMetadata(file).row_groups.map((g) => g.num_rows)).toEqual([1000n, 1000n, 345n]);
    expect(await parquetReadObjects({ file })).toEqual(rows.map(asParquet));
    const lines = jsonl.bytes().toString('utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(rows.map(asJsonl));
    expect(result.jsonlBytes).toBe(jsonl.bytes().length);
    expect(result.parquetBytes).toBe(parquet.bytes().length);
  });

  it('writes an empty export as an empty JSONL file and a valid Parquet file of the schema and no rows', async () => {
    async function* emptyBatches() {
      yield [];
      yield [];
    }
    for (const batches of [batchesOf([], 10), emptyBatches()]) {
      const { jsonl, parquet, sinks } = collectors();
      const result = await writeExport(batches, COLUMNS, sinks);
      expect(jsonl.bytes().length).toBe(0);
      expect(jsonl.state.outcome).toBe('done');
      const file = arrayBuffer(parquet.bytes());
      expect(result).toEqual({ rows: 0, jsonlBytes: 0, parquetBytes: file.byteLength });
      const metadata = parquetMetadata(file);
      expect(metadata.num_rows).toBe(0n);
      expect(metadata.row_groups).toEqual([]);
      expect(metadata.schema.slice(1).map((e) => [e.name, e.repetition_type])).toEqual(COLUMNS.map((c) => [c.name, c.nullable ? 'OPTIONAL' : 'REQUIRED']));
      expect(await parquetReadObjects({ file })).toEqual([]);
    }
  });

  it("rejects with the source's error midway, and both sinks see it", async () => {
    const failure = new Error('the database went away');
    async function* failing() {
      yield ROWS.slice(0, 3);
      yield ROWS.slice(3, 5);
      throw failure;
    }
    const { jsonl, parquet, sinks } = collectors();
    await expect(writeExport(failing(), COLUMNS, sinks, { rowGroupRows: 2 })).rejects.toBe(failure);
    expect(jsonl.state.outcome).toBe(failure);
    expect(parquet.state.outcome).toBe(failure);
  });

  it("rejects with a sink's error, closes the source and fails the other sink", async () => {
    for (const failing of ['jsonl', 'parquet'] as const) {
      const failure = new Error(`the ${failing} store is down`);
      let yielded = 0;
      let closed = false;
      async function* source() {
        try {
          for (let i = 0; i < 1_000; i++) {
            yielded++;
            yield ROWS.map((r) => ({ ...r, record_id: `${i}-${r.record_id as string}` }));
          }
        } finally {
          closed = true;
        }
      }
      const other = collector();
      const sinks: ExportSinks = {
        jsonl: other.sink,
        parquet: other.sink,
        [failing]: async (chunks: AsyncIterable<Uint8Array>) => {
          for await (const chunk of chunks) {
            void chunk;
            throw failure;
          }
        },
      };
      await expect(writeExport(source(), COLUMNS, sinks, { rowGroupRows: 7 }), failing).rejects.toBe(failure);
      expect(closed, failing).toBe(true);
      expect(yielded, failing).toBeLessThan(1_000);
      expect(other.state.outcome, failing).toBe(failure);
    }
  });

  it('rejects when a sink returns before the end of its file', async () => {
    const { jsonl, sinks } = collectors();
    const early: ExportSinks = {
      ...sinks,
      parquet: async (chunks) => {
        for await (const chunk of chunks) {
          void chunk;
          return;
        }
      },
    };
    const many = Array.from({ length: 500 }, (_, i) => ({ ...ROWS[0], record_id: `r${i}` }));
    await expect(writeExport(batchesOf(many, 10), COLUMNS, early, { rowGroupRows: 10 })).rejects.toThrow(/parquet sink stopped reading before the end/);
    expect(jsonl.state.outcome).toBeInstanceOf(Error);
  });

  it('refuses a value its column cannot hold, naming the row and column but not the value', async () => {
    const base = { record_id: 'secret-value', received_at: new Date(0), sold: true };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, record_id: null }, /row 2 of the export: column "record_id" is not nullable/],
      [{ ...base, sold: undefined }, /column "sold" is not nullable/],
      [{ ...base, record_id: 7 }, /column "record_id" \(STRING\) cannot hold a number/],
      [{ ...base, received_at: '2026-01-01T00:00:00Z' }, /column "received_at" \(TIMESTAMP\) cannot hold a value of type string/],
      [{ ...base, received_at: new Date(Number.NaN) }, /cannot hold an invalid Date/],
      [{ ...base, tokens: 1.5 }, /column "tokens" \(INT64\) cannot hold a number with a fraction/],
      [{ ...base, tokens: 2 ** 60 }, /beyond 2\^53 \(send a bigint\)/],
      [{ ...base, tokens: 2n ** 63n }, /a bigint beyond 64 bits/],
      [{ ...base, score: Number.NaN }, /column "score" \(DOUBLE\) cannot hold NaN/],
      [{ ...base, score: Infinity }, /cannot hold Infinity/],
      [{ ...base, sold: 'true' }, /column "sold" \(BOOLEAN\) cannot hold a value of type string/],
      [{ ...base, data: { n: 1n } }, /column "data" \(JSON\) cannot hold/],
      [{ ...base, data: () => 1 }, /column "data" \(JSON\) cannot hold/],
    ];
    for (const [row, message] of cases) {
      const { jsonl, parquet, sinks } = collectors();
      const error = await writeExport(batchesOf([{ ...base, record_id: 'first' }, row], 1), COLUMNS, sinks).catch((err: unknown) => err);
      expect(error, String(message)).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('secret-value');
      expect(jsonl.state.outcome).toBe(error);
      expect(parquet.state.outcome).toBe(error);
    }
  });

  it('refuses columns it cannot write', async () => {
    const { sinks } = collectors();
    await expect(writeExport(batchesOf([], 1), [], sinks)).rejects.toThrow(/at least one column/);
    await expect(writeExport(batchesOf([], 1), [COLUMNS[0]!, COLUMNS[0]!], sinks)).rejects.toThrow(/unique/);
    await expect(writeExport(batchesOf([], 1), [{ ...COLUMNS[0]!, type: 'DATE' as 'STRING' }], sinks)).rejects.toThrow(/unknown type/);
    await expect(writeExport(batchesOf([], 1), COLUMNS, sinks, { rowGroupRows: 0 })).rejects.toThrow(/rowGroupRows/);
  });

  it('reads the source no faster than the slower sink takes its chunks', async () => {
    let yielded = 0;
    const text = 'a prompt of some length, '.repeat(40);
    async function* source() {
      for (let i = 0; i < 200; i++) {
        yielded++;
        yield Array.from({ length: 200 }, (_, j) => ({ record_id: `${i}-${j}`, received_at: new Date(i), sold: true, note: text }));
      }
    }
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const parquet = collector();
    const jsonlChunks: Uint8Array[] = [];
    const sinks: ExportSinks = {
      parquet: parquet.sink,
      jsonl: async (chunks) => {
        for await (const chunk of chunks) {
          jsonlChunks.push(chunk);
          // The first chunk read, the sink stalls until released.
          if (jsonlChunks.length === 1) await released;
        }
      },
    };
    const done = writeExport(source(), COLUMNS, sinks);
    // Let the writer run until it waits: the source stops being read.
    let last = -1;
    for (let still = 0; still < 50;) {
      await new Promise((resolve) => setImmediate(resolve));
      still = yielded === last ? still + 1 : 0;
      last = yielded;
    }
    // Each batch is about 220 KB of JSONL, sent as one chunk at its end: the sink holds one chunk
    // and four wait, so the writer stops after about six batches of 200.
    expect(yielded).toBeLessThan(20);
    expect(jsonlChunks).toHaveLength(1);
    release();
    expect((await done).rows).toBe(40_000);
    expect(yielded).toBe(200);
  });

  it('streams both files into the object store', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'monetize-export-'));
    try {
      const storage = new LocalStorage(dir);
      const stored: Record<string, { bytes: number }> = {};
      const result = await writeExport(batchesOf(ROWS, 3), COLUMNS, {
        jsonl: async (chunks) => {
          stored.jsonl = await storage.putStream('export.jsonl', chunks, JSONL_CONTENT_TYPE);
        },
        parquet: async (chunks) => {
          stored.parquet = await storage.putStream('export.parquet', chunks, PARQUET_CONTENT_TYPE);
        },
      });
      expect(stored).toEqual({ jsonl: { bytes: result.jsonlBytes }, parquet: { bytes: result.parquetBytes } });
      const jsonl = await storage.get('export.jsonl');
      expect(jsonl).toMatchObject({ contentType: 'application/x-ndjson', size: result.jsonlBytes });
      const lines = (await new Response(jsonl!.body as BodyInit).text()).trimEnd().split('\n');
      expect(lines.map((l) => JSON.parse(l))).toEqual(ROWS.map(asJsonl));
      const parquet = await storage.get('export.parquet');
      expect(parquet).toMatchObject({ contentType: 'application/vnd.apache.parquet', size: result.parquetBytes });
      const file = await new Response(parquet!.body as BodyInit).arrayBuffer();
      expect(await parquetReadObjects({ file })).toEqual(ROWS.map(asParquet));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
