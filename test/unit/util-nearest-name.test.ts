import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance, MAX_DISTINCT_LOOKUPS, NearestName } from '../../src/util/nearest-name.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and an adjacent swap as one edit each, up to the limit', () => {
    assert.equal(editDistance('max_connections', 'max_connections', 2), 0);
    assert.equal(editDistance('max_conections', 'max_connections', 2), 1);
    assert.equal(editDistance('max_connectoins', 'max_connections', 2), 1);
    assert.equal(editDistance('mxa_connectoins', 'max_connections', 2), 2);
    assert.equal(editDistance('key_buffer', 'max_connections', 2), 3);
  });
});

describe('NearestName', () => {
  const names = ['key_buffer_size', 'sort_buffer_size', 'max_connections', 'max_user_connections'];
  const limitOf = (name: string) => (name.length < 8 ? 1 : 2);

  it('finds the one nearest candidate and none when two are as near', () => {
    const nearest = new NearestName(names, limitOf);
    assert.equal(nearest.find('key_bufer_size'), 'key_buffer_size');
    assert.equal(nearest.find('max_connection'), 'max_connections');
    assert.equal(new NearestName(['abcdx', 'abcdy'], limitOf).find('abcdz'), undefined);
    assert.equal(nearest.find('innodb_something'), undefined);
  });

  it('looks each name up once, and answers none once it has looked up its share of distinct names', () => {
    let compared = 0;
    const nearest = new NearestName(names, limitOf, () => {
      compared++;
      return true;
    });
    for (let repeat = 0; repeat < 100; repeat++) assert.equal(nearest.find('key_bufer_size'), 'key_buffer_size');
    assert.equal(compared, names.length);
    for (let index = 1; index < MAX_DISTINCT_LOOKUPS; index++) nearest.find(`name_${index}`);
    compared = 0;
    assert.equal(nearest.find('sort_bufer_size'), undefined);
    assert.equal(compared, 0);
    assert.equal(nearest.find('key_bufer_size'), 'key_buffer_size', 'a name looked up before keeps its answer');
  });
});
