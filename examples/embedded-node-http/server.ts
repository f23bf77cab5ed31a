// server.ts — run with: node --import tsx server.ts
import { createServer } from 'node:http';
import { createFacade, type Exchange } from 'svc-facade';

const facade = await createFacade(
  {
    specification: '../../spec/petstore-v3.json', // resolved from baseDir (default: the working directory)
    missingOperation: 'ignore',
    restConfiguration: { contextPath: '/api' },
    basePath: '/v3', // = svc.component.rest-openapi.base-path (wins)
    server: { maxBodySize: '256KiB' },
    properties: { 'svc.server.shutdownTimeout': '5s' },
    routes: {
      getPetById: (ex: Exchange) => void (ex.body = { id: Number(ex.header('petId')) }),
      'direct:getInventory': [{ kind: 'setBody', expression: { json: { available: 7 } } }],
    },
  },
  { env: process.env },
);

const port = Number(process.env.PORT ?? 8080);
// A plain node:http listener. Express/Connect: app.use(facade.middleware) (examples/embedded-express).
// The facade's own server instead: const { port } = await facade.listen(0, '127.0.0.1'); ...; await facade.stop();
createServer(facade.handler).listen(port, () => console.log(`listening on http://localhost:${port}`));
