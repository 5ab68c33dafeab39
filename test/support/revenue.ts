interface Event {
  event_id: string;
  event_type: string;
  order_id: string;
  store_id: string;
  amount: number;
  currency: string;
  paid_at: string;
}

/** Cents from the amount's source text, exactly (no floating point). */
export function cents(line: string): bigint {
  const m = /"amount":(-?\d+)(?:\.(\d{1,2}))?/.exec(line)!;
  return BigInt(m[1]!) * 100n + BigInt((m[2] ?? "0").padEnd(2, "0")) * (m[1]!.startsWith("-") ? -1n : 1n);
}

function kst(ms: number): string {
  return new Date(ms + 9 * 3_600_000).toISOString().replace("T", " ").replace("Z", "");
}

/**
 * The pipeline's answer computed directly from its definition, as a batch over the file in
 * arrival order: the watermark after each row is (max paid time so far − 2 min); a row is late
 * when its 1-minute window's last millisecond is already covered by the watermark before it;
 * deduplication keeps the first row of each event_id (processing time order = file order);
 * then per window, store and currency: distinct orders, exact sum, count.
 */
export function expectedRevenue(
  lines: string[],
): Map<string, { orders: Set<string>; cents: bigint; events: number }> {
  let watermark = Number.NEGATIVE_INFINITY;
  const seen = new Set<string>();
  const out = new Map<string, { orders: Set<string>; cents: bigint; events: number }>();
  for (const line of lines) {
    const e = JSON.parse(line) as Event;
    const t = Date.parse(e.paid_at);
    const windowStart = Math.floor(t / 60_000) * 60_000;
    const late = windowStart + 60_000 - 1 <= watermark;
    watermark = Math.max(watermark, t - 120_000);
    if (e.event_type !== "OrderPaid" || seen.has(e.event_id)) continue;
    seen.add(e.event_id);
    if (late) continue;
    const key = `${kst(windowStart)}|${e.store_id}|${e.currency}`;
    const agg = out.get(key) ?? { orders: new Set<string>(), cents: 0n, events: 0 };
    agg.orders.add(e.order_id);
    agg.cents += cents(line);
    agg.events++;
    out.set(key, agg);
  }
  return out;
}
