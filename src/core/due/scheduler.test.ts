/** The scheduler against fake clocks and timers: due order, frozen clocks, one timer at the right wall moment. */
import { describe, expect, it } from 'vitest';
import type { AccountClocks, Timers } from '../ports.js';
import { Scheduler, type DueItem } from './scheduler.js';

/** Account clocks as plain state: offset from a fake wall time, or frozen. */
function fakeWorld() {
  let wall = 1_000_000;
  const clocks = new Map<string, { offset: number; frozenAt: number | null }>();
  const state = (id: string) => clocks.get(id) ?? clocks.set(id, { offset: 0, frozenAt: null }).get(id)!;
  const timers: Array<{ at: number; callback: () => void; live: boolean }> = [];
  const accountClocks = {
    now: (id: string) => state(id).frozenAt ?? wall + state(id).offset,
    isFrozen: (id: string) => state(id).frozenAt !== null,
  } as AccountClocks;
  const fakeTimers: Timers = {
    setTimeout(callback, ms) {
      const timer = { at: wall + ms, callback, live: true };
      timers.push(timer);
      return timer;
    },
    clearTimeout(handle) {
      (handle as { live: boolean }).live = false;
    },
  };
  return {
    clocks: accountClocks,
    timers: fakeTimers,
    wall: { now: () => wall },
    freeze: (id: string) => (state(id).frozenAt = accountClocks.now(id)),
    /** Moves a frozen clock's instant on, as AccountClocks.advance does. */
    advanceFrozen: (id: string, ms: number) => (state(id).frozenAt! += ms),
    offset: (id: string, ms: number) => (state(id).offset += ms),
    liveTimers: () => timers.filter((timer) => timer.live),
    /** Moves wall time on, firing timers that fall due. */
    async tick(ms: number) {
      wall += ms;
      for (const timer of timers.filter((t) => t.live && t.at <= wall)) {
        timer.live = false;
        timer.callback();
      }
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function unstarted(world: ReturnType<typeof fakeWorld>) {
  const ran: Array<[string, string]> = [];
  const instance = new Scheduler({
    clocks: world.clocks,
    wall: world.wall,
    timers: world.timers,
    onError: (error) => {
      throw error;
    },
  });
  const runner = { run: (accountId: string, item: DueItem) => void ran.push([accountId, item.id]) };
  return { instance, ran, runner };
}

function scheduler(world: ReturnType<typeof fakeWorld>) {
  const { instance, ran, runner } = unstarted(world);
  instance.start(runner);
  return { instance, ran };
}

describe('Scheduler', () => {
  it('runs items at their moment on a running clock, in time order, with one timer', async () => {
    const world = fakeWorld();
    const { instance, ran } = scheduler(world);
    const now = world.clocks.now('a');
    instance.add('a', now + 3_000, { kind: 'paymentRequest', id: 'third' });
    instance.add('a', now + 1_000, { kind: 'paymentRequest', id: 'first' });
    instance.add('a', now + 2_000, { kind: 'paymentRequest', id: 'second' });
    expect(world.liveTimers()).toHaveLength(1);
    expect(world.liveTimers()[0]!.at).toBe(world.wall.now() + 1_000);
    await world.tick(999);
    expect(ran).toEqual([]);
    await world.tick(1);
    expect(ran).toEqual([['a', 'first']]);
    await world.tick(5_000);
    expect(ran.map(([, id]) => id)).toEqual(['first', 'second', 'third']);
    expect(world.liveTimers()).toHaveLength(0);
  });

  it('runs items due at the same moment in the order they were added, before later ones', async () => {
    const world = fakeWorld();
    const { instance, ran } = scheduler(world);
    const at = world.clocks.now('a') + 1_000;
    instance.add('a', at + 1, { kind: 'paymentRequest', id: 'later' });
    instance.add('a', at, { kind: 'delivery', id: 'tie-1', attempt: 1 });
    instance.add('a', at, { kind: 'paymentRequest', id: 'tie-2' });
    instance.addMany([{ accountId: 'a', dueMs: at, item: { kind: 'delivery', id: 'tie-3', attempt: 2 } }]);
    await world.tick(1_000);
    expect(ran.map(([, id]) => id)).toEqual(['tie-1', 'tie-2', 'tie-3']);
    await world.tick(1);
    expect(ran.map(([, id]) => id)).toEqual(['tie-1', 'tie-2', 'tie-3', 'later']);
  });

  it('runs, when a frozen clock is advanced, everything due up to the new now and nothing after', async () => {
    const world = fakeWorld();
    const { instance, ran } = scheduler(world);
    world.freeze('f');
    const now = world.clocks.now('f');
    for (const [offset, id] of [[3_000, 'c'], [1_000, 'a'], [5_001, 'after'], [2_000, 'b'], [5_000, 'at-now']] as const) {
      instance.add('f', now + offset, { kind: 'paymentRequest', id });
    }
    world.advanceFrozen('f', 5_000);
    await instance.runDue('f');
    expect(ran.map(([, id]) => id)).toEqual(['a', 'b', 'c', 'at-now']);
  });

  it('keeps what is added before it is started, runs nothing, then runs what is due once started', async () => {
    const world = fakeWorld();
    const { instance, ran, runner } = unstarted(world);
    const now = world.clocks.now('a');
    instance.add('a', now - 1, { kind: 'paymentRequest', id: 'overdue' });
    instance.add('a', now + 1_000, { kind: 'paymentRequest', id: 'later' });
    await world.tick(2_000);
    await instance.runDue('a');
    expect(ran).toEqual([]);
    expect(world.liveTimers()).toHaveLength(0);
    instance.start(runner);
    await world.tick(0);
    expect(ran.map(([, id]) => id)).toEqual(['overdue', 'later']);
  });

  it("maps an account's due moment to wall time through its clock's offset", async () => {
    const world = fakeWorld();
    const { instance, ran } = scheduler(world);
    world.offset('ahead', 60_000);
    instance.add('ahead', world.clocks.now('ahead') + 500, { kind: 'paymentRequest', id: 'x' });
    expect(world.liveTimers()[0]!.at).toBe(world.wall.now() + 500);
    await world.tick(500);
    expect(ran).toEqual([['ahead', 'x']]);
  });

  it('runs nothing on a frozen clock until it is moved, then everything passed, in order', async () => {
    const world = fakeWorld();
    const { instance, ran } = scheduler(world);
    world.freeze('f');
    const now = world.clocks.now('f');
    instance.add('f', now + 20_000, { kind: 'paymentRequest', id: 'later' });
    instance.add('f', now + 10_000, { kind: 'delivery', id: 'sooner', attempt: 1 });
    expect(world.liveTimers()).toHaveLength(0);
    await world.tick(60_000);
    expect(ran).toEqual([]);
    world.advanceFrozen('f', 15_000);
    await instance.runDue('f');
    expect(ran).toEqual([['f', 'sooner']]);
    world.advanceFrozen('f', 10_000);
    await instance.runDue('f');
    expect(ran.map(([, id]) => id)).toEqual(['sooner', 'later']);
  });

  it('runs an item already due shortly after it is added, not during the add', async () => {
    const world = fakeWorld();
    const { instance, ran } = scheduler(world);
    instance.add('a', world.clocks.now('a') - 1, { kind: 'paymentRequest', id: 'overdue' });
    expect(ran).toEqual([]);
    await world.tick(0);
    expect(ran).toEqual([['a', 'overdue']]);
  });

  it('runs nothing after close', async () => {
    const world = fakeWorld();
    const { instance, ran } = scheduler(world);
    instance.add('a', world.clocks.now('a') + 1_000, { kind: 'paymentRequest', id: 'x' });
    instance.close();
    await world.tick(2_000);
    await instance.runDue('a');
    expect(ran).toEqual([]);
  });
});
