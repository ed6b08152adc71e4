/**
 * The platform's timers for the scheduler. In Node a waiting timer must not keep a process alive
 * (a CLI that made a sandbox and is done would otherwise hang until the next expiry), so it is
 * unref'd where the platform can.
 */
import type { Timers } from '../ports.js';

/** setTimeout and clearTimeout of this platform, unref'd where possible. */
export const platformTimers: Timers = {
  setTimeout(callback, ms) {
    const handle = globalThis.setTimeout(callback, ms);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout(handle) {
    globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>);
  },
};
