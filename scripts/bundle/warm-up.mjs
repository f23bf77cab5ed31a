// `node scripts/bundle/warm-up.mjs DIST CONFIG`, run by scripts/build.mjs: starts the CLI from the fresh
// bundle exactly as `node dist/main.js CONFIG --port 0` does (request validation on), sends the requests a
// service gets first, then writes V8's code cache for the bundle to DIST/svc-facade.v8cache. The cache
// holds every function compiled so far, so a later start deserializes them instead of compiling them
// (dist/load.js). It must come from the same node binary and V8 flags as the runs that use it: V8 rejects
// any other, and the bundle compiles from source then.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, config] = process.argv.slice(2);
process.env.SVC_CODE_CACHE = 'off'; // compile from source: the cache is what this run makes
process.env.SVC_REST_CLIENTREQUESTVALIDATION = 'true';
process.argv = [process.argv[0], join(dist, 'main.js'), config, '--port', '0', '--host', '127.0.0.1'];

const { api, script } = await import(pathToFileURL(join(dist, 'load.js')).href);
// The CLI reports its address on stdout; the warm-up keeps its output to itself.
const listening = new Promise((resolve) => {
  process.stdout.write = (chunk) => {
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(String(chunk))?.[1];
    if (port) resolve(`http://127.0.0.1:${port}`);
    return true;
  };
});
// Its warnings too (the bundled Petstore's security is not enforced): they are the start's, not the build's.
const writeError = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => (String(chunk).startsWith('WARN ') ? true : writeError(chunk, ...rest));
api.runCli();
const origin = await listening;
const requests = [
  ['GET', '/api/v3/pet/1'],
  ['POST', '/api/v3/pet', '{"id":10,"name":"doggie","photoUrls":["a"],"status":"available"}'],
  ['GET', '/api/v3/user/login?username=a&password=b'],
];
for (const [method, path, body] of requests) {
  const res = await fetch(origin + path, { method, body, headers: body ? { 'content-type': 'application/json' } : {} });
  await res.arrayBuffer();
  if (res.status >= 500) throw new Error(`warm-up: ${method} ${path} answered ${res.status}`);
}
writeFileSync(join(dist, 'svc-facade.v8cache'), script.createCachedData());
process.exit(0);
