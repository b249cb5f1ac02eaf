import { ByteWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';

/**
 * A data buyer's export, written in one pass over its rows to two files at once: JSON Lines (one
 * object per line, for anything that reads text) and Apache Parquet (typed, compressed columns,
 * for the buyer's warehouse). Neither file is ever whole in memory: each leaves as a stream of
 * byte chunks that its sink stores as they come, `(chunks) => storage.putStream(key, chunks, type)`
 * (lib/platform/storage/), and the rows are read batch by batch. What is held at once is bounded
 * by the export's settings, never by its size: the batch being read, the Parquet row group being
 * filled (ROW_GROUP_ROWS rows) and its encoded bytes, and up to QUEUE_CHUNKS chunks of about
 * CHUNK_BYTES per file waiting for a sink that is slower than the writer. A million rows take
 * about the memory a hundred thousand do (scripts/bench-export.ts measures both).
 *
 * Parquet is written by `hyparquet-writer`: a well-kept library (regular releases, by the author
 * of the `hyparquet` reader the tests check its files with), in plain JavaScript with no native
 * build, so it runs wherever Node runs, serverless functions included, unlike the bindings of
 * Arrow's or DuckDB's C++ libraries. Its `ParquetWriter` takes the rows one row group at a time
 * and awaits the output's `flush` after each, which is what lets a file leave as it is made.
 */

export type ExportColumnType = 'STRING' | 'JSON' | 'TIMESTAMP' | 'DOUBLE' | 'INT64' | 'BOOLEAN';

export interface ExportColumn {
  name: string;
  type: ExportColumnType;
  nullable: boolean;
  /** What the column holds, for the buyer: kept in the Parquet file's metadata (PARQUET_COLUMNS_KEY). */
  description: string;
}

/** Where each file goes: a function that reads the file's chunks to the end, and settles once it is stored. */
export interface ExportSinks {
  jsonl: (chunks: AsyncIterable<Uint8Array>) => Promise<unknown>;
  parquet: (chunks: AsyncIterable<Uint8Array>) => Promise<unknown>;
}

export interface ExportOptions {
  /** Called after each batch is written (both files took its bytes), with the rows written so far; awaited. */
  onBatch?: (rowsSoFar: number) => void | Promise<void>;
  /** Rows per Parquet row group (the last may have fewer); ROW_GROUP_ROWS when unset. */
  rowGroupRows?: number;
}

export interface ExportResult {
  rows: number;
  jsonlBytes: number;
  parquetBytes: number;
}

/** The files' content types, for the sinks to store them with. */
export const JSONL_CONTENT_TYPE = 'application/x-ndjson';
export const PARQUET_CONTENT_TYPE = 'application/vnd.apache.parquet';

/** The key of the Parquet file's key-value metadata that lists the columns with their descriptions, as JSON. */
export const PARQUET_COLUMNS_KEY = 'monetize.columns';

/**
 * Rows per Parquet row group by default: large enough that readers get long runs of each column
 * to compress and skip by, small enough that a group of long texts (prompts and responses of up
 * to 8,000 characters each) stays within tens of megabytes while it is encoded.
 */
export const ROW_GROUP_ROWS = 10_000;
/** About how many bytes each chunk handed to a sink holds. */
const CHUNK_BYTES = 1024 * 1024;
/** How many chunks per file may wait for their sink before the writer waits for it. */
const QUEUE_CHUNKS = 4;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Writes the rows `batches` yields (objects keyed by column name) as JSONL to `sinks.jsonl` and as
 * Parquet to `sinks.parquet`, both from the one pass, and answers the rows and each file's bytes.
 *
 * Values by column type, null or missing where the column is nullable: STRING a string, JSON any
 * JSON value (written as nested JSON), TIMESTAMP a Date (JSONL: ISO 8601 in UTC; Parquet: INT64
 * milliseconds, TIMESTAMP_MILLIS adjusted to UTC), DOUBLE a finite number, INT64 a safe integer
 * or a bigint within 64 bits (JSONL: its exact digits), BOOLEAN a boolean. A value of another kind
 * rejects the export with a TypeError that names the row and column (never the value, which may
 * be personal data). JSONL keys come in the columns' order, and properties of a row not among the
 * columns are left out.
 *
 * The sinks start at once and read concurrently; the writer waits for the slower of them, so
 * neither file runs ahead of its sink by more than a few chunks. When the source, the rows, or
 * either sink fails, the export rejects with that error, the source is closed, and each sink
 * still reading sees its chunks throw (a `putStream` then stores nothing); the export settles only
 * once both sinks have. A sink that had already stored its file keeps it: the caller deletes both
 * files when the export rejects.
 */
export async function writeExport(
  batches: AsyncIterable<readonly Readonly<Record<string, unknown>>[]>,
  columns: readonly ExportColumn[],
  sinks: ExportSinks,
  options: ExportOptions = {},
): Promise<ExportResult> {
  checkColumns(columns);
  const rowGroupRows = options.rowGroupRows ?? ROW_GROUP_ROWS;
  if (!Number.isInteger(rowGroupRows) || rowGroupRows < 1) throw new RangeError(`rowGroupRows must be a positive integer, not ${rowGroupRows}`);

  const jsonl = new ChunkQueue('jsonl');
  const parquet = new ChunkQueue('parquet');
  const encoder = new TextEncoder();
  const keys = columns.map((c) => `${JSON.stringify(c.name)}:`);
  const toText = columns.map((c) => JSON_TEXT[c.type]);
  const output = new ChunkWriter((chunk) => parquet.push(chunk));
  const file = new ParquetWriter({
    writer: output,
    schema: parquetSchema(columns),
    codec: 'SNAPPY',
    kvMetadata: [
      { key: PARQUET_COLUMNS_KEY, value: JSON.stringify(columns.map(({ name, type, nullable, description }) => ({ name, type, nullable, description }))) },
    ],
    createdBy: 'monetize data export (hyparquet-writer)',
  });
  // The sinks start once nothing before the rows can fail: from here on, every failure ends their files.
  const stored = [jsonl.readBy(sinks.jsonl), parquet.readBy(sinks.parquet)];

  let rows = 0;
  let jsonlBytes = 0;
  let text = '';
  // The Parquet values of the row group being filled, one array per column.
  let values: unknown[][] = columns.map(() => []);

  const sendText = async () => {
    if (!text) return;
    const chunk = encoder.encode(text);
    text = '';
    jsonlBytes += chunk.byteLength;
    await jsonl.push(chunk);
  };
  /** Writes the full row groups held (all that is held, at the end) and keeps the rest. */
  const writeGroups = async (end: boolean) => {
    const held = values[0]!.length;
    const full = end ? held : held - (held % rowGroupRows);
    if (!full) return;
    const columnData: ColumnSource[] = columns.map((c, i) => ({
      name: c.name,
      data: full === held ? values[i]! : values[i]!.slice(0, full),
      // The bounds of a JSON column are whole documents, never truncated: no use to a reader, and unbounded.
      statistics: c.type !== 'JSON',
    }));
    values = full === held ? columns.map(() => []) : values.map((v) => v.slice(full));
    await file.write({ columnData, rowGroupSize: rowGroupRows });
  };

  try {
    for await (const batch of batches) {
      for (const row of batch) {
        rows++;
        let line = '{';
        for (let i = 0; i < columns.length; i++) {
          const column = columns[i]!;
          const value = row[column.name];
          if (value === null || value === undefined) {
            if (!column.nullable) throw new TypeError(`row ${rows} of the export: column ${JSON.stringify(column.name)} is not nullable, and has no value`);
            line += `${i ? ',' : ''}${keys[i]}null`;
            values[i]!.push(null);
            continue;
          }
          const json = toText[i]!(value);
          if (json === undefined) {
            throw new TypeError(`row ${rows} of the export: column ${JSON.stringify(column.name)} (${column.type}) cannot hold ${kindOf(value, column.type)}`);
          }
          line += `${i ? ',' : ''}${keys[i]}${json}`;
          values[i]!.push(column.type === 'INT64' ? BigInt(value as number | bigint) : value);
        }
        text += `${line}}\n`;
        if (text.length >= CHUNK_BYTES / 2) await sendText();
      }
      await sendText();
      await writeGroups(false);
      await options.onBatch?.(rows);
    }
    await sendText();
    await writeGroups(true);
    await file.finish();
    jsonl.end();
    parquet.end();
    await Promise.all(stored);
    return { rows, jsonlBytes, parquetBytes: output.offset };
  } catch (err) {
    // A push refused because a sink stopped reading: the sink's own failure, once it settles, says
    // why, and is what the other sink and the caller are told.
    let cause = err;
    const stoppedBy = [jsonl, parquet].find((queue) => err instanceof SinkStopped && queue.stoppedWith(err));
    if (stoppedBy) {
      const [outcome] = await Promise.allSettled([stoppedBy.sinkDone]);
      if (outcome!.status === 'rejected') cause = outcome!.reason;
    }
    jsonl.fail(cause);
    parquet.fail(cause);
    await Promise.allSettled(stored);
    throw cause;
  }
}

function checkColumns(columns: readonly ExportColumn[]): void {
  if (!columns.length) throw new TypeError('an export needs at least one column');
  const seen = new Set<string>();
  for (const { name, type } of columns) {
    if (!name || seen.has(name)) throw new TypeError(`export column names must be unique and not empty: ${JSON.stringify(name)}`);
    if (!(type in JSON_TEXT)) throw new TypeError(`export column ${JSON.stringify(name)} has an unknown type: ${JSON.stringify(type)}`);
    seen.add(name);
  }
}

/** Each type's value as JSON text for its line, or undefined when the value is not of the type. */
const JSON_TEXT: Record<ExportColumnType, (value: unknown) => string | undefined> = {
  STRING: (v) => (typeof v === 'string' ? JSON.stringify(v) : undefined),
  JSON: (v) => {
    try {
      // Undefined for what JSON cannot hold (a function); a bigint or a cycle throws.
      return JSON.stringify(v) as string | undefined;
    } catch {
      return undefined;
    }
  },
  TIMESTAMP: (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? `"${v.toISOString()}"` : undefined),
  DOUBLE: (v) => (typeof v === 'number' && Number.isFinite(v) ? JSON.stringify(v) : undefined),
  INT64: (v) => ((typeof v === 'number' && Number.isSafeInteger(v)) || (typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX) ? String(v) : undefined),
  BOOLEAN: (v) => (typeof v === 'boolean' ? String(v) : undefined),
};

/** What a refused value is, told without the value itself. */
function kindOf(value: unknown, type: ExportColumnType): string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : 'a Date';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    if (type !== 'INT64') return 'a number';
    return Number.isInteger(value) ? 'a number beyond 2^53 (send a bigint)' : 'a number with a fraction';
  }
  if (typeof value === 'bigint') return type === 'INT64' ? 'a bigint beyond 64 bits' : 'a bigint';
  if (Array.isArray(value)) return 'an array';
  return `a value of type ${typeof value}`;
}

