/**
 * Hand-written readers for the common shapes of the text forms in `temporal.ts`, reading
 * straight from a range of a larger text (no substring, no regex, no `Date`). Each returns NaN
 * when the text is not the plain shape it knows — the caller then runs the full reader of
 * `temporal.ts`, which either accepts the text or gives the error. Where they return a number it
 * is the number the full reader returns for the same text.
 */

import { daysFromCivil } from "@weir/runtime";

const MS_PER_DAY = 86_400_000;

/** Two ASCII digits at `i`, or -1. */
function d2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  if (a < 0 || a > 9 || b < 0 || b > 9) return -1;
  return a * 10 + b;
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since the epoch of a read `year-m-d` (m already 1..12, d ≥ 1), or NaN past the month's end. */
function validDays(year: number, m: number, d: number): number {
  if (d > (m === 2 && isLeap(year) ? 29 : MONTH_DAYS[m])) return Number.NaN;
  return daysFromCivil(year, m, d);
}

/**
 * Days since the epoch of `yyyy-MM-dd` at `s[i..i+10)` (four-digit year, no sign), or NaN when
 * the text is not that shape or not a valid date (the full reader then gives the error).
 */
function civilDays(s: string, i: number): number {
  const y1 = d2(s, i);
  const y2 = d2(s, i + 2);
  if (y1 < 0 || y2 < 0 || s.charCodeAt(i + 4) !== 45 || s.charCodeAt(i + 7) !== 45) return Number.NaN;
  const m = d2(s, i + 5);
  const d = d2(s, i + 8);
  if (m < 1 || m > 12 || d < 1) return Number.NaN;
  return validDays(y1 * 100 + y2, m, d);
}

/** `parseDate` of `temporal.ts` for `s[start..end)`, or NaN (not the plain shape, or invalid). */
export function fastDate(s: string, start: number, end: number): number {
  if (end - start !== 10) return Number.NaN;
  return civilDays(s, start);
}

/**
 * `parseTimestamp` of `temporal.ts` for `s[start..end)`: `yyyy-MM-dd[ T]HH:mm[:ss[.f{1,9}]]`
 * with an optional `Z` / `±HH` / `±HHmm` / `±HH:mm` suffix (only when `zoneAllowed`), or NaN.
 */
export function fastTimestamp(s: string, start: number, end: number, zoneAllowed: boolean): number {
  if (end - start < 16) return Number.NaN;
  const days = civilDays(s, start);
  if (Number.isNaN(days)) return days;
  const sep = s.charCodeAt(start + 10);
  if (sep !== 32 && sep !== 84) return Number.NaN;
  const hh = d2(s, start + 11);
  const mi = d2(s, start + 14);
  if (hh < 0 || hh > 23 || s.charCodeAt(start + 13) !== 58 || mi < 0 || mi > 59) return Number.NaN;
  let p = start + 16;
  let ss = 0;
  let millis = 0;
  if (p < end && s.charCodeAt(p) === 58) {
    ss = d2(s, p + 1);
    if (ss < 0 || ss > 59 || p + 3 > end) return Number.NaN;
    p += 3;
    if (p < end && s.charCodeAt(p) === 46) {
      p++;
      let digits = 0;
      for (; p < end; p++) {
        const c = s.charCodeAt(p) - 48;
        if (c < 0 || c > 9) break;
        if (digits < 3) millis = millis * 10 + c;
        digits++;
      }
      if (digits === 0 || digits > 9) return Number.NaN;
      if (digits === 1) millis *= 100;
      else if (digits === 2) millis *= 10;
    }
  }
  const ms = days * MS_PER_DAY + ((hh * 60 + mi) * 60 + ss) * 1000 + millis;
  if (p === end) return ms;
  if (!zoneAllowed) return Number.NaN;
  const z = s.charCodeAt(p);
  if (z === 90 || z === 122) return p + 1 === end ? ms : Number.NaN;
  if (z !== 43 && z !== 45) return Number.NaN;
  const oh = d2(s, p + 1);
  if (oh < 0) return Number.NaN;
  let om = 0;
  const rest = end - (p + 3);
  if (rest === 3 && s.charCodeAt(p + 3) === 58) om = d2(s, p + 4);
  else if (rest === 2) om = d2(s, p + 3);
  else if (rest !== 0) return Number.NaN;
  if (om < 0) return Number.NaN;
  const offset = (oh * 60 + om) * 60_000;
  return z === 45 ? ms + offset : ms - offset;
}

