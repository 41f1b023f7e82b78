// The root fields an operation counts as requests: one per response key it runs, whether selected
// directly, by alias or through fragments; __typename is not an operation and counts nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getOperationAST, parse } from 'graphql';
import { rootFieldCount } from '../src/http/graphql/root-fields.js';

const count = (text: string, operationName?: string, variables: Record<string, unknown> = {}) => {
  const document = parse(text);
  return rootFieldCount(document, getOperationAST(document, operationName)!, variables);
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

test('fields, inline fragments and spreads that @skip or @include leave out do not count', () => {
  const text = `query Q($on: Boolean!) {
    a: myself @skip(if: true) { id }
    b: myself @include(if: $on) { id }
    ... on Query @skip(if: $on) { c: myself { id } }
    ...D @include(if: $on)
    ...D
  }
  fragment D on Query { d: myself { id } }`;
  assert.equal(count(text, 'Q', { on: true }), 2, 'b, and d once');
  assert.equal(count(text, 'Q', { on: false }), 2, 'c, and d by its unconditional spread');
  assert.equal(count('{ a: myself @skip(if: false) @include(if: true) { id } b: myself @skip(if: true) @include(if: true) { id } }'), 1);
});
