// Bench: OpenAPI 3.2 sequential media types (issue 13). A POST of JSON Lines read item by item and checked
// against `itemSchema` by a route that counts the items, and a GET whose route answers an async generator
// written as Server-Sent Events. Runs against the built package (npm run bench builds first).
import { RouteBuilder } from '../../dist/index.js';

export default class StreamsBench extends RouteBuilder {
  configure() {
    this.restConfiguration().clientRequestValidation(true);
    this.rest().openApi().specification('../../test/fixtures/streams/streams.yaml').missingOperation('ignore');
    this.from('direct:importLogs').process(async (ex) => {
      let count = 0;
      for await (const _ of ex.body) count++;
      ex.body = { count };
    });
    this.from('direct:watchPrices').process((ex) => {
      ex.body = (async function* () {
        for (let i = 0; i < 10; i++) yield { event: 'tick', id: String(i), data: { symbol: 'ACME', price: i } };
      })();
    });
  }
}
