// Issue 22 item 3: every mock answer stays inside the contract, as an INDEPENDENT judge sees it. Over
// contracts of the test corpus, every operation is sent, for every method, once without Accept and once
// per declared response media type as Accept, a request body made from the contract (its example, else a
// body synthesized from the request schema) in each declared request media type. Each answer is checked by
// openapi-backend (its own $ref dereferencing and ajv): the status is declared, the Content-Type is a
// declared media type of that response, the body is valid (`validateResponse` for application/json, the
// same ajv for other JSON and YAML types), and every declared response header is present and valid
// (`validateResponseHeaders`, superset match). A violation the facade causes fails the test; one where the answer is the
// contract's own example (served as written, SPEC §7) is the contract's, counted and listed apart. So are
// 406 answers (the client asked only for types the mock cannot write, such as protobuf).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify as stringifyYaml, parse as parseYaml } from 'yaml';
import { SetMatchType } from 'openapi-backend';
import { createFacade, type ServedOperation } from '../../lib/index.js';
import type { Contract } from '../../lib/contract/load.js';
import type { MediaTypeObject } from '../../lib/contract/operations.js';
import { writeXml, type Schema } from '../../lib/codec/xml.js';
import { essence, isJsonMediaType, isXmlMediaType, isYamlMediaType, mediaTypeMatches } from '../../lib/http/negotiation.js';
import { exampleSample } from '../../lib/contract/example-objects.js';
import { Synthesizer } from '../../lib/mock/synthesize.js';
import { CORPUS, memoryLogger, tempDir } from '../helpers.js';
import { mapLimit, rawRequest, type RawResponse } from '../fixtures/http.js';
import { isContractExample, loadJudge, sameParameters, statusMatch, type Judge, type JudgedResponse } from '../fixtures/independent-judge.js';

interface ManifestEntry {
  name: string;
  entry: string;
  openapi: string;
}

/**
 * The contracts judged: the Petstore, Twilio (form writes) and Kubernetes apiextensions (JSON, YAML and
 * protobuf offered, JSON Patch writes), and every small contract with writes. GitHub, Stripe, Discord,
 * Kubernetes core and batch and Star Trek are left out to keep this test near 15 s: openapi-backend compiles
 * each operation's response schemas anew (Kubernetes batch alone takes it 15 s), and their answers are of
 * the kinds judged here.
 */
const JUDGED = new Set([
  'petstore-v3',
  'oai-v3.0-petstore',
  'oai-v3.0-petstore-expanded',
  'oai-v3.0-api-with-examples',
  'oai-v3.0-callback-example',
  'oai-v3.0-link-example',
  'oai-v3.0-uspto',
  'camel-openapi-v3',
  'camel-fruits-3.0',
  'camel-missing-opid',
  'camel-path-parameters',
  'camel-unmatched-request-handler',
  'camel-unmatched-request-handler-content-type',
  'kubernetes-v3-apiextensions',
  'twilio-api-v2010',
  'digitalocean-slice (multi-file)',
  'redocly-openapi-starter (multi-file)',
  'redocly-museum',
  'readme-3.0-callbacks',
  'readme-3.0-circular-paths',
  'readme-3.0-discriminators',
  'readme-3.0-file-uploads',
  'readme-3.0-form-data',
  'readme-3.0-parameters-style',
  'readme-3.0-polymorphism',
  'readme-3.0-schema-circular',
  'readme-3.0-server-variables',
  'readme-3.1-schema-types',
  'readme-3.1-train-travel',
]);

const manifest = (JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as ManifestEntry[]).filter((e) => JUDGED.has(e.name));

interface Tally {
  sent: number;
  checked: number;
  /** Writes answered with the request body as sent (SPEC §7 step 3's echo). */
  echoed: number;
  bodiesValidated: number;
  /** Answers in a media type openapi-backend has no body check for (XML, text, binary): status and type checked. */
  typeOnly: number;
  refused: string[];
  contractCaused: string[];
  violations: string[];
  brokenForJudge: string[];
  /** Answers whose schema openapi-backend's ajv cannot compile (a contract feature it does not support). */
  judgeCannotCheck: string[];
}

const emptyDir = tempDir();
const tally: Tally = { sent: 0, checked: 0, echoed: 0, bodiesValidated: 0, typeOnly: 0, refused: [], contractCaused: [], violations: [], brokenForJudge: [], judgeCannotCheck: [] };

