import { complete } from "@weir/cli";
import { describe, expect, it } from "vitest";

const names = { objects: ["orders", "order_lines", "users"], columns: ["order_id", "customer", "amount"] };

const cases: readonly (readonly [line: string, hits: readonly string[], word: string])[] = [
  ["SELECT * FROM ord", ["order_lines", "orders"].sort(), "ord"],
  ["select * from Us", ["users"], "Us"],
  ["SELECT cust", ["customer"], "cust"],
  ["sel", ["select"], "sel"],
  ["SEL", ["SELECT"], "SEL"],
  ["SELECT order", ["order_lines", "orders", "order_id", "order"], "order"],
  ["DESCRIBE ", ["orders", "order_lines", "users"], ""],
  ["SELECT ", [], ""],
  ["SELECT 'ord", [], "ord"],
];

describe("complete", () => {
  for (const [line, hits, word] of cases) {
    it(JSON.stringify(line), () => {
      const [got, w] = complete(line, names);
      expect(w).toBe(word);
      expect([...got].sort()).toEqual([...hits].sort());
    });
  }
});
