import type { Identifier, OptionPair, QualifiedName, StringValue } from "../ast/common.js";

export function printIdentifier(id: Identifier): string {
  return id.quoted ? `\`${id.value.replaceAll("`", "``")}\`` : id.value;
}

export function printName(name: QualifiedName): string {
  return name.parts.map(printIdentifier).join(".");
}

export function printString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export function printStringValue(s: StringValue): string {
  return printString(s.value);
}

export function printOptions(options: readonly OptionPair[]): string {
  return `(${options.map((o) => `${printString(o.key.value)} = ${printString(o.value.value)}`).join(", ")})`;
}

export function printIdentifierList(ids: readonly Identifier[]): string {
  return `(${ids.map(printIdentifier).join(", ")})`;
}
