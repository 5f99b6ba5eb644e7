import { describe, expect, it, vi } from "vitest";
import { ImageDraft } from "./imageDraft.svelte";
import { MAX_IMAGES, MAX_IMAGE_BYTES, filesOf, imageCount, readImage, sniffImageType, toBase64, toUploads, withImages, type ImageAttachment, type ImageSource } from "./images";
import { RunImages } from "./runImages.svelte";
import { PNG, PNG_BASE64, ok } from "./testSupport";

const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

/** A file that says it is `size` bytes without holding them (the size check comes before any read). */
const claimed = (name: string, size: number): ImageSource => ({ name, size, arrayBuffer: vi.fn(async () => new ArrayBuffer(0)) });

const attachment = (name: string): ImageAttachment => ({ id: name, name, type: "png", bytes: 1, dataBase64: "", src: "" });

describe("sniffImageType", () => {
  it("knows PNG, JPEG, GIF and WebP by their first bytes", () => {
    expect(sniffImageType(PNG)).toBe("png");
    expect(sniffImageType(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe("jpeg");
    expect(sniffImageType(bytes("GIF87a", [1]))).toBe("gif");
    expect(sniffImageType(bytes("GIF89a", [1]))).toBe("gif");
    expect(sniffImageType(bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 "))).toBe("webp");
  });

  it("refuses look-alikes and text, whatever the name", () => {
    expect(sniffImageType(bytes("RIFF", [0, 0, 0, 0], "WAVEfmt "))).toBeNull();
    expect(sniffImageType(bytes("RIFF"))).toBeNull();
    expect(sniffImageType(bytes([0x89], "PNG"))).toBeNull();
    expect(sniffImageType(bytes("GIF90a"))).toBeNull();
    expect(sniffImageType(bytes("hello, I am text"))).toBeNull();
    expect(sniffImageType(new Uint8Array())).toBeNull();
  });
});

describe("toBase64", () => {
  it("is standard base64 of the bytes, also past one chunk", () => {
    expect(toBase64(PNG)).toBe(PNG_BASE64);
    const big = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 7) % 256);
    const back = Uint8Array.from(atob(toBase64(big)), (c) => c.charCodeAt(0));
    expect(back).toEqual(big);
  });
});

describe("readImage", () => {
  it("reads a real image: its type, size, base64 and a data URL for the thumbnail", async () => {
    const { image, error } = await readImage(new File([PNG], "shot.png"));
    expect(error).toBeNull();
    expect(image).toMatchObject({ name: "shot.png", type: "png", bytes: PNG.length, dataBase64: PNG_BASE64, src: `data:image/png;base64,${PNG_BASE64}` });
  });

  it("goes by the bytes, not the name: a text file named .png is refused, naming it", async () => {
    const { image, error } = await readImage(new File(["just some notes\n"], "notes.png", { type: "image/png" }));
    expect(image).toBeNull();
    expect(error).toBe("notes.png is not a PNG, JPEG, WebP or GIF image (its first bytes say otherwise).");
  });

  it("refuses an empty file and one over 20 MB before reading it", async () => {
    expect((await readImage(new File([], "empty.png"))).error).toBe("empty.png is empty.");
    const huge = claimed("huge.png", MAX_IMAGE_BYTES + 1);
    expect((await readImage(huge)).error).toBe("huge.png is 20.0 MB; images may be at most 20 MB.");
    expect(huge.arrayBuffer).not.toHaveBeenCalled();
    expect((await readImage(claimed("big.jpg", 25 * 1024 * 1024))).error).toMatch(/^big\.jpg is 25\.0 MB;/);
  });

  it("names a pasted image that came without a name", async () => {
    expect((await readImage(new File([PNG], ""))).image?.name).toBe("pasted image");
  });
});

describe("the attachment list", () => {
  it("takes images up to the limit and names the ones left out", () => {
    const seven = Array.from({ length: 7 }, (_, i) => attachment(`${i}.png`));
    const { attachments, errors } = withImages(seven, [attachment("a.png"), attachment("b.png"), attachment("c.png")]);
    expect(attachments.map((a) => a.name)).toEqual([...seven.map((a) => a.name), "a.png"]);
    expect(attachments).toHaveLength(MAX_IMAGES);
    expect(errors).toEqual(["b.png, c.png not attached: at most 8 images may go with one message."]);
    expect(withImages([], [attachment("a.png")]).errors).toEqual([]);
  });

  it("sends name and base64 only", () => {
    expect(toUploads([{ ...attachment("a.png"), dataBase64: "QUJD" }])).toEqual([{ name: "a.png", dataBase64: "QUJD" }]);
  });

  it("counts images for people", () => {
    expect(imageCount(1)).toBe("1 image");
    expect(imageCount(3)).toBe("3 images");
  });
});

describe("filesOf", () => {
  const transfer = (files: File[], items: { kind: string; file: File | null }[] = []) =>
    ({ files, items: items.map((i) => ({ kind: i.kind, getAsFile: () => i.file })) }) as unknown as DataTransfer;

  it("takes a paste's or a drop's files, or its file items; plain text carries none", () => {
    const shot = new File([PNG], "shot.png");
    expect(filesOf(transfer([shot]))).toEqual([shot]);
    expect(filesOf(transfer([], [{ kind: "string", file: null }, { kind: "file", file: shot }]))).toEqual([shot]);
    expect(filesOf(transfer([], [{ kind: "string", file: null }]))).toEqual([]);
    expect(filesOf(null)).toEqual([]);
  });
});

describe("ImageDraft", () => {
  it("attaches good images, says why the others were not, removes and clears", async () => {
    const draft = new ImageDraft();
    expect(draft.idle).toBe(true);
    await draft.add([new File([PNG], "a.png"), new File(["text"], "fake.png"), new File([PNG], "b.png")]);
    expect(draft.idle).toBe(false);
    expect(draft.items.map((i) => i.name)).toEqual(["a.png", "b.png"]);
    expect(draft.errors).toEqual(["fake.png is not a PNG, JPEG, WebP or GIF image (its first bytes say otherwise)."]);
    expect(draft.uploads).toEqual([
      { name: "a.png", dataBase64: PNG_BASE64 },
      { name: "b.png", dataBase64: PNG_BASE64 },
    ]);
    draft.remove(draft.items[0].id);
    expect(draft.items.map((i) => i.name)).toEqual(["b.png"]);
    expect(draft.errors).toEqual([]);
    draft.clear();
    expect(draft.items).toEqual([]);
    expect(draft.idle).toBe(true);
  });

  it("applies the limit to the list as it is when reading ends", async () => {
    const draft = new ImageDraft();
    const first = draft.add(Array.from({ length: 5 }, (_, i) => new File([PNG], `first-${i}.png`)));
    const second = draft.add(Array.from({ length: 5 }, (_, i) => new File([PNG], `second-${i}.png`)));
    expect(draft.reading).toBe(2);
    await Promise.all([first, second]);
    expect(draft.reading).toBe(0);
    expect(draft.items).toHaveLength(MAX_IMAGES);
    // Whichever read ends second finds 3 places left: 2 of its 5 are named.
    expect(draft.errors).toHaveLength(1);
    expect(draft.errors[0]).toMatch(/^\w+-\d\.png, \w+-\d\.png not attached: at most 8 images may go with one message\.$/);
  });
});

describe("RunImages", () => {
  it("reads each image once, and again only after a failure", async () => {
    const view = { name: "shot.png", mediaType: "image/png", dataUrl: `data:image/png;base64,${PNG_BASE64}` };
    const fetch = vi.fn().mockResolvedValueOnce({ ok: false, error: { code: "not_found", message: "image not found: b1" } }).mockResolvedValue(ok(view));
    const images = new RunImages(fetch);
    await images.load("b1");
    expect(images.get("b1")).toEqual({ kind: "failed", error: { code: "not_found", message: "image not found: b1" } });
    await images.load("b1");
    expect(images.get("b1")).toEqual({ kind: "ready", image: view });
    await images.load("b1");
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});
