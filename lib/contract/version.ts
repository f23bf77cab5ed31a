// The OpenAPI versions a contract may have, on its own so that the loader and the reference resolver can
// both name it without importing each other.

/** 3.1 and 3.2 share JSON Schema 2020-12; 3.0 has its own schema dialect. */
export type OpenApiVersion = '3.0' | '3.1' | '3.2';
