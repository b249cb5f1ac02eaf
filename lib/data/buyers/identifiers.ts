/**
 * What a free sample must not show (issue 39, finding 3): the identifiers people write into
 * prompts and answers. Finds them in text as spans, and masks them, each by its kind. Pure and
 * synchronous: the catalog's sample runs it on every string of every record it shows.
 *
 * Measured on a labelled set kept beside it (identifiers.labelled.json: strings, the parts that
 * must be masked and the parts that must stay), by identifiers.test.ts. It covers email addresses
 * (also spelled out: `jane (at) example (dot) com`, `jane at example dot com`), IPv4 and IPv6
 * addresses, phone, card and other long numbers, national ids (US SSN, UK National Insurance
 * numbers, 9-digit and other numbers of 7 digits or more), IBANs, street addresses, and the names
 * of people written with a street address or introduced as a name. A recogniser misses what it
 * was not taught: a sample is also only a few records a day (public.data_sample_pool). Dates and
 * ISO 8601 timestamps (a record's `occurred_at`, `started_at`) are not identifiers and stay as
 * they are: the digits of a timestamp never count toward a long number.
 */

export type IdentifierKind = 'email' | 'ip' | 'iban' | 'national_id' | 'number' | 'street_address' | 'name';

export interface IdentifierSpan {
  start: number;
  end: number;
  kind: IdentifierKind;
}

/** What a masked identifier reads as. */
export const MASKS: Record<IdentifierKind, string> = {
  email: '[email]',
  ip: '[ip address]',
  iban: '[iban]',
  national_id: '[id]',
  number: '[number]',
  street_address: '[street address]',
  name: '[name]',
};

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

// Spelled out: `(at)`, `[at]`, `{at}`, `<at>`, ` at `; `(dot)` and the like, ` dot `, or a dot.
const BRACKETED_AT = String.raw`\s*[([{<]\s*at\s*[)\]}>]\s*`;
const BRACKETED_DOT = String.raw`\s*[([{<]\s*dot\s*[)\]}>]\s*`;
const SPELLED_EMAIL_BRACKETED = new RegExp(
  String.raw`[A-Za-z0-9._%+-]+${BRACKETED_AT}[A-Za-z0-9-]+(?:(?:${BRACKETED_DOT}|\s+dot\s+|\.)[A-Za-z0-9-]+)*(?:${BRACKETED_DOT}|\s+dot\s+|\.)[A-Za-z]{2,}\b`,
  'gi',
);
// `jane at example dot com`: plain words are common, so only with a top-level domain people
// use, and not when the "domain" is a word such as "the" ("at the dot com boom").
const TLDS = 'com|org|net|edu|gov|io|co|uk|de|fr|info|biz|me|ai|dev|app|us|ca|au|nl|es|it|ch|se|no|eu|in|jp|br|pl|be|at|dk|fi|ie|nz';
const SPELLED_EMAIL_WORDS = new RegExp(String.raw`\b[A-Za-z0-9._%+-]+\s+at\s+([A-Za-z0-9-]+)(?:\s+dot\s+[A-Za-z0-9-]+)*\s+dot\s+(?:${TLDS})\b`, 'gi');
const NOT_A_DOMAIN = new Set(['the', 'a', 'an', 'this', 'that', 'my', 'your', 'our', 'their', 'his', 'her', 'its', 'one', 'some', 'any']);

const IPV4 = /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.]*\d)/g;
// A candidate: hex groups and colons, with at least two colons; checked by `isIpv6`.
const IPV6_CANDIDATE = /(?<![0-9A-Za-z:])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?(?:%[0-9A-Za-z]+)?(?![0-9A-Za-z:])/g;

function isIpv6(candidate: string): boolean {
  const address = candidate.replace(/%[0-9A-Za-z]+$/, '');
  if (!/[0-9A-Fa-f]/.test(address)) return false;
  const halves = address.split('::');
  if (halves.length > 2) return false;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const parts = halves.flatMap(groups);
  let count = parts.length;
  const last = parts[parts.length - 1];
  if (last && last.includes('.')) {
    if (!/^(?:\d{1,3}\.){3}\d{1,3}$/.test(last)) return false;
    count += 1; // an embedded IPv4 address takes two groups
  }
  if (!parts.every((p) => p.includes('.') || /^[0-9A-Fa-f]{1,4}$/.test(p))) return false;
  return halves.length === 2 ? count < 8 : count === 8;
}