/**
 * The Parquet schema of the columns: REQUIRED or OPTIONAL from `nullable`; STRING as UTF8 byte
 * arrays, JSON as byte arrays of JSON text (converted type JSON), TIMESTAMP as INT64 milliseconds
 * since the epoch in UTC (the converted type TIMESTAMP_MILLIS for older readers, and the logical
 * type for newer ones), DOUBLE, INT64 and BOOLEAN as themselves.
 */
function parquetSchema(columns: readonly ExportColumn[]): SchemaElement[] {
  return [
    { name: 'root', num_children: columns.length },
    ...columns.map(({ name, type, nullable }): SchemaElement => {
      const repetition_type = nullable ? 'OPTIONAL' : 'REQUIRED';
      switch (type) {
        case 'STRING':
          return { name, repetition_type, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
        case 'JSON':
          return { name, repetition_type, type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } };
        case 'TIMESTAMP':
          return {
            name,
            repetition_type,
            type: 'INT64',
            converted_type: 'TIMESTAMP_MILLIS',
            logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
          };
        case 'DOUBLE':
        case 'INT64':
        case 'BOOLEAN':
          return { name, repetition_type, type };
      }
    }),
  ];
}

/**
 * The Parquet file's output: hyparquet-writer's growing buffer, handed off as a chunk each time
 * it passes CHUNK_BYTES (the writer only appends, and counts positions by `offset`, so the bytes
 * already written can leave), and the chunks sent when the writer flushes after each row group,
 * waiting for the sink as long as it needs.
 */