test('every mock answer over the corpus is inside the contract, as openapi-backend judges it', async (t) => {
  assert.ok(manifest.length >= 20, `${manifest.length} contracts judged`);
  for (const entry of manifest) {
    await t.test(entry.name, async () => {
      const specification = join(CORPUS, entry.entry);
      const judge = await loadJudge(specification);
      if (typeof judge === 'string') {
        tally.brokenForJudge.push(`${entry.name}: ${judge}`);
        return;
      }
      // An empty mock folder: the working directory's svc-mock/ (a Camel scenario's files) is not this test's.
      const facade = await createFacade({ specification, missingOperation: 'mock', baseDir: emptyDir, mockIncludePattern: `file:${emptyDir}/**` }, { logger: memoryLogger() });
      const { port } = await facade.listen(0, '127.0.0.1');
      const origin = `http://127.0.0.1:${port}`;
      try {
        const requests = facade.operations.flatMap((op) => requestsFor(op, facade.contract));
        await mapLimit(requests, 8, async (request) => {
          tally.sent++;
          let res: RawResponse;
          try {
            // A connection per request: the judge compiles its validators in this process, and a pause of
            // seconds lets the server close idle keep-alive connections just as a client reuses one.
            res = await rawRequest(origin, request.path, { method: request.op.operation.method, headers: request.headers, body: request.body });
          } catch (err) {
            tally.checked++;
            tally.violations.push(`${entry.name}: ${request.label}: no answer (${(err as Error).message})`);
            return;
          }
          judgeAnswer(judge, entry.name, request, res);
        });
      } finally {
        await facade.stop();
      }
    });
  }
  const judged = manifest.length - tally.brokenForJudge.length;
  const line = `mock fidelity (openapi-backend): ${judged} contracts, ${tally.sent} requests sent, ${tally.checked} answers checked (${tally.echoed} echoes, ${tally.bodiesValidated} bodies validated, ${tally.typeOnly} status and type only, ${tally.judgeCannotCheck.length} the judge cannot compile a schema for), ${tally.refused.length} refused with 406 (the chosen response does not offer the asked type, or only as protobuf), ${tally.violations.length} violations by the facade, ${tally.contractCaused.length} by the contracts themselves`;
  t.diagnostic(line);
  console.log(line);
  for (const broken of tally.brokenForJudge) console.log(`  the judge cannot load ${broken}`);
  for (const [reason, count] of countBy(tally.judgeCannotCheck.map((w) => w.replace(/^([^:]+):.*?(: headers)?: /, '$1$2: ')))) console.log(`  the judge cannot compile (${count}×) ${reason}`);
  for (const [reason, count] of countBy(tally.contractCaused.map(contractReason))) console.log(`  the contract's own (${count}×) ${reason}`);
  for (const [reason, count] of countBy(tally.refused)) console.log(`  406 (${count}×) ${reason}`);
  assert.deepEqual(tally.violations.slice(0, 20), [], `${tally.violations.length} violation(s) caused by the facade`);
  assert.equal(tally.sent, tally.checked + tally.refused.length, 'every request is answered and checked, or a counted refusal');
  assert.ok(tally.refused.some((r) => /protobuf cannot be written/.test(r)), 'Kubernetes protobuf is refused, never JSON labelled protobuf');
  assert.deepEqual(tally.brokenForJudge.map((b) => b.slice(0, b.indexOf(':'))), Object.keys(JUDGE_CANNOT_LOAD), 'contracts openapi-backend cannot load');
  assert.deepEqual([...new Set(tally.judgeCannotCheck.map((w) => w.slice(0, w.indexOf(':'))))], JUDGE_CANNOT_COMPILE, 'contracts with schemas openapi-backend cannot compile');
  assert.ok(judged >= 20, `${judged} contracts judged`);
  assert.ok(tally.checked > 700, `${tally.checked} answers checked`);
  assert.ok(tally.echoed > 30, `${tally.echoed} echoes judged`);
});

/** Contracts openapi-backend itself cannot load (its dereferencing fails), with why: listed, not judged. */
const JUDGE_CANNOT_LOAD: Record<string, string> = {
  'digitalocean-slice (multi-file)': 'json-schema-ref-parser fails on path items that are $refs to other files (null reading the file name)',
  'redocly-openapi-starter (multi-file)': 'x-codeSamples $ref source files that the contract does not ship (get.cs, get.php)',
  'readme-3.0-circular-paths': 'a path item $ref that json-schema-ref-parser leaves null',
};

/** Contracts where openapi-backend's ajv refuses some response schemas (`nullable` without `type`, valid OpenAPI 3.0). */
const JUDGE_CANNOT_COMPILE = ['twilio-api-v2010'];

function countBy(items: string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts];
}

/** A contract-caused violation by contract and kind, for the summary. */
function contractReason(message: string): string {
  const contract = message.slice(0, message.indexOf(':'));
  const keyword = /"keyword":"([^"]+)"(?:,"params":\{"format":"([^"]+)")?/.exec(message);
  return keyword ? `${contract}: example fails ${keyword[1]}${keyword[2] ? ` ${keyword[2]}` : ''}` : message.replace(/^([^:]+): .*?→ \d+: /, '$1: ');
}

