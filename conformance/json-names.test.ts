import { describe, expect, it } from 'vitest';
import { repeatedNames } from './json-names.js';

describe('repeatedNames', () => {
  it('finds a name given twice in one object, at any depth, however it is escaped', () => {
    expect(repeatedNames('{"a":1,"b":2,"a":3}')).toEqual(['a']);
    expect(repeatedNames('{"x":{"id":"pr_1","id":"pr_2"}}')).toEqual(['id']);
    expect(repeatedNames('{"a":1,"\\u0061":2}')).toEqual(['a']);
    expect(repeatedNames('[{"a":1},{"a":2,"b":{"a":3,"a":4}}]')).toEqual(['a']);
  });

  it('does not count equal names in different objects, names inside strings, or values that look like names', () => {
    expect(repeatedNames('{"a":{"a":1},"b":[{"a":2},{"a":3}]}')).toEqual([]);
    expect(repeatedNames('{"a":"\\"a\\":1,","b":"a"}')).toEqual([]);
    expect(repeatedNames('{"list":["a","a"],"c":"a"}')).toEqual([]);
    expect(repeatedNames('"just a string"')).toEqual([]);
  });
});
