// Writes the files of the ConfigMap in a Kubernetes manifest into a folder, as the pod sees them mounted:
// node extract.mjs MANIFEST FOLDER
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const [manifest, folder] = process.argv.slice(2);
if (!manifest || !folder) throw new Error('usage: node extract.mjs MANIFEST FOLDER');
const configMaps = parseAllDocuments(readFileSync(manifest, 'utf8'))
  .map((doc) => doc.toJS())
  .filter((doc) => doc?.kind === 'ConfigMap');
if (configMaps.length !== 1) throw new Error(`${manifest}: expected one ConfigMap, found ${configMaps.length}`);
mkdirSync(folder, { recursive: true });
for (const [name, text] of Object.entries(configMaps[0].data ?? {})) {
  writeFileSync(join(folder, name), text);
  console.log(`${join(folder, name)} (from ConfigMap ${configMaps[0].metadata.name})`);
}