interface Request {
  op: ServedOperation;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** What was asked, for messages. */
  label: string;
}

/** One request per declared request media type (or none) × (no Accept, then each declared response media type). */
function requestsFor(op: ServedOperation, contract: Contract): Request[] {
  const path = requestPath(op);
  const bodies = requestBodies(op, contract);
  const accepts = [undefined, ...op.operation.produces];
  const out: Request[] = [];
  for (const body of bodies) {
    for (const accept of accepts) {
      const headers: Record<string, string> = {};
      if (body !== undefined) headers['content-type'] = body.type;
      if (accept !== undefined) headers.accept = accept;
      out.push({ op, path, headers, body: body?.payload, label: `${op.operation.method} ${op.path} (${op.operation.id}) content-type ${body?.type ?? '-'} accept ${accept ?? '-'}` });
    }
  }
  return out;
}

function requestPath(op: ServedOperation): string {
  const path = op.path.replace(/\{[^{}]+\}/g, 'zq9');
  const d = op.operation.queryDiscriminator;
  return d === undefined ? path : `${path}?${encodeURIComponent(d.name)}${d.value === undefined ? '' : `=${encodeURIComponent(d.value)}`}`;
}

interface Body {
  type: string;
  payload: string | Buffer;
}

/** A body per declared request media type: the contract's example, else one synthesized from the schema. */
function requestBodies(op: ServedOperation, contract: Contract): (Body | undefined)[] {
  const located = op.operation.requestBody;
  const content = located?.value.content ?? {};
  const types = Object.keys(content);
  if (located === undefined || types.length === 0) return [undefined];
  const synthesizer = new Synthesizer(contract, () => {});
  return types.map((type) => {
    const media = content[type] as MediaTypeObject;
    const value = exampleOf(media, located.uri, contract) ?? synthesizer.generator(media.schema, located.uri)({ random: undefined, spent: 0 }, 0);
    return encode(value, concreteType(type), media.schema, contract, located.uri);
  });
}

function exampleOf(media: MediaTypeObject, uri: string, contract: Contract): unknown {
  if (media.example !== undefined) return media.example;
  for (const entry of Object.values(media.examples ?? {})) {
    const sample = exampleSample(contract.refs.deref(entry, uri).value);
    if (sample !== undefined && 'data' in sample) return sample.data;
  }
  return undefined;
}

function concreteType(type: string): string {
  const e = essence(type);
  if (e === '*/*' || e === 'application/*') return 'application/json';
  if (e === 'text/*') return 'text/plain';
  if (e.includes('*')) return e.replace(/\*.*$/, 'octet-stream');
  return type;
}

function encode(value: unknown, type: string, schema: unknown, contract: Contract, uri: string): Body {
  if (isJsonMediaType(type)) return { type, payload: JSON.stringify(value ?? null) };
  if (isXmlMediaType(type)) return { type, payload: writeXml(value, contract.refs.deref<Schema>(schema, uri).value, { deref: (s) => contract.refs.deref<Schema>(s, uri).value }) };
  if (isYamlMediaType(type)) return { type, payload: stringifyYaml(value ?? null) };
  const e = essence(type);
  if (e === 'application/x-www-form-urlencoded') return { type, payload: new URLSearchParams(flat(value)).toString() };
  if (e.startsWith('multipart/')) {
    const boundary = 'fidelity-boundary-1';
    const parts = flat(value).map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
    return { type: `${e}; boundary=${boundary}`, payload: `${parts.join('')}--${boundary}--\r\n` };
  }
  return { type, payload: typeof value === 'string' ? value : JSON.stringify(value ?? 'bytes') };
}

/** An object's fields as form pairs: scalars as text, the rest as JSON text. */
function flat(value: unknown): [string, string][] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [['value', String(value)]];
  return Object.entries(value).flatMap(([k, v]) => (Array.isArray(v) ? v.map((i) => [k, scalarText(i)] as [string, string]) : [[k, scalarText(v)] as [string, string]]));
}

