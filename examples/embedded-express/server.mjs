// server.mjs — run with: node server.mjs
// The facade as Express middleware beside the app's own routes. It goes before any body parser: it reads the
// request body itself, as sent (bounded, validated against the contract); behind a parser it can only work
// from what the parser made of it (docs/configuration.md, "Behind body parsers").
import express from 'express';
import { createFacade } from 'svc-facade';

const facade = await createFacade({
  specification: '../../spec/petstore-v3.json',
  missingOperation: 'mock',
  restConfiguration: { clientRequestValidation: true },
  routes: {
    getPetById: (ex) => void (ex.body = { id: Number(ex.header('petId')), name: 'rex', photoUrls: [] }),
  },
});

const app = express();
app.get('/hello', (req, res) => res.json({ hello: 'from express' })); // the app's own route
app.use(facade.middleware); // the contract's paths; next() for every other path
app.use(express.json(), (req, res) => res.status(404).json({ error: `nothing at ${req.path}` }));

const port = Number(process.env.PORT ?? 8080);
app.listen(port, () => console.log(`listening on http://localhost:${port}`));
