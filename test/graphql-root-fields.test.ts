// The root fields an operation counts as requests: one per response key it runs, whether selected
// directly, by alias or through fragments; __typename is not an operation and counts nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getOperationAST, parse } from 'graphql';
import { rootFieldCount } from '../src/http/graphql/root-fields.js';

const count = (text: string, operationName?: string) => {
  const document = parse(text);
  return rootFieldCount(document, getOperationAST(document, operationName)!);
};

test('each aliased root field counts once; nested fields and repeats of one key do not count', () => {
  assert.equal(count('{ myself { id pods { id } } }'), 1);
  assert.equal(count('{ myself { id } myself { pods { id } } }'), 1, 'execution merges them into one call');
  assert.equal(count('mutation { a: podStop(input: {podId: "1"}) { id } b: podStop(input: {podId: "2"}) { id } }'), 2);
  assert.equal(count('{ __typename myself { id } }'), 1);
});

test('fields reached through fragments count once each, however often they are spread', () => {
  const text = `
    query Q { ...Two ... on Query { c: myself { id } } ...Two }
    query Other { myself { id } }
    fragment Two on Query { a: myself { id } b: myself { id } }`;
  assert.equal(count(text, 'Q'), 3);
  assert.equal(count(text, 'Other'), 1);
});

test('a fragment that spreads itself (an invalid document) ends the count instead of looping', () => {
  assert.equal(count('{ ...Loop } fragment Loop on Query { myself { id } ...Loop }'), 1);
});