// UK National Insurance numbers: two letters, six digits, A to D; spaces allowed between the
// pairs. Any two letters: the example people copy, QQ 12 34 56 A, is not a valid prefix.
const UK_NINO = /\b[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b/g;
// US Social Security numbers: 123-45-6789, or with spaces.
const US_SSN = /\b\d{3}[- ]\d{2}[- ]\d{4}\b/g;
// IBANs: country, check digits, then 11 to 30 letters and digits, in groups of four or not.
const IBAN = /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,3})?\b/g;
// Seven or more digits, with the separators phone, card and id numbers are written with.
const NUMBER = /\+?\d(?:[ \t().-]*\d){6,}/g;
// Numbers that are not identifiers: dates (2026-11-27, 27.11.2026) and year ranges (2019-2023).
const NOT_AN_IDENTIFIER = [/^\d{4}-\d{2}-\d{2}$/, /^\d{1,2}[./-]\d{1,2}[./-]\d{4}$/, /^(?:19|20)\d{2}\s*-\s*(?:19|20)\d{2}$/];

// ISO 8601 dates and times, as records carry them and people paste them: 2026-11-21,
// 2026-11-21T01:48:42.955Z, 2026-11-21 01:48:42+01:00, PostgreSQL's 2026-11-21 01:48:42.955+00,
// and the basic form 20261121T014842Z. Checked by `isTimestamp`; NUMBER does not read into them.
const ZONE = String.raw`(Z|[+-]\d{2}(?::?\d{2})?)`;
const ISO_TIMESTAMP = new RegExp(
  String.raw`(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?${ZONE}?)?` +
    String.raw`|(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})?(?:[.,]\d{1,9})?${ZONE}?`,
  'g',
);

/**
 * Whether a match of ISO_TIMESTAMP is one: a real month, day and time of day, not glued to a word
 * or a `+`, and, when it is a date alone, not one run of digits with the numbers around it
 * (`555 2026-11-21`, `2026-11-21-4471`), which NUMBER then reads as a whole. A time of day
 * (`T01:48`) says it is a timestamp whatever is around it.
 */
function isTimestamp(text: string, m: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second] = (m[1] ? m.slice(1, 7) : m.slice(8, 14)).map((v) => (v === undefined ? 0 : Number(v)));
  if (year! < 1000 || month! < 1 || month! > 12 || day! < 1 || day! > 31 || hour! > 24 || minute! > 59 || second! > 60) return false;
  const before = text.slice(Math.max(0, m.index - 20), m.index);
  const after = text.slice(m.index + m[0].length, m.index + m[0].length + 20);
  if (/[\w+]$/.test(before) || /^\w/.test(after)) return false;
  const dateAlone = m[1] !== undefined && m[4] === undefined;
  return !dateAlone || (!/\d[ \t().-]*$/.test(before) && !/^[ \t().-]*\d/.test(after));
}

/** `text` with its timestamps blanked out (same length, no digits or separators), for NUMBER. */
function withoutTimestamps(text: string): string {
  let out = '';
  let at = 0;
  for (const s of matches(text, ISO_TIMESTAMP, 'number', (m) => isTimestamp(text, m))) {
    out += text.slice(at, s.start) + '#'.repeat(s.end - s.start);
    at = s.end;
  }
  return out + text.slice(at);
}

const STREET_TYPES = [
  'Street',
  'St',
  'Road',
  'Rd',
  'Avenue',
  'Ave',
  'Lane',
  'Ln',
  'Boulevard',
  'Blvd',
  'Drive',
  'Dr',
  'Way',
  'Court',
  'Ct',
  'Place',
  'Pl',
  'Square',
  'Sq',
  'Terrace',
  'Close',
  'Crescent',
  'Parkway',
  'Highway',
  'Hwy',
  'Row',
  'Gardens',
  'Mews',
].join('|');
// 221B Baker Street, 1600 Pennsylvania Avenue NW, 12 Elm St., Apt 4; then a city, state and ZIP
// or a UK postcode when written on.
const STREET_EN = new RegExp(
  String.raw`\b\d{1,5}[A-Za-z]?(?:[-/]\d{1,5}[A-Za-z]?)?,?\s+(?:[A-Z][A-Za-z'’.-]*\s+){1,3}(?:${STREET_TYPES})\b\.?` +
    String.raw`(?:\s+(?:NW|NE|SW|SE|N|S|E|W)\b)?` +
    String.raw`(?:,?\s+(?:Apt|Apartment|Suite|Unit|Flat)\.?\s*#?[A-Za-z0-9-]+)?` +
    String.raw`(?:,\s*[A-Z][a-z]+(?:\s[A-Z][a-z]+)?(?:,?\s+[A-Z]{2}\s+\d{5}(?:-\d{4})?)?)?` +
    String.raw`(?:,?\s+[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b)?`,
  'g',
);
// Hauptstraße 5, Musterweg 12a, and 10 rue de Rivoli, 5 Calle de Alcalá.
const STREET_DE = /\b[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm)\s+\d{1,4}[a-z]?\b/g;
const STREET_ROMANCE =
  /\b\d{1,4},?\s+(?:rue|avenue|boulevard|chemin|via|viale|calle|avenida|rua)\s+(?:(?:de|du|des|la|le|les|del|della|di|da|do)\s+)*[A-ZÀ-Ý][\wÀ-ÿ'’-]*(?:\s+[A-ZÀ-Ý][\wÀ-ÿ'’-]*)*/gi;

