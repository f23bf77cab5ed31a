// Headers.lazy: the request's headers are filled in when first read, and what a route wrote before that
// stays on top, as if the request's had been there from the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Headers, NEEDS_FILL, type LazyRequestHeaders } from '../../lib/message/exchange.js';

function source(): LazyRequestHeaders & { fills: number } {
  return {
    fills: 0,
    incoming: { accept: 'text/plain', 'x-both': 'header', svchttpmethod: 'forged' },
    fill(headers: Headers) {
      this.fills++;
      headers.setIncoming('q', 'query');
      headers.setIncoming('x-both', ['header', 'query']);
      headers.setIncoming('SvcHttpMethod', this.peek('svchttpmethod'));
    },
    peek(key: string) {
      if (key === 'svchttpmethod') return 'GET';
      return key === 'svchttppath' ? undefined : NEEDS_FILL;
    },
  };
}

test('writing and reading written or internal names does not fill; reading anything else does, once', () => {
  const s = source();
  const h = Headers.lazy(s);
  h.set('Content-Type', 'application/json');
  h.set('q', 'route');
  assert.equal(h.get('content-type'), 'application/json');
  assert.equal(h.get('SvcHttpResponseCode'), undefined);
  assert.equal(h.get('q'), 'route');
  assert.equal(s.fills, 0);
  assert.deepEqual(h.get('x-both'), ['header', 'query']);
  assert.equal(s.fills, 1);
  assert.equal(h.get('q'), 'route', 'the route wrote q: its value stays on top');
  assert.equal(h.get('accept'), 'text/plain');
  assert.equal(h.get('svchttpmethod'), 'GET');
  assert.equal(s.fills, 1);
  assert.deepEqual(h.writtenNames(), ['content-type', 'q']);
});

test('an internal request name is read without filling; has, delete and toObject fill first', () => {
  const s = source();
  const lazy = Headers.lazy(s);
  assert.equal(lazy.get('SvcHttpMethod'), 'GET');
  assert.equal(lazy.get('SvcHttpPath'), undefined);
  assert.equal(s.fills, 0);
  lazy.set('SvcHttpMethod', 'POST');
  assert.equal(lazy.get('svchttpmethod'), 'POST', 'what a route wrote stays on top');
  assert.equal(lazy.get('accept'), 'text/plain');
  assert.equal(lazy.get('SvcHttpMethod'), 'POST', 'and stays on top after the fill');
  assert.equal(s.fills, 1);
  assert.equal(Headers.lazy(source()).has('accept'), true);
  const deleted = Headers.lazy(source());
  deleted.delete('q');
  assert.equal(deleted.get('q'), undefined);
  const h = Headers.lazy(source());
  h.set('accept', 'application/json');
  assert.deepEqual(h.toObject(), { accept: 'application/json', 'x-both': ['header', 'query'], q: 'query', svchttpmethod: 'GET' });
});

test('the writer reads what the exchange was given without filling: written values, and the response code as get gives it', () => {
  const s = source();
  const h = Headers.lazy(s);
  assert.equal(h.writtenValue('accept'), undefined, 'a request header is not a written one');
  h.setIncoming('x-in', 'incoming');
  h.set('Content-Type', 'text/csv');
  assert.equal(h.writtenValue('x-in'), undefined, 'set as incoming: not sent back');
  assert.equal(h.writtenValue('content-type'), 'text/csv');
  assert.equal(h.internalValue('svchttpresponsecode'), undefined);
  h.set('SvcHttpResponseCode', 201);
  assert.equal(h.internalValue('svchttpresponsecode'), 201);
  h.delete('content-type');
  assert.equal(h.writtenValue('content-type'), undefined);
  const plain = Headers.fromRequest({ svchttpresponsecode: '500', 'content-type': 'text/plain' });
  assert.equal(plain.internalValue('svchttpresponsecode'), plain.get('SvcHttpResponseCode'), 'a client cannot choose the status');
  assert.equal(plain.writtenValue('content-type'), undefined);
});
