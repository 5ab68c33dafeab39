import type * as ast from "@weir/parser";
import { print } from "@weir/parser";

/** An expression as SQL text (DESCRIBE's computed-column and watermark extras). */
export function printSql(e: ast.Expr): string {
  return print(e);
}