function scalarText(v: unknown): string {
  return v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function judgeAnswer(judge: Judge, contract: string, request: Request, res: RawResponse): void {
  const where = `${contract}: ${request.label} → ${res.status}`;
  const { op } = request;
  const judged = judge.operation(op.operation.method, op.operation.path);
  if (judged === undefined) {
    tally.checked++;
    tally.violations.push(`${where}: openapi-backend knows no such operation`);
    return;
  }
  const responses = (judged.responses ?? {}) as Record<string, JudgedResponse>;
  const accept = request.headers.accept;
  if (res.status === 406 && accept !== undefined) {
    // A refusal is right when the response the mock must choose does not offer the asked type, or offers
    // it only in a form no encoder of ours writes; otherwise the mock should have answered.
    const offered = Object.keys(chosenResponse(responses)?.content ?? {}).filter((d) => mediaTypeMatches(accept, d) || mediaTypeMatches(d, accept));
    const writable = offered.filter((d) => isJsonMediaType(d) || isXmlMediaType(d) || isYamlMediaType(d) || essence(d).startsWith('text/'));
    if (writable.length > 0) {
      tally.checked++;
      tally.violations.push(`${where}: refused although the chosen response offers ${writable.join(', ')}`);
    } else tally.refused.push(`${contract}: ${offered.length === 0 ? `${accept} is not offered by the response the mock chooses` : `${accept} cannot be written`}`);
    return;
  }
  tally.checked++;
  if (request.body !== undefined && request.body.length > 0 && res.body === request.body.toString()) tally.echoed++;
  if (Object.keys(responses).length === 0) {
    if (res.status !== 204) tally.violations.push(`${where}: the operation declares no response, the answer is not 204`);
    return;
  }
  const response = statusMatch(res.status, responses);
  if (response === null) {
    tally.contractCaused.push(`${where}: the contract declares status ${res.status} as null, not a Response Object`);
    return;
  }
  if (response === undefined) {
    tally.violations.push(`${where}: status ${res.status} is not declared (${Object.keys(responses).join(', ')})`);
    return;
  }
  let headerCheck;
  try {
    headerCheck = judge.api.validator.validateResponseHeaders(res.headers, judged, { statusCode: res.status, setMatchType: SetMatchType.Superset });
  } catch (err) {
    tally.judgeCannotCheck.push(`${where}: headers: ${(err as Error).message}`);
    return;
  }
  if (!headerCheck.valid) tally.violations.push(`${where}: headers ${JSON.stringify(headerCheck.errors).slice(0, 300)}`);
  const declared = Object.keys(response.content ?? {});
  const type = res.headers['content-type'];
  if (declared.length === 0) {
    if (res.body !== '') tally.violations.push(`${where}: a body where the response declares no content`);
    return;
  }
  if (res.body === '' || type === undefined) {
    tally.violations.push(`${where}: no body where the response declares ${declared.join(', ')}`);
    return;
  }
  const mediaType = declared.find((d) => mediaTypeMatches(d, type) && (d.includes('*') || sameParameters(d, type)));
  if (mediaType === undefined) {
    tally.violations.push(`${where}: Content-Type ${type} is not declared (${declared.join(', ')})`);
    return;
  }
  if (request.headers.accept !== undefined && !acceptable(request.headers.accept, type)) tally.violations.push(`${where}: Content-Type ${type} was not asked for`);
  const media = response.content![mediaType]!;
  let value: unknown;
  let error: string | undefined;
  try {
    if (isJsonMediaType(type)) value = JSON.parse(res.body);
    else if (isYamlMediaType(type)) value = parseYaml(res.body);
    else {
      tally.typeOnly++;
      return;
    }
  } catch (err) {
    tally.violations.push(`${where}: the body is not ${type}: ${(err as Error).message}`);
    return;
  }
  try {
    if (mediaType === 'application/json') {
      const result = judge.api.validator.validateResponse(value, judged, res.status);
      if (!result.valid) error = JSON.stringify(result.errors).slice(0, 300);
    } else if (media.schema !== undefined) {
      error = judge.check(media.schema, value);
    }
  } catch (err) {
    tally.judgeCannotCheck.push(`${where}: ${(err as Error).message}`);
    return;
  }
  tally.bodiesValidated++;
  if (error === undefined) return;
  const message = `${where}: ${error} in ${res.body.slice(0, 200)}`;
  if (isContractExample(value, media)) tally.contractCaused.push(message);
  else tally.violations.push(message);
}

/** The response SPEC §7 step 2 chooses, computed here from openapi-backend's view of the operation. */
function chosenResponse(responses: Record<string, JudgedResponse>): JudgedResponse | undefined {
  const codes = Object.keys(responses).filter((c) => /^[1-5]\d\d$/.test(c)).sort();
  const success = codes.find((c) => c.startsWith('2'));
  const key = success ?? (Object.hasOwn(responses, '2XX') ? '2XX' : Object.hasOwn(responses, 'default') ? 'default' : codes[0]);
  return key === undefined ? undefined : responses[key];
}

function acceptable(accept: string, type: string): boolean {
  const [t, s] = essence(type).split('/');
  return accept.split(',').some((range) => {
    const [r, ...params] = range.trim().toLowerCase().split(';');
    if (params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p))) return false;
    const [rt, rs] = r!.trim().split('/');
    return (rt === '*' || rt === t) && (rs === '*' || rs === s);
  });
}

