// The options of cross-origin answers (svc.cors.*, Camel's restConfiguration enableCORS and corsHeaders) and
// their defaults. Kept apart from lib/http/cors.ts, which compiles them, so the config model imports no server code.

export interface CorsOptions {
  /** Comma-separated exact origins (`https://app.example`), or `*`: any origin. */
  allowOrigins: string;
  /** `Access-Control-Allow-Credentials: true`; never together with `*`. */
  allowCredentials: boolean;
  /** How long a browser may keep a preflight's answer, in seconds (Camel's default: one hour). */
  maxAge: number;
  /** Response headers a page may read; unset: those the operation declares, and X-Request-Id. */
  exposeHeaders: string | undefined;
}

export const CORS_DEFAULTS: CorsOptions = {
  allowOrigins: '*',
  allowCredentials: false,
  maxAge: 3600,
  exposeHeaders: undefined,
};

/** The `corsHeaders` keys (Camel's restConfiguration): each overrides one Access-Control-* field of the answers. */
export const CORS_HEADER_KEYS = [
  'Access-Control-Allow-Origin',
  'Access-Control-Allow-Methods',
  'Access-Control-Allow-Headers',
  'Access-Control-Allow-Credentials',
  'Access-Control-Max-Age',
  'Access-Control-Expose-Headers',
] as const;
