// Sample strings per `format` for synthesized mock bodies: one fixed, readable value in static mode, a
// fresh one from the seeded generator in dynamic mode. Each is valid for the same format checks request and
// response validation use (ajv-formats, full mode), which also vet contract examples before they are used.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Random } from './random.js';

type Sample = (random: Random) => string;

const HEX = '0123456789abcdef';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const WORDS = ['alpha', 'bravo', 'delta', 'echo', 'lima', 'nova', 'orbit', 'pixel', 'quartz', 'river', 'sierra', 'tango', 'ultra', 'vivid', 'willow', 'zephyr'];

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
const hex = (random: Random, length: number): string => {
  let out = '';
  for (let i = 0; i < length; i++) out += HEX[random.int(0, 15)];
  return out;
};
const date = (random: Random): string => `${random.int(2000, 2030)}-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`;
const time = (random: Random): string => `${pad(random.int(0, 23))}:${pad(random.int(0, 59))}:${pad(random.int(0, 59))}Z`;

/** Static samples: the same every time (Swagger's conventions where it has one). */
const STATIC: Record<string, string> = {
  'date-time': '2024-01-01T12:00:00Z',
  'iso-date-time': '2024-01-01T12:00:00Z',
  date: '2024-01-01',
  time: '12:00:00Z',
  'iso-time': '12:00:00Z',
  duration: 'P1D',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  iri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  'iri-reference': 'https://example.com/',
  'uri-template': 'https://example.com/{id}',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  byte: 'c3RyaW5n',
  binary: 'string',
  password: 'string',
  regex: '^[a-z]+$',
  'json-pointer': '/a/b',
  'relative-json-pointer': '0/a',
};

const DYNAMIC: Record<string, Sample> = {
  'date-time': (r) => `${date(r)}T${time(r)}`,
  'iso-date-time': (r) => `${date(r)}T${time(r)}`,
  date,
  time,
  'iso-time': time,
  duration: (r) => `P${r.int(1, 30)}D`,
  uuid: (r) => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-${HEX[8 + r.int(0, 3)]}${hex(r, 3)}-${hex(r, 12)}`,
  email: (r) => `${r.pick(WORDS)}.${r.pick(WORDS)}@example.com`,
  'idn-email': (r) => `${r.pick(WORDS)}@example.com`,
  uri: (r) => `https://example.com/${r.pick(WORDS)}/${r.int(1, 9999)}`,
  url: (r) => `https://example.com/${r.pick(WORDS)}/${r.int(1, 9999)}`,
  iri: (r) => `https://example.com/${r.pick(WORDS)}`,
  'uri-reference': (r) => `/${r.pick(WORDS)}/${r.int(1, 9999)}`,
  'iri-reference': (r) => `/${r.pick(WORDS)}`,
  hostname: (r) => `${r.pick(WORDS)}.example.com`,
  'idn-hostname': (r) => `${r.pick(WORDS)}.example.com`,
  ipv4: (r) => `${r.int(1, 223)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`,
  ipv6: (r) => `2001:db8:${hex(r, 4)}::${hex(r, 4)}`,
  byte: (r) => Buffer.from(r.pick(WORDS)).toString('base64'),
};

/** A sample for a known string format; undefined for formats without one (the caller makes a plain string). */
export function formatSample(format: string | undefined, random: Random | undefined): string | undefined {
  if (format === undefined) return undefined;
  if (random === undefined) return STATIC[format];
  return (DYNAMIC[format] ?? (() => STATIC[format]))(random);
}

/** A plain string: `string` in static mode, a few words in dynamic mode. */
export function plainSample(random: Random | undefined): string {
  if (random === undefined) return 'string';
  const words = random.int(1, 3);
  let out = random.pick(WORDS);
  for (let i = 1; i < words; i++) out += ` ${random.pick(WORDS)}`;
  return out;
}

/** Lower-case letters, to stretch a string to its `minLength`. */
export function filler(length: number, random: Random | undefined): string {
  if (random === undefined) return 'x'.repeat(length);
  let out = '';
  for (let i = 0; i < length; i++) out += LOWER[random.int(0, 25)];
  return out;
}

type FormatCheck = RegExp | ((s: string) => boolean) | { validate: RegExp | ((s: string) => boolean) };
const CHECKS = fullFormats as unknown as Record<string, FormatCheck | { type: string; validate: (x: unknown) => boolean } | boolean | undefined>;

/** True when a string passes the format check validation applies (unknown formats pass, as there). */
export function matchesFormat(format: string | undefined, value: string): boolean {
  if (format === undefined) return true;
  const check = CHECKS[format];
  if (check === undefined || typeof check === 'boolean') return true;
  if ('type' in check && check.type !== 'string') return true;
  const test = 'validate' in check ? check.validate : (check as RegExp | ((s: string) => boolean));
  return typeof test === 'function' ? (test as (s: string) => boolean)(value) : test.test(value);
}
