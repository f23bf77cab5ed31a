// The proof for synthesized mock answers (SPEC §7): every GET operation of every 3.x contract of the test
// corpus (test/corpus/manifest.json) is mocked, in static and in dynamic mode, and each answer is checked
// with our response validation: the status is one the operation declares, a body is present wherever the
// chosen response declares content, and that body conforms to the response schema. Each answer is graded
// again by an independent judge (openapi-backend: its own dereferencing and ajv, test/fixtures/independent-judge.ts),
// so the mock is never graded only by the code that made it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'node:http';
import { createFacade, type ServedOperation } from '../../lib/index.js';
import type { Contract } from '../../lib/contract/load.js';
import type { MediaTypeObject } from '../../lib/contract/operations.js';
import { CORPUS, memoryLogger } from '../helpers.js';
import { mapLimit, rawRequest, type RawResponse } from '../fixtures/http.js';
import { checkAnswer } from '../fixtures/response-check.js';
import { isContractExample, loadJudge, sameParameters, statusMatch, type Judge, type JudgedResponse } from '../fixtures/independent-judge.js';
import { isJsonMediaType, isYamlMediaType, mediaTypeMatches } from '../../lib/http/negotiation.js';
import { parse as parseYaml } from 'yaml';

interface ManifestEntry {
  name: string;
  entry: string;
  openapi: string;
}

const manifest = (JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as ManifestEntry[]).filter((e) => /^3\.[01]\./.test(e.openapi));
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
after(() => agent.destroy());

/**
 * Failures known and not yet fixed, by the start of their message, with the reason: responses declared only
 * under a wildcard media type (`image/*`, `*`), which the mock cannot label with a concrete type. Each must
 * still occur (a fixed one is to be removed from here), and nothing else may fail.
 */
const KNOWN_FAILURES = new Map<string, string>([
  ['GET /v2/documents/{id}/download (downloadDocServiceDocument): media type application/problem+json', 'telnyx: the only media type is "*"'],
  ['GET /v2/whatsapp_media/{whatsapp_user_id}/{media_id} (GENOPID_GET.whatsapp_media._whatsapp_user_id_._media_id_): media type application/problem+json', 'telnyx: the only media type is "*"'],
]);
const isKnown = (failure: string): boolean => [...KNOWN_FAILURES.keys()].some((k) => failure.includes(k));

/** Dynamic mode is checked with several seeds per operation, so different branches and sizes are met. */
const SEEDS = ['1', '2', '3'];

interface Tally {
  /** Answers whose response declares content. */
  withContent: number;
  bodyPresent: number;
  conforming: number;
  undeclaredStatus: number;
  /** Answers that are the contract's own example (served as written, SPEC §7), and how many of them conform. */
  fromExample: number;
  examplesConforming: number;
  /** Everything else that went wrong: asserted empty. */
  failures: string[];
}

const newTally = (): Tally => ({ withContent: 0, bodyPresent: 0, conforming: 0, undeclaredStatus: 0, fromExample: 0, examplesConforming: 0, failures: [] });

/** True when the mock answers this media type with the contract's example rather than a synthesized body. */
function hasExample(media: MediaTypeObject | undefined, uri: string, contract: Contract): boolean {
  if (media === undefined) return false;
  if (media.example !== undefined) return true;
  if (Object.values(media.examples ?? {}).some((e) => Object.hasOwn(contract.refs.deref<object>(e, uri).value ?? {}, 'value'))) return true;
  const schema = contract.refs.deref<Record<string, unknown> | null>(media.schema, uri).value;
  return !!schema && typeof schema === 'object' && (schema.example !== undefined || (Array.isArray(schema.examples) && schema.examples.length > 0));
}

function requestPath(op: ServedOperation): string {
  const path = op.path.replace(/\{[^{}]+\}/g, 'zq9');
  const d = op.operation.queryDiscriminator;
  return d === undefined ? path : `${path}?${encodeURIComponent(d.name)}${d.value === undefined ? '' : `=${encodeURIComponent(d.value)}`}`;
}

