// Bench: GET answered by a route that returns a class instance, written by the binding as JSON or XML
// (the Accept header decides). Runs against the built package (npm run bench builds first).
import { RouteBuilder } from '../../dist/index.js';

class Pet {
  constructor(id) {
    this.id = id;
    this.name = 'doggie';
    this.status = 'available';
    this.photoUrls = [];
  }
}

export default class BindingBench extends RouteBuilder {
  configure() {
    this.restConfiguration().bindingMode('json_xml');
    this.rest().openApi().specification('../../spec/petstore-v3.json').missingOperation('ignore');
    this.from('direct:getPetById').process((ex) => {
      ex.body = new Pet(Number(ex.header('petId')));
    });
  }
}
