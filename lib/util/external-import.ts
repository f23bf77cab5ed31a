// import() of what lives outside the bundle: user route modules, binding classes, tsx.
//
// The built CLI and API run as one CommonJS bundle compiled through vm.Script (so that V8's code cache can
// skip the compile, see scripts/build.mjs), and import() inside a vm.Script has no module loader. The
// bundle's host (dist/load.js) passes its own import() in as the bundle's parameter __svcImport; under tsx
// (tests, `.ts` sources) that name is undeclared and the plain import() serves.
declare const __svcImport: ((specifier: string) => Promise<unknown>) | undefined;

export const importExternal: (specifier: string) => Promise<unknown> =
  typeof __svcImport === 'function' ? __svcImport : (specifier) => import(specifier);
