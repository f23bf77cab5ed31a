// Injected into the CommonJS bundle (scripts/build.mjs): what import.meta.url was in lib/, the bundle's URL.
export const __svcImportMetaUrl = require('node:url').pathToFileURL(__filename).href;