/** Checks one answer with our response validation, counting into `tally`. */
function tallyAnswer(op: ServedOperation, res: RawResponse, contract: Contract, tally: Tally, mode: string): void {
  const where = `${mode} ${op.operation.method} ${op.path} (${op.operation.id})`;
  const type = res.headers['content-type'];
  const check = checkAnswer(contract, op.operation, res.status, type, res.body);
  if (check.response === undefined && !check.nothingDeclared) {
    tally.undeclaredStatus++;
    tally.failures.push(`${where}: status ${res.status} is not declared`);
  }
  if (Object.keys(check.response?.value.content ?? {}).length === 0) return;
  tally.withContent++;
  if (res.body === '' || type === undefined) {
    tally.failures.push(`${where}: no body (status ${res.status})`);
    return;
  }
  tally.bodyPresent++;
  if (check.mediaType === undefined) {
    tally.failures.push(`${where}: media type ${type} is not declared`);
    return;
  }
  const example = mode === 'static' && hasExample(check.response!.value.content![check.mediaType], check.response!.uri, contract);
  if (example) tally.fromExample++;
  if (check.violations.length === 0) {
    tally.conforming++;
    if (example) tally.examplesConforming++;
  } else if (!example) tally.failures.push(`${where}: ${JSON.stringify(check.violations.slice(0, 3))} in ${res.body.slice(0, 300)}`);
}

/** What the independent judge saw. */
const judged = {
  bodies: 0,
  /** Answers in a media type the judge has no body check for (XML, text, binary): status and type judged. */
  typeOnly: 0,
  /** The contract's own examples that the judge finds invalid (served as written, SPEC §7): counted apart. */
  contractCaused: 0,
  violations: [] as string[],
  cannotCompile: [] as string[],
  cannotLoad: [] as string[],
};

/**
 * Contracts openapi-backend cannot load (its dereferencing fails), with why: graded by our own check only.
 * The three test/mock/fidelity.test.ts lists, and GitHub 1.1.4 (which that test does not judge); asserted, so
 * one it comes to load is graded from then on.
 */
const JUDGE_CANNOT_LOAD: Record<string, string> = {
  'apisguru-github-1.1.4': 'example values hold SCIM objects whose `$ref: https://api.github.com/scim/...` is data; json-schema-ref-parser tries to download it',
  'digitalocean-slice (multi-file)': 'json-schema-ref-parser fails on path items that are $refs to other files',
  'redocly-openapi-starter (multi-file)': 'x-codeSamples $ref source files that the contract does not ship',
  'readme-3.0-circular-paths': 'a path item $ref that json-schema-ref-parser leaves null',
};

/** Grades one answer as openapi-backend sees the operation: status declared, Content-Type declared, body valid. */
function judgeAnswer(judge: Judge, contract: string, op: ServedOperation, res: RawResponse, mode: string): void {
  const where = `${contract}: ${mode} ${op.operation.method} ${op.path} (${op.operation.id})`;
  const operation = judge.operation(op.operation.method, op.operation.path);
  if (operation === undefined) return void judged.violations.push(`${where}: openapi-backend knows no such operation`);
  const responses = (operation.responses ?? {}) as Record<string, JudgedResponse | null>;
  if (Object.keys(responses).length === 0) return;
  const response = statusMatch(res.status, responses);
  if (response === undefined) return void judged.violations.push(`${where}: status ${res.status} is not declared (${Object.keys(responses).join(', ')})`);
  const declared = Object.keys(response?.content ?? {});
  if (response === null || declared.length === 0) return;
  const type = res.headers['content-type'];
  if (res.body === '' || type === undefined) return void judged.violations.push(`${where}: no body where the response declares ${declared.join(', ')}`);
  const mediaType = declared.find((d) => mediaTypeMatches(d, type) && (d.includes('*') || sameParameters(d, type)));
  if (mediaType === undefined) return void judged.violations.push(`${where}: media type ${type} is not declared (${declared.join(', ')})`);
  const media = response.content![mediaType]!;
  let value: unknown;
  try {
    if (isJsonMediaType(type)) value = JSON.parse(res.body);
    else if (isYamlMediaType(type)) value = parseYaml(res.body);
    else return void judged.typeOnly++;
  } catch (err) {
    return void judged.violations.push(`${where}: the body is not ${type}: ${(err as Error).message}`);
  }
  if (media.schema === undefined) return void judged.bodies++;
  let error: string | undefined;
  try {
    error = judge.check(media.schema, value);
  } catch (err) {
    return void judged.cannotCompile.push(`${contract}: ${(err as Error).message.slice(0, 200)}`);
  }
  judged.bodies++;
  if (error === undefined) return;
  if (mode === 'static' && isContractExample(value, media)) judged.contractCaused++;
  else judged.violations.push(`${where}: status ${res.status}, ${error} in ${res.body.slice(0, 200)}`);
}

