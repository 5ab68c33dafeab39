/**
 * Flink's duration strings (`'10 s'`, `'5min'`, `'1 h'`, `'100ms'`, `'2 minutes'`, a bare number
 * of milliseconds) to milliseconds. Returns undefined for text that is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Zµ]*)\s*$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2]!.toLowerCase();
  const scale = DURATION_UNITS[unit];
  if (scale === undefined) return undefined;
  return Math.round(n * scale);
}

const DURATION_UNITS: Record<string, number> = {
  "": 1,
  ms: 1,
  milli: 1,
  millis: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** Flink's memory sizes (`'4mb'`, `'1 gb'`, `'512'` bytes) to bytes. */
export function parseMemorySize(text: string): number | undefined {
  const m = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  const scale = MEMORY_UNITS[unit];
  return scale === undefined ? undefined : Number(m[1]) * scale;
}

const MEMORY_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  bytes: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};
