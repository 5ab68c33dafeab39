/**
 * Flink's slice assigners: a window TVF's rows are accumulated per slice (pane) and a window's
 * result is the merge of its slices, so HOP and CUMULATE never copy a row into every window.
 *
 * - TUMBLE(size, offset): a slice is the window.
 * - HOP(size, slide, offset): slices of gcd(size, slide); a window is size / gcd slices; a slice
 *   belongs to the windows that start in (sliceEnd − size, sliceEnd − sliceSize], step slide.
 * - CUMULATE(maxSize, step, offset): slices of step; the windows of one max-size period end at
 *   every step; a slice belongs to the windows of its period that end at or after it.
 *
 * Times are epoch ms; a window is [start, end) and fires when the watermark ≥ end − 1. Window
 * starts are aligned to `offset` modulo the window period, with floor modulo, so negative
 * timestamps and offsets work.
 */
export interface SliceAssigner {
  readonly kind: "tumble" | "hop" | "cumulate";
  readonly sliceSize: number;
  /** The distance between consecutive window ends (tumble: size, hop: slide, cumulate: step). */
  readonly windowEndInterval: number;
  /** End (exclusive) of the slice that contains `timestamp`. */
  sliceEnd(timestamp: number): number;
  /** Smallest end of a window containing the slice. */
  firstWindowEnd(sliceEnd: number): number;
  /** Largest end of a window containing the slice: after it fires the slice can be dropped. */
  lastWindowEnd(sliceEnd: number): number;
  /** Ends of every window containing the slice, ascending; empty for a gap of a HOP with slide > size. */
  windowEndsOf(sliceEnd: number): number[];
  windowStart(windowEnd: number): number;
  /** Ends of the slices whose merge is the window, ascending. */
  slicesOf(windowEnd: number): number[];
  /** Slices no window after `windowEnd` needs: free them once `windowEnd` has fired. */
  expiredSlices(windowEnd: number): number[];
}

/** Floor modulo: the result has the sign of `m` (which is positive here). */
export function floorMod(a: number, m: number): number {
  const r = a % m;
  return r < 0 ? r + m : r === 0 ? 0 : r;
}

export function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return Math.abs(a);
}

/** A window ending at `windowEnd` has fired once the watermark reached its last millisecond. */
export function isWindowFired(windowEnd: number, watermark: number): boolean {
  return windowEnd - 1 <= watermark;
}

/** A row in the slice is late (to be dropped or side-output) when every window holding it has fired. */
export function isLate(assigner: SliceAssigner, sliceEnd: number, watermark: number): boolean {
  return isWindowFired(assigner.lastWindowEnd(sliceEnd), watermark);
}

function checkPositive(what: string, v: number): void {
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${what} must be a positive number of ms, got ${v}`);
}

function range(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
}

export function tumblingAssigner(size: number, offset = 0): SliceAssigner {
  checkPositive("TUMBLE size", size);
  return {
    kind: "tumble",
    sliceSize: size,
    windowEndInterval: size,
    sliceEnd: (ts) => ts - floorMod(ts - offset, size) + size,
    firstWindowEnd: (sliceEnd) => sliceEnd,
    lastWindowEnd: (sliceEnd) => sliceEnd,
    windowEndsOf: (sliceEnd) => [sliceEnd],
    windowStart: (windowEnd) => windowEnd - size,
    slicesOf: (windowEnd) => [windowEnd],
    expiredSlices: (windowEnd) => [windowEnd],
  };
}

export function hoppingAssigner(size: number, slide: number, offset = 0): SliceAssigner {
  checkPositive("HOP size", size);
  checkPositive("HOP slide", slide);
  const sliceSize = gcd(size, slide);
  // A window end is ≡ offset + size (mod slide); the first such end at or after `t`.
  const endPhase = floorMod(offset + size, slide);
  const firstEndAtOrAfter = (t: number) => t + floorMod(endPhase - t, slide);
  const firstWindowEnd = (sliceEnd: number) => firstEndAtOrAfter(sliceEnd);
  // The last window containing the slice starts at or before sliceEnd − sliceSize.
  const lastWindowEnd = (sliceEnd: number) => {
    const sliceStart = sliceEnd - sliceSize;
    return sliceStart - floorMod(sliceStart - offset, slide) + size;
  };
  return {
    kind: "hop",
    sliceSize,
    windowEndInterval: slide,
    sliceEnd: (ts) => ts - floorMod(ts - offset, sliceSize) + sliceSize,
    firstWindowEnd,
    lastWindowEnd,
    windowEndsOf: (sliceEnd) => range(firstWindowEnd(sliceEnd), lastWindowEnd(sliceEnd), slide),
    windowStart: (windowEnd) => windowEnd - size,
    slicesOf: (windowEnd) => range(windowEnd - size + sliceSize, windowEnd, sliceSize),
    // Slices whose last window is this one: those starting before the next window's start.
    expiredSlices: (windowEnd) =>
      range(windowEnd - size + sliceSize, Math.min(windowEnd - size + slide, windowEnd), sliceSize),
  };
}

export function cumulativeAssigner(maxSize: number, step: number, offset = 0): SliceAssigner {
  checkPositive("CUMULATE size", maxSize);
  checkPositive("CUMULATE step", step);
  if (maxSize % step !== 0) {
    throw new Error(`CUMULATE size (${maxSize} ms) must be a whole multiple of its step (${step} ms)`);
  }
  const windowStart = (windowEnd: number) => windowEnd - 1 - floorMod(windowEnd - 1 - offset, maxSize);
  const lastWindowEnd = (sliceEnd: number) => windowStart(sliceEnd) + maxSize;
  return {
    kind: "cumulate",
    sliceSize: step,
    windowEndInterval: step,
    sliceEnd: (ts) => ts - floorMod(ts - offset, step) + step,
    firstWindowEnd: (sliceEnd) => sliceEnd,
    lastWindowEnd,
    windowEndsOf: (sliceEnd) => range(sliceEnd, lastWindowEnd(sliceEnd), step),
    windowStart,
    slicesOf: (windowEnd) => range(windowStart(windowEnd) + step, windowEnd, step),
    expiredSlices: (windowEnd) =>
      windowEnd === windowStart(windowEnd) + maxSize
        ? range(windowEnd - maxSize + step, windowEnd, step)
        : [],
  };
}
