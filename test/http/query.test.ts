// The query parser the runtime uses once per request: the same pairs URLSearchParams gives, whether or not
// the query needs decoding (the plain ones are split without it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery } from '../../lib/http/query.js';

const QUERIES = [
  '',
  'username=a&password=b',
  'a=1&a=2&b',
  'a=1&&b=2&',
  '&&&',
  '=x&y=',
  'a=b=c',
  'pt[x]=5&pt[y]=6',
  '?a=1',
  '??a=1',
  'q=a+b&r=%20c',
  'bad=%zz&ok=%41',
  'half=%C3',
  'k%3D=v%26w',
  'emoji=%F0%9F%98%80',
  'x=1;y=2',
  'ünïcödé=wert',
  '__proto__=1&constructor=2',
];

test('parseQuery gives the pairs URLSearchParams gives, in order', () => {
  for (const query of QUERIES) {
    assert.deepEqual(parseQuery(query), [...new URLSearchParams(query)], JSON.stringify(query));
  }
});
