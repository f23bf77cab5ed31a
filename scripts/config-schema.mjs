#!/usr/bin/env node
// `npm run schema`: writes config.schema.json (the YAML DSL's JSON Schema, published as
// svc-facade/config.schema.json) from lib/config/json-schema.ts. test/config/json-schema.test.ts fails
// while the committed file differs from what this writes. Runs under tsx (node --import tsx).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configurationSchemaText } from '../lib/config/json-schema.ts';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'config.schema.json');
writeFileSync(file, configurationSchemaText());
console.log(`wrote ${file}`);