class ChunkWriter extends ByteWriter {
  private readonly ready: Uint8Array[] = [];

  constructor(private readonly send: (chunk: Uint8Array) => Promise<void>) {
    super(CHUNK_BYTES + 64 * 1024);
  }

  override ensure(size: number): void {
    if (this.index >= CHUNK_BYTES) this.handOff();
    super.ensure(size);
  }

  private handOff(): void {
    if (!this.index) return;
    this.ready.push(new Uint8Array(this.buffer, 0, this.index));
    this.buffer = new ArrayBuffer(CHUNK_BYTES + 64 * 1024);
    this.view = new DataView(this.buffer);
    this.index = 0;
  }

  async flush(): Promise<void> {
    this.handOff();
    for (let chunk = this.ready.shift(); chunk; chunk = this.ready.shift()) await this.send(chunk);
  }

  override finish(): Promise<void> {
    return this.flush();
  }

  override getBuffer(): never {
    throw new Error('a streamed Parquet file is never whole in memory');
  }

  override getBytes(): never {
    throw new Error('a streamed Parquet file is never whole in memory');
  }
}

/** A push refused because the file's sink stopped reading (it failed, or returned before the end). */
class SinkStopped extends Error {
  override readonly name = 'SinkStopped';
}

/**
 * One file's chunks between the writer and its sink: at most QUEUE_CHUNKS wait, and `push` waits
 * while that many do. The writer ends it, or fails it (the sink's next read throws the error);
 * the sink stops it by settling or by leaving its loop early (the writer's next push throws).
 */
