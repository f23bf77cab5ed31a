// Configuration objects in code are typed to the leaves (issue 23): createFacade's restConfiguration,
// server, backend and observe, and the fluent API's options({...}). Compiled with the TypeScript compiler
// (strict) against lib/index.ts: each line after a `// @ts-expect-error` must be where an error is, and the
// same file without those comments must get exactly one error on each of those lines and no other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT, tempDir, withoutExpectErrors } from '../helpers.js';

const SOURCE = `import { createFacade, RouteBuilder } from ${JSON.stringify(join(ROOT, 'lib/index.js'))};

await createFacade({
  specification: 'petstore.json',
  restConfiguration: { clientRequestValidation: true, bindingMode: 'json', port: 9123, host: '127.0.0.1', endpointProperty: [{ key: 'oauthProfile', value: 'main' }] },
  server: { port: 9123, requestTimeout: '10s', headersTimeout: 5000, maxBodySize: '2MiB', workers: 2 },
  backend: { timeout: '5s', maxConnections: 64, exposeOrigin: false },
  observe: { logFormat: 'json', accessLog: true },
  cors: { allowOrigins: 'https://app.example', allowCredentials: true, maxAge: 600 },
});
// @ts-expect-error a nested typo: clientRequestValidaton
await createFacade({ specification: 'x', restConfiguration: { clientRequestValidaton: true } });
// @ts-expect-error no such server option
await createFacade({ specification: 'x', server: { prot: 9123 } });
// @ts-expect-error a port is a number
await createFacade({ specification: 'x', server: { port: '9123' } });
// @ts-expect-error bindingMode has no value yaml
await createFacade({ specification: 'x', restConfiguration: { bindingMode: 'yaml' } });
// @ts-expect-error no such backend option
await createFacade({ specification: 'x', backend: { timout: '5s' } });
// @ts-expect-error maxAge is a number of seconds
await createFacade({ specification: 'x', cors: { maxAge: '1h' } });
// @ts-expect-error logFormat is text or json
await createFacade({ specification: 'x', observe: { logFormat: 'xml' } });

export class Sidecar extends RouteBuilder {
  override configure(): void {
    this.server().port(9123).requestTimeout('10s').options({ workers: 2, keepAliveTimeout: 1000 });
    this.backend().timeout(5000).options({ queueTimeout: '1s' });
    this.restConfiguration().port(9123).host('0.0.0.0');
    // @ts-expect-error no such server option
    this.server().options({ wokers: 2 });
    // @ts-expect-error workers is a number
    this.server().workers('2');
  }
}
`;

/** The errors tsc --strict reports in `file` (not in lib/, which other work may have in flux), as line numbers. */
function errorLines(file: string): { lines: number[]; messages: string[] } {
  const program = ts.createProgram([file], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')], skipLibCheck: true });
  const source = program.getSourceFile(file)!;
  const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  return {
    lines: diagnostics.map((d) => source.getLineAndCharacterOfPosition(d.start!).line + 1),
    messages: diagnostics.map((d) => `${source.getLineAndCharacterOfPosition(d.start!).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
  };
}

test('createFacade and fluent options typed to the leaves: a misspelt or mistyped option is a compile error', () => {
  const dir = tempDir({ 'package.json': '{"type":"module","private":true}' });
  const withComments = join(dir, 'options.mts');
  writeFileSync(withComments, SOURCE);
  assert.deepEqual(errorLines(withComments).messages, [], 'every @ts-expect-error is used, and nothing else is an error');
  const { text, lines } = withoutExpectErrors(SOURCE);
  const without = join(dir, 'options-bare.mts');
  writeFileSync(without, text);
  const found = errorLines(without);
  assert.deepEqual(found.lines, lines, found.messages.join('\n'));
});
