/** The min-heap: whatever the order items go in, they come out first to last by `before`. */
import { describe, expect, it } from 'vitest';
import { MinHeap } from './min-heap.js';

function drain<T>(heap: MinHeap<T>): T[] {
  const out: T[] = [];
  for (let item = heap.pop(); item !== undefined; item = heap.pop()) out.push(item);
  return out;
}

/** A fixed shuffle of 0..n-1 (a linear congruential walk), so a failure repeats. */
function shuffled(n: number): number[] {
  const items = Array.from({ length: n }, (_, i) => i);
  let seed = 12345;
  for (let i = n - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

const ascending = (a: number, b: number) => a < b;

describe('MinHeap', () => {
  it('pops pushed items smallest first', () => {
    const heap = new MinHeap(ascending);
    for (const n of shuffled(200)) heap.push(n);
    expect(drain(heap)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('pops items added at once by pushAll, mixed with pushed ones, smallest first', () => {
    const heap = new MinHeap(ascending);
    const items = shuffled(100);
    for (const n of items.slice(0, 30)) heap.push(n);
    heap.pushAll(items.slice(30));
    expect(drain(heap)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('peeks at the first item without removing it, and is empty after the last pop', () => {
    const heap = new MinHeap(ascending);
    expect(heap.peek()).toBeUndefined();
    heap.push(7);
    heap.push(3);
    heap.push(5);
    expect(heap.peek()).toBe(3);
    expect(heap.peek()).toBe(3);
    expect(drain(heap)).toEqual([3, 5, 7]);
    expect(heap.pop()).toBeUndefined();
    expect(heap.peek()).toBeUndefined();
  });

  it('orders by the comparator given: ties broken by a second key', () => {
    const heap = new MinHeap<{ at: number; order: number }>((a, b) => a.at < b.at || (a.at === b.at && a.order < b.order));
    heap.pushAll([{ at: 2, order: 1 }, { at: 1, order: 3 }, { at: 1, order: 2 }]);
    heap.push({ at: 1, order: 1 });
    expect(drain(heap)).toEqual([{ at: 1, order: 1 }, { at: 1, order: 2 }, { at: 1, order: 3 }, { at: 2, order: 1 }]);
  });
});
