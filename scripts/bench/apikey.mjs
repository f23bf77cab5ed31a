// Bench setup for "GET with a valid API key": the Petstore's getPetById asks for the `api_key` header or a
// petstore_auth token; the request carries a valid `api_key` (api-keys.txt) and no Authorization, so the
// apiKey alternative is the one that lets it in.
import { fileURLToPath } from 'node:url';

export const API_KEY = 'bench-secret-key';

/** The facade's environment: the contract's security enforced, the key file (absolute, so any cwd works). */
export const API_KEY_ENV = Object.freeze({
  SVC_REST_CLIENTSECURITYVALIDATION: 'true',
  SVC_SECURITY_APIKEYS: fileURLToPath(new URL('./api-keys.txt', import.meta.url)),
});

/** Security must be on in the measured facade: without a key, or with a wrong one, it refuses. */
export async function verifyApiKey(port, { name, request }) {
  for (const [what, headers] of [['without a key', {}], ['with a wrong key', { api_key: 'guess' }]]) {
    const res = await fetch(`http://127.0.0.1:${port}${request.path}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 401) throw new Error(`GET with a valid API key (${name}): ${what} the facade answered ${res.status}, not 401`);
  }
}
