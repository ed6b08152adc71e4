import { describe, expect, it } from 'vitest';
import { ApiLoad, LOAD_WINDOW_MS } from './api-load.js';

describe('ApiLoad', () => {
  const at = () => {
    const clock = { ms: 0 };
    return { clock, load: new ApiLoad(() => clock.ms, 3) };
  };

  it('is busy from the threshold within a window, and for the window after', () => {
    const { clock, load } = at();
    load.noteRequest();
    load.noteRequest();
    expect(load.busy).toBe(false);
    load.noteRequest();
    expect(load.busy).toBe(true);
    clock.ms = LOAD_WINDOW_MS + 10; // the next window: the last one reached it
    expect(load.busy).toBe(true);
    clock.ms = 2 * LOAD_WINDOW_MS + 10; // the one after: neither did
    expect(load.busy).toBe(false);
  });

  it('forgets a busy window after a gap of two windows or more', () => {
    const { clock, load } = at();
    for (let i = 0; i < 5; i++) load.noteRequest();
    clock.ms = 5 * LOAD_WINDOW_MS;
    load.noteRequest();
    expect(load.busy).toBe(false);
  });

  it('counts requests spread over windows per window, not in total', () => {
    const { clock, load } = at();
    for (let i = 0; i < 10; i++) {
      clock.ms = i * LOAD_WINDOW_MS;
      load.noteRequest();
      load.noteRequest();
      expect(load.busy).toBe(false);
    }
  });
});
