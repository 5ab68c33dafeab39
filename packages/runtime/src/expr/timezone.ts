import { ExpressionError } from "./errors.js";

/**
 * A time zone that maps instants to wall-clock offsets. IANA zones go through one cached
 * `Intl.DateTimeFormat` per zone, with offsets memoised per 15-minute bucket (every real
 * transition falls on a bucket boundary), so converting a timestamp allocates no formatter.
 */
export interface Zone {
  readonly id: string;
  /** Offset in milliseconds (local − UTC) in effect at the instant. */
  offsetAt(instant: number): number;
}

const BUCKET = 15 * 60_000;
const MAX_CACHED_BUCKETS = 50_000;

class FixedZone implements Zone {
  constructor(
    readonly id: string,
    private readonly offset: number,
  ) {}
  offsetAt(): number {
    return this.offset;
  }
}

class IanaZone implements Zone {
  private readonly format: Intl.DateTimeFormat;
  private readonly cache = new Map<number, number>();
  constructor(readonly id: string) {
    this.format = new Intl.DateTimeFormat("en-US", {
      timeZone: id,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      era: "short",
    });
  }

  offsetAt(instant: number): number {
    const bucket = Math.floor(instant / BUCKET);
    const hit = this.cache.get(bucket);
    if (hit !== undefined) return hit;
    const offset = this.compute(bucket * BUCKET);
    if (this.cache.size >= MAX_CACHED_BUCKETS) this.cache.clear();
    this.cache.set(bucket, offset);
    return offset;
  }

  private compute(instant: number): number {
    const f: Record<string, string> = {};
    for (const p of this.format.formatToParts(instant)) f[p.type] = p.value;
    let year = Number(f.year);
    if (f.era === "BC" || f.era === "B") year = 1 - year;
    const d = new Date(0);
    d.setUTCFullYear(year, Number(f.month) - 1, Number(f.day));
    d.setUTCHours(Number(f.hour), Number(f.minute), Number(f.second), 0);
    const wall = d.getTime();
    return wall - (instant - (((instant % 1000) + 1000) % 1000));
  }
}

const FIXED = /^(?:UTC|GMT|UT|Z)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i;
const zones = new Map<string, Zone>();

/** Resolves a zone id (`UTC`, `Z`, `GMT+08:00`, `+05:30`, `Europe/Berlin`); fails on an unknown id. */
export function getZone(id: string): Zone {
  const cached = zones.get(id);
  if (cached) return cached;
  let zone: Zone;
  const upper = id.toUpperCase();
  const fixed = FIXED.exec(id);
  if (upper === "UTC" || upper === "GMT" || upper === "Z" || upper === "UT" || upper === "ETC/UTC") {
    zone = new FixedZone(id, 0);
  } else if (fixed) {
    const sign = fixed[1] === "-" ? -1 : 1;
    zone = new FixedZone(id, sign * (Number(fixed[2]) * 3_600_000 + Number(fixed[3] ?? 0) * 60_000));
  } else {
    try {
      zone = new IanaZone(id);
    } catch {
      throw new ExpressionError(`Unknown time zone '${id}'`);
    }
  }
  zones.set(id, zone);
  return zone;
}

/** Wall-clock millis (a TIMESTAMP value) of an instant (a TIMESTAMP_LTZ value) in `zone`. */
export function instantToLocal(instant: number, zone: Zone): number {
  return instant + zone.offsetAt(instant);
}

/**
 * The instant of a wall-clock time in `zone`, resolved as java.time's `ZonedDateTime.ofLocal`:
 * in an overlap the earlier offset (the one before the transition) wins; a time in a gap is
 * shifted forward by the length of the gap.
 */
export function localToInstant(local: number, zone: Zone, laterInOverlap = false): number {
  const before = zone.offsetAt(local - 86_400_000);
  const after = zone.offsetAt(local + 86_400_000);
  if (before === after) {
    const t = local - before;
    const o = zone.offsetAt(t);
    return o === before ? t : local - o;
  }
  // java.util's calendar (SimpleDateFormat) takes the later offset (standard time) in an overlap
  if (laterInOverlap && zone.offsetAt(local - after) === after) return local - after;
  const t1 = local - before;
  if (zone.offsetAt(t1) === before) return t1;
  const t2 = local - after;
  if (zone.offsetAt(t2) === after) return t2;
  return t1; // gap: the offset before the transition moves the time forward
}