class ChunkQueue implements AsyncIterable<Uint8Array> {
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;
  private stopped: SinkStopped | undefined;
  private read = false;
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;

  constructor(private readonly file: string) {}

  /** The sink's promise, once it was started. */
  sinkDone: Promise<unknown> = Promise.resolve();

  /** Starts the sink on these chunks; stops the queue once it settles, however it does. */
  readBy(sink: (chunks: AsyncIterable<Uint8Array>) => Promise<unknown>): Promise<unknown> {
    this.sinkDone = Promise.resolve().then(() => sink(this));
    this.sinkDone.then(
      () => this.stop(new SinkStopped(`the ${this.file} sink returned before the end of its file`)),
      () => this.stop(new SinkStopped(`the ${this.file} sink failed`)),
    );
    return this.sinkDone;
  }

  /** Whether `error` is the one this queue refused pushes with. */
  stoppedWith(error: SinkStopped): boolean {
    return this.stopped === error;
  }

  async push(chunk: Uint8Array): Promise<void> {
    while (!this.stopped && this.chunks.length >= QUEUE_CHUNKS) await new Promise<void>((resolve) => (this.wakeWriter = resolve));
    if (this.stopped) throw this.stopped;
    this.chunks.push(chunk);
    this.wake('reader');
  }

  end(): void {
    this.ended = true;
    this.wake('reader');
  }

  fail(error: unknown): void {
    if (this.ended || this.failure) return;
    this.failure = { error };
    this.chunks.length = 0;
    this.wake('reader');
  }

  private stop(reason: SinkStopped): void {
    if (this.stopped) return;
    this.stopped = reason;
    this.chunks.length = 0;
    this.wake('writer');
  }

  private wake(side: 'reader' | 'writer'): void {
    const wake = side === 'reader' ? this.wakeReader : this.wakeWriter;
    if (side === 'reader') this.wakeReader = undefined;
    else this.wakeWriter = undefined;
    wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.read) throw new Error(`the ${this.file} file's chunks can be read once`);
    this.read = true;
    return {
      next: async (): Promise<IteratorResult<Uint8Array>> => {
        for (;;) {
          if (this.failure) throw this.failure.error;
          const chunk = this.chunks.shift();
          if (chunk) {
            this.wake('writer');
            return { value: chunk, done: false };
          }
          if (this.ended || this.stopped) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (this.wakeReader = resolve));
        }
      },
      return: async (): Promise<IteratorResult<Uint8Array>> => {
        this.stop(new SinkStopped(`the ${this.file} sink stopped reading before the end of its file`));
        return { value: undefined, done: true };
      },
    };
  }
}
