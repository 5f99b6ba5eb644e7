import { describe, expect, it } from "vitest";
import { visionFromForm, visionLabel, visionToForm } from "./vision";

describe("a provider's Reads images choice", () => {
  it("round-trips null / true / false through the form's three choices", () => {
    for (const vision of [null, true, false]) expect(visionFromForm(visionToForm(vision))).toBe(vision);
    // Absent in an older backend's view: the model family decides.
    expect(visionToForm(undefined)).toBe("auto");
  });

  it("says what the provider list shows", () => {
    expect(visionLabel(null)).toBe("images: as its model family");
    expect(visionLabel(true)).toBe("reads images");
    expect(visionLabel(false)).toBe("does not read images");
  });
});
