// A JSON Web Key Set fetched from `jwks-uri` (docs/bearer-tokens.md): kept for `jwks-max-age`, fetched again when a token
// names an unknown `kid` (key rotation), but never more than once per `jwks-cooldown`, and concurrent misses
// share one fetch, so a flood of tokens with random kids cannot hammer the key server. When the server is
// down, keys already fetched keep working; without them, requests get 503 until it is back.
import { createLocalJWKSet, errors, type CryptoKey, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';
import { Errors, svcError } from '../util/errors.js';
import type { Logger } from '../util/log.js';

type LocalKeySet = ReturnType<typeof createLocalJWKSet>;

const FETCH_TIMEOUT_MS = 5_000;
/** A key set larger than this is not a key set. */
const MAX_JWKS_BYTES = 1024 * 1024;
/** After a failed fetch, the next try waits at most this long (or the cooldown, if shorter). */
const RETRY_AFTER_FAILURE_MS = 1_000;

const KEYS_UNAVAILABLE = svcError(Errors.KEYS_UNAVAILABLE);

export class RemoteKeySet {
  private keys: LocalKeySet | undefined;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private healthy = true;
  private pending: Promise<void> | undefined;
  /** Where the keys come from, for log lines: the URL without credentials or query. */
  private readonly where: string;

  constructor(
    private readonly url: URL,
    private readonly cooldown: number,
    private readonly maxAge: number,
    private readonly logger: Logger,
  ) {
    this.where = `${url.origin}${url.pathname}`;
  }

  /** jose's key lookup: the key for a token's header, fetching the set when it is missing, old, or lacks the kid. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey | Uint8Array> => {
    if (this.keys === undefined || Date.now() - this.fetchedAt >= this.maxAge) await this.refresh();
    const keys = this.keys;
    if (keys === undefined) throw KEYS_UNAVAILABLE;
    try {
      return await keys(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      await this.refresh();
      // An unknown kid while the key server is down cannot be told from a forged one: 503, not 401.
      if (!this.healthy) throw KEYS_UNAVAILABLE;
      if (this.keys === keys) throw err;
      return this.keys!(header, token);
    }
  };

  /** Fetches the set unless a fetch is under way (then waits for it) or the last one is too recent. */
  private refresh(): Promise<void> {
    if (this.pending !== undefined) return this.pending;
    const wait = this.healthy ? this.cooldown : Math.min(this.cooldown, RETRY_AFTER_FAILURE_MS);
    if (Date.now() - this.attemptedAt < wait) return Promise.resolve();
    this.attemptedAt = Date.now();
    this.pending = this.fetchKeys().then(
      (keys) => {
        this.keys = keys;
        this.fetchedAt = Date.now();
        if (!this.healthy) this.logger.info(`JWKS ${this.where} is reachable again`);
        this.healthy = true;
      },
      (err: unknown) => {
        if (this.healthy) this.logger.warn(`JWKS ${this.where} unavailable: ${(err as Error)?.message ?? String(err)}${this.keys ? ' (keeping the keys fetched before)' : ''}`);
        this.healthy = false;
      },
    );
    void this.pending.finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchKeys(): Promise<LocalKeySet> {
    let res: Response;
    try {
      res = await fetch(this.url, { redirect: 'manual', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/jwk-set+json, application/json' } });
    } catch (err) {
      throw new Error(((err as Error).cause as Error | undefined)?.message ?? (err as Error).message);
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`status ${res.status}`);
    }
    if (Number(res.headers.get('content-length')) > MAX_JWKS_BYTES) {
      await res.body?.cancel();
      throw new Error(`larger than ${MAX_JWKS_BYTES} bytes`);
    }
    const text = await boundedText(res, MAX_JWKS_BYTES);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error('the answer is not JSON');
    }
    return createLocalJWKSet(json as JSONWebKeySet);
  }
}

/** The answer's text, read no further than `limit` bytes (a chunked answer announces no length). */
async function boundedText(res: Response, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > limit) {
      await res.body?.cancel().catch(() => undefined);
      throw new Error(`larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
