// ticker.mjs — run with: node dist/main.js ticker.mjs --port 8080
import { RouteBuilder } from 'svc-facade';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export default class Ticker extends RouteBuilder {
  configure() {
    this.restConfiguration().clientResponseValidation(true);
    this.rest().openApi().specification('ticker.yaml');
    this.from('direct:watchPrices').process((ex) => {
      ex.body = (async function* () {
        try {
          for (let id = 1; ; id++) {
            yield { event: 'tick', id: String(id), data: { symbol: 'ACME', price: 12 + id / 4 } };
            await sleep(1000);
          }
        } finally {
          console.log('client gone: ticker stopped');
        }
      })();
    });
  }
}
