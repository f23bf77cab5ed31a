// The mock file a request path selects (requestKey): plain paths are taken as they are, anything else is
// split, decoded and checked segment by segment, with the same answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestKey } from '../../lib/mock/files.js';

test('requestKey: plain paths as they are, escaped ones decoded, unsafe ones select no file', () => {
  const cases: [string, string | undefined][] = [
    ['/pet/1', 'pet/1'],
    ['/pet/1/', 'pet/1'],
    ['pet/1', 'pet/1'],
    ['/store/order/a.b~c_d-e', 'store/order/a.b~c_d-e'],
    ['/pet/%31', 'pet/1'],
    ['/.well-known/x', '.well-known/x'],
    ['/pet/..', undefined],
    ['/pet/./1', undefined],
    ['/pet//1', undefined],
    ['/pet/%2F1', undefined],
    ['/pet/%5C1', undefined],
    ['/pet/%zz', undefined],
    ['/C:/windows', undefined],
    ['/', undefined],
    ['', undefined],
  ];
  for (const [path, key] of cases) assert.equal(requestKey(path), key, path);
});