const figures: Record<'static' | 'dynamic', Tally> = { static: newTally(), dynamic: newTally() };

test('every GET of every 3.x corpus contract is mocked with a declared status and a conforming body, static and dynamic', async (t) => {
  for (const entry of manifest) {
    await t.test(entry.name, async () => {
      const logger = memoryLogger();
      const judge = await loadJudge(join(CORPUS, entry.entry));
      if (typeof judge === 'string') judged.cannotLoad.push(entry.name);
      const facade = await createFacade({ specification: join(CORPUS, entry.entry), missingOperation: 'mock' }, { logger });
      const { port } = await facade.listen(0, '127.0.0.1');
      const origin = `http://127.0.0.1:${port}`;
      try {
        const gets = facade.operations.filter((op) => op.operation.method === 'GET');
        const answers: [ServedOperation, RawResponse, string][] = [];
        await mapLimit(gets, 8, async (op) => {
          const path = requestPath(op);
          const headers = { accept: 'application/json, application/xml;q=0.9, */*;q=0.8' };
          const answer = await rawRequest(origin, path, { headers, agent });
          tallyAnswer(op, answer, facade.contract, figures.static, 'static');
          answers.push([op, answer, 'static']);
          for (const seed of SEEDS) {
            const res = await rawRequest(origin, path, { headers: { ...headers, prefer: `dynamic=true, seed=${seed}` }, agent });
            tallyAnswer(op, res, facade.contract, figures.dynamic, `dynamic seed=${seed}`);
            answers.push([op, res, `dynamic seed=${seed}`]);
          }
        });
        // Judged once all are answered: the judge compiles in this process, and seconds of it between requests
        // would let the server close kept-alive connections just as the client reuses them.
        if (typeof judge !== 'string') for (const [op, res, mode] of answers) judgeAnswer(judge, entry.name, op, res, mode);
      } finally {
        await facade.stop();
      }
    });
  }
  for (const [mode, tally] of Object.entries(figures)) {
    const synthesized = tally.bodyPresent - tally.fromExample;
    const examples = tally.fromExample === 0 ? '' : ` (synthesized ${tally.conforming - tally.examplesConforming}/${synthesized}; the contract's own examples ${tally.examplesConforming}/${tally.fromExample})`;
    const line = `mock synthesis, ${mode}: ${tally.bodyPresent}/${tally.withContent} answers with a body where content is declared, ${tally.conforming}/${tally.bodyPresent} conform to the schema${examples}, ${tally.undeclaredStatus} undeclared status(es)`;
    t.diagnostic(line);
    console.log(line);
  }
  const judgeLine = `mock synthesis, as openapi-backend judges it: ${judged.bodies} bodies validated, ${judged.typeOnly} status and type only, ${judged.violations.length} violations, ${judged.contractCaused} of the contracts' own examples invalid, ${judged.cannotCompile.length} schemas it cannot compile; not loaded: ${judged.cannotLoad.join(', ')}`;
  t.diagnostic(judgeLine);
  console.log(judgeLine);
  const all = Object.values(figures).flatMap((tally) => tally.failures);
  assert.deepEqual(judged.cannotLoad, Object.keys(JUDGE_CANNOT_LOAD), 'contracts openapi-backend cannot load');
  const judgedViolations = judged.violations.filter((v) => !isKnown(v));
  assert.deepEqual(judgedViolations.slice(0, 20), [], `${judgedViolations.length} answer(s) the independent judge finds outside the contract`);
  assert.deepEqual(judged.cannotCompile.slice(0, 5), [], 'every response schema compiles for the judge');
  assert.ok(judged.bodies > 4500, `${judged.bodies} bodies validated by the independent judge`);
  for (const known of KNOWN_FAILURES.keys()) assert.ok(all.some((f) => f.includes(known)), `no longer fails: ${known}`);
  for (const tally of Object.values(figures)) {
    const failures = tally.failures.filter((f) => !isKnown(f));
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failure(s)`);
    assert.equal(tally.bodyPresent, tally.withContent);
    assert.ok(tally.withContent > 900, 'the corpus has over 900 GET operations with content');
  }
});
