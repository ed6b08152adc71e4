/** A binary min-heap: the scheduler's queue of due moments. */

/** Items ordered by `before`. */
export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #before: (a: T, b: T) => boolean;

  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before;
  }

  /** The first item, left in place. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** Adds one item. */
  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.#before(items[index]!, items[parent]!)) break;
      [items[index], items[parent]] = [items[parent]!, items[index]!];
      index = parent;
    }
  }

  /** Adds many items at once: O(n) rather than n pushes, for filling the heap at start. */
  pushAll(added: readonly T[]): void {
    this.#items.push(...added);
    for (let index = (this.#items.length >> 1) - 1; index >= 0; index--) this.#siftDown(index);
  }

  /** Removes and returns the first item. */
  pop(): T | undefined {
    const items = this.#items;
    const first = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.#siftDown(0);
    }
    return first;
  }

  #siftDown(start: number): void {
    const items = this.#items;
    let index = start;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < items.length && this.#before(items[left]!, items[smallest]!)) smallest = left;
      if (right < items.length && this.#before(items[right]!, items[smallest]!)) smallest = right;
      if (smallest === index) return;
      [items[index], items[smallest]] = [items[smallest]!, items[index]!];
      index = smallest;
    }
  }
}
