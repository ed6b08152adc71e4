/**
 * One clock per account, so a test can fast-forward one merchant's world without touching
 * another's. A clock is wall time plus an offset, or frozen at an instant; its state lives in the
 * store, so a restart with a data file keeps every account's time.
 */
import type { AccountClocks, WallClock } from '../core/ports.js';
import type { ClockState, SandboxStore } from '../core/store/sandbox-store.js';

/** How clocks start: following wall time, or frozen at the moment the sandbox starts. */
export type ClockMode = 'running' | 'frozen';

/** Options of `createAccountClocks`. */
export interface AccountClocksOptions {
  store: SandboxStore;
  wall: WallClock;
  mode: ClockMode;
}

/** The account clocks over a store. */
export function createAccountClocks({ store, wall, mode }: AccountClocksOptions): AccountClocks {
  // Frozen clocks all stop at the same instant, the sandbox's start, so a run is repeatable.
  const startedAtMs = wall.now();
  const initial = (): ClockState => ({ offsetMs: 0, frozenAtMs: mode === 'frozen' ? startedAtMs : null });
  const stateOf = (accountId: string): ClockState => store.getClock(accountId) ?? initial();
  const nowOf = (state: ClockState): number => state.frozenAtMs ?? wall.now() + state.offsetMs;

  return {
    now: (accountId) => nowOf(stateOf(accountId)),
    isFrozen: (accountId) => stateOf(accountId).frozenAtMs !== null,
    advance(accountId, seconds) {
      const state = stateOf(accountId);
      const ms = seconds * 1000;
      return store.saveClock(
        accountId,
        state.frozenAtMs === null ? { ...state, offsetMs: state.offsetMs + ms } : { ...state, frozenAtMs: state.frozenAtMs + ms },
      );
    },
    freeze(accountId) {
      const state = stateOf(accountId);
      return state.frozenAtMs === null ? store.saveClock(accountId, { offsetMs: state.offsetMs, frozenAtMs: nowOf(state) }) : Promise.resolve();
    },
    unfreeze(accountId) {
      const state = stateOf(accountId);
      return state.frozenAtMs === null
        ? Promise.resolve()
        : store.saveClock(accountId, { offsetMs: state.frozenAtMs - wall.now(), frozenAtMs: null });
    },
    setTime(accountId, epochMs) {
      const state = stateOf(accountId);
      return store.saveClock(
        accountId,
        state.frozenAtMs === null ? { offsetMs: epochMs - wall.now(), frozenAtMs: null } : { ...state, frozenAtMs: epochMs },
      );
    },
    reset: (accountId) => store.saveClock(accountId, initial()),
  };
}
