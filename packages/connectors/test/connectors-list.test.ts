import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CONNECTORS, connectorCatalog, FORMAT_SPECS } from "../src/index.js";

/**
 * The one list (`connectors.ts`): each connector once, each part of its spec with the factory
 * that implements it, and every option a spec accepts documented in the user reference
 * (`docs/reference/connectors.md`, in the connector's own section: the reference has no
 * generator, so this test keeps it complete).
 */

const DOC = readFileSync(resolve(import.meta.dirname, "../../../docs/reference/connectors.md"), "utf8");

/** The text under each heading of `level` (`##` or `###`) whose title names `name`, up to the next heading of that level or above. */
function sections(level: "##" | "###", name: string): string {
  const lines = DOC.split("\n");
  const word = new RegExp(`(^|[\\s(\`'])${name.replace(/[-.]/g, "\\$&")}([\\s)\`']|$)`);
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    const heading = /^(#+) (.*)$/.exec(line);
    if (heading && heading[1]!.length <= level.length)
      inside = heading[1] === level && word.test(heading[2]!);
    else if (inside) out.push(line);
  }
  return out.join("\n");
}

/** The key as the reference writes it: `key`, `'key'`, or with a format's prefix (`raw.charset`). */
function mentions(text: string, key: string, prefix = ""): boolean {
  return [key, `'${key}'`, ...(prefix ? [`${prefix}.${key}`, `'${prefix}.${key}'`] : [])].some((k) =>
    text.includes(`\`${k}\``),
  );
}

describe("the connector list", () => {
  it("names each connector once, each spec part with its factory", () => {
    const names = CONNECTORS.map((d) => d.spec.name);
    expect(new Set(names).size).toBe(names.length);
    for (const d of CONNECTORS) {
      const s = d.spec;
      expect([s.name, s.source !== undefined], "source part ⇔ createSource").toEqual([
        s.name,
        d.createSource !== undefined,
      ]);
      expect([s.name, s.sink !== undefined], "sink part ⇔ createSink").toEqual([
        s.name,
        d.createSink !== undefined,
      ]);
      expect([s.name, s.lookup !== undefined], "lookup part ⇔ createLookup").toEqual([
        s.name,
        d.createLookup !== undefined,
      ]);
      for (const f of s.formats?.value ?? [])
        expect(
          FORMAT_SPECS.some((x) => x.name === f),
          `${s.name}: ${f}`,
        ).toBe(true);
      if (s.aliasOf !== undefined)
        expect(names, `${s.name} is an alias of a listed connector`).toContain(s.aliasOf);
    }
  });

  it("gives the catalog every spec and every format", () => {
    const catalog = connectorCatalog();
    expect(catalog.specs.map((s) => s.name)).toEqual(CONNECTORS.map((d) => d.spec.name));
    expect(catalog.formats.map((f) => f.name)).toEqual(FORMAT_SPECS.map((f) => f.name));
    expect(catalog.declarable()).not.toContain("collect");
  });

  it.each(CONNECTORS.map((d) => [d.spec.name, d.spec] as const))(
    "docs/reference/connectors.md documents every option and metadata key of %s",
    (name, spec) => {
      const text = sections("##", name);
      expect(text.length, `a section whose heading names '${name}'`).toBeGreaterThan(0);
      const missing = [...spec.options.map((o) => o.key), ...Object.keys(spec.metadata ?? {})].filter(
        (k) => !mentions(text, k),
      );
      expect(missing).toEqual([]);
    },
  );

  it.each(FORMAT_SPECS.filter((f) => f.options.length > 0).map((f) => [f.name, f] as const))(
    "docs/reference/connectors.md documents every option of format %s",
    (name, format) => {
      const text = sections("###", name);
      expect(text.length, `a section whose heading names '${name}'`).toBeGreaterThan(0);
      expect(format.options.map((o) => o.key).filter((k) => !mentions(text, k, name))).toEqual([]);
    },
  );
});