// A person's name: two or three capitalised words (Mr/Ms/Dr first, initials allowed).
const NAME = String.raw`(?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][a-zà-ÿ'’-]+(?:\s+(?:[A-Z]\.|[A-Z][a-zà-ÿ'’-]+)){1,2}`;
// Written just before an address: "Jane Doe, 12 Baker Street", "Jane Doe lives at ...".
const NAME_BEFORE_ADDRESS = new RegExp(
  String.raw`(${NAME})(?:\s*[,:\n-]\s*|\s+(?:lives|living|lived|resides|stays|moved)\s+(?:at|on|in|to)\s+|\s+(?:at|of|from)\s+)$`,
);
// Introduced as a name: "my name is Jane Doe", "Name: Jane Doe".
const NAME_INTRODUCED = new RegExp(String.raw`(?:\bmy name is|\bname\s*:|\bI am|\bI'm|\bthis is)\s+(${NAME})`, 'g');
// Capitalised words that start a line or a label rather than a name.
const NOT_NAMES = new Set([
  'Address',
  'Home',
  'Office',
  'Ship',
  'Send',
  'Deliver',
  'Delivery',
  'Billing',
  'Shipping',
  'Mail',
  'Post',
  'Please',
  'The',
  'Our',
  'My',
]);

function matches(text: string, pattern: RegExp, kind: IdentifierKind, keep: (m: RegExpExecArray) => boolean = () => true): IdentifierSpan[] {
  const spans: IdentifierSpan[] = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    if (keep(m)) spans.push({ start: m.index, end: m.index + m[0].length, kind });
  }
  return spans;
}

function names(text: string, addresses: IdentifierSpan[]): IdentifierSpan[] {
  const spans: IdentifierSpan[] = [];
  for (const a of addresses) {
    const before = text.slice(Math.max(0, a.start - 80), a.start);
    const m = NAME_BEFORE_ADDRESS.exec(before);
    if (!m || m[1]!.split(/\s+/).some((w) => NOT_NAMES.has(w))) continue;
    const start = a.start - before.length + m.index;
    spans.push({ start, end: start + m[1]!.length, kind: 'name' });
  }
  NAME_INTRODUCED.lastIndex = 0;
  for (let m = NAME_INTRODUCED.exec(text); m; m = NAME_INTRODUCED.exec(text)) {
    if (m[1]!.split(/\s+/).some((w) => NOT_NAMES.has(w))) continue;
    const start = m.index + m[0].length - m[1]!.length;
    spans.push({ start, end: start + m[1]!.length, kind: 'name' });
  }
  return spans;
}

/** The identifiers in `text`, as spans that do not overlap, in order. */
export function findIdentifiers(text: string): IdentifierSpan[] {
  const addresses = [
    ...matches(text, STREET_EN, 'street_address'),
    ...matches(text, STREET_DE, 'street_address'),
    ...matches(text, STREET_ROMANCE, 'street_address'),
  ];
  const found = [
    ...matches(text, EMAIL, 'email'),
    ...matches(text, SPELLED_EMAIL_BRACKETED, 'email'),
    ...matches(text, SPELLED_EMAIL_WORDS, 'email', (m) => !NOT_A_DOMAIN.has(m[1]!.toLowerCase())),
    ...matches(text, IPV6_CANDIDATE, 'ip', (m) => isIpv6(m[0])),
    ...matches(text, IPV4, 'ip'),
    ...matches(text, IBAN, 'iban', (m) => (m[0].match(/\d/g) ?? []).length >= 8),
    ...matches(text, UK_NINO, 'national_id'),
    ...matches(text, US_SSN, 'national_id'),
    ...addresses,
    ...names(text, addresses),
    ...matches(withoutTimestamps(text), NUMBER, 'number', (m) => !NOT_AN_IDENTIFIER.some((p) => p.test(m[0].trim()))),
  ];
  // Longest first where two start together; an overlap joins them, named by the first.
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: IdentifierSpan[] = [];
  for (const s of found) {
    const last = merged[merged.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}

/** `text` with every identifier replaced by its mask. */
export function maskText(text: string): string {
  let out = '';
  let at = 0;
  for (const s of findIdentifiers(text)) {
    out += text.slice(at, s.start) + MASKS[s.kind];
    at = s.end;
  }
  return out + text.slice(at);
}

/** Every string in `value` (arrays and objects walked, keys kept) with its identifiers masked. */
export function maskIdentifiers(value: unknown): unknown {
  if (typeof value === 'string') return maskText(value);
  if (Array.isArray(value)) return value.map(maskIdentifiers);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskIdentifiers(v)]));
  return value;
}
