import { describe, expect, it } from "vitest";
import { perItem, perItemWith } from "./perItem";

describe("perItem", () => {
  it("derives once per item, again for another item", () => {
    let calls = 0;
    const size = perItem((item: { text: string }) => (calls++, item.text.length));
    const a = { text: "abc" };
    expect(size(a)).toBe(3);
    expect(size(a)).toBe(3);
    expect(calls).toBe(1);
    expect(size({ text: "abcd" })).toBe(4);
    expect(calls).toBe(2);
  });

  it("derives again when the second argument is another", () => {
    let calls = 0;
    const label = perItemWith((item: { n: number }, unit: string | null) => (calls++, `${item.n}${unit ?? ""}`));
    const a = { n: 2 };
    expect(label(a, "px")).toBe("2px");
    expect(label(a, "px")).toBe("2px");
    expect(label(a, null)).toBe("2");
    expect(calls).toBe(2);
  });
});