// The same readers over bytes (a record read straight from its bytes: no string for the value).

/** Two ASCII digits at `i`, or -1. */
function d2b(s: Uint8Array, i: number): number {
  const a = s[i] - 48;
  const b = s[i + 1] - 48;
  if (a < 0 || a > 9 || b < 0 || b > 9) return -1;
  return a * 10 + b;
}

/** `civilDays` over bytes. */
function civilDaysb(s: Uint8Array, i: number): number {
  const y1 = d2b(s, i);
  const y2 = d2b(s, i + 2);
  if (y1 < 0 || y2 < 0 || s[i + 4] !== 45 || s[i + 7] !== 45) return Number.NaN;
  const m = d2b(s, i + 5);
  const d = d2b(s, i + 8);
  if (m < 1 || m > 12 || d < 1) return Number.NaN;
  return validDays(y1 * 100 + y2, m, d);
}

/** `fastDate` over the bytes `s[start..end)` (ASCII). */
export function fastDateBytes(s: Uint8Array, start: number, end: number): number {
  if (end - start !== 10) return Number.NaN;
  return civilDaysb(s, start);
}

/** `fastTimestamp` over the bytes `s[start..end)` (ASCII): the same shapes, the same results. */
export function fastTimestampBytes(s: Uint8Array, start: number, end: number, zoneAllowed: boolean): number {
  if (end - start < 16) return Number.NaN;
  const days = civilDaysb(s, start);
  if (Number.isNaN(days)) return days;
  const sep = s[start + 10];
  if (sep !== 32 && sep !== 84) return Number.NaN;
  const hh = d2b(s, start + 11);
  const mi = d2b(s, start + 14);
  if (hh < 0 || hh > 23 || s[start + 13] !== 58 || mi < 0 || mi > 59) return Number.NaN;
  let p = start + 16;
  let ss = 0;
  let millis = 0;
  if (p < end && s[p] === 58) {
    ss = d2b(s, p + 1);
    if (ss < 0 || ss > 59 || p + 3 > end) return Number.NaN;
    p += 3;
    if (p < end && s[p] === 46) {
      p++;
      let digits = 0;
      for (; p < end; p++) {
        const c = s[p] - 48;
        if (c < 0 || c > 9) break;
        if (digits < 3) millis = millis * 10 + c;
        digits++;
      }
      if (digits === 0 || digits > 9) return Number.NaN;
      if (digits === 1) millis *= 100;
      else if (digits === 2) millis *= 10;
    }
  }
  const ms = days * MS_PER_DAY + ((hh * 60 + mi) * 60 + ss) * 1000 + millis;
  if (p === end) return ms;
  if (!zoneAllowed) return Number.NaN;
  const z = s[p];
  if (z === 90 || z === 122) return p + 1 === end ? ms : Number.NaN;
  if (z !== 43 && z !== 45) return Number.NaN;
  const oh = d2b(s, p + 1);
  if (oh < 0) return Number.NaN;
  let om = 0;
  const rest = end - (p + 3);
  if (rest === 3 && s[p + 3] === 58) om = d2b(s, p + 4);
  else if (rest === 2) om = d2b(s, p + 3);
  else if (rest !== 0) return Number.NaN;
  if (om < 0) return Number.NaN;
  const offset = (oh * 60 + om) * 60_000;
  return z === 45 ? ms + offset : ms - offset;
}
