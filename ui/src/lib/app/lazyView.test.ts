import { describe, expect, it } from "vitest";
import { lazyView } from "./lazyView";

describe("lazyView", () => {
  it("loads the code once however often the view is shown", async () => {
    let loads = 0;
    const view = lazyView(async () => {
      loads += 1;
      return { default: "RunView" };
    });
    expect(await view()).toBe("RunView");
    expect(await view()).toBe("RunView");
    expect(loads).toBe(1);
  });

  it("returns the loaded view itself, not a promise, once it has loaded", async () => {
    const view = lazyView(async () => ({ default: "RunView" }));
    expect(view()).toBeInstanceOf(Promise);
    await view();
    expect(view()).toBe("RunView");
  });

  it("does not load before the view is first shown", () => {
    let loads = 0;
    lazyView(async () => {
      loads += 1;
      return { default: "RunView" };
    });
    expect(loads).toBe(0);
  });

  it("retries a failed load the next time the view is shown", async () => {
    let loads = 0;
    const view = lazyView(async () => {
      loads += 1;
      if (loads === 1) throw new Error("chunk missing");
      return { default: "RunView" };
    });
    await expect(view()).rejects.toThrow("chunk missing");
    expect(await view()).toBe("RunView");
    expect(loads).toBe(2);
  });
});
