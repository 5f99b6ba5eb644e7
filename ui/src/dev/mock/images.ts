// Development-only: images sent with a goal or a reply, in the mock
// backend. Like the Rust app, it checks them again (count, size, type by
// their first bytes), keeps their bytes by content hash and gives out only
// an image one of the run's events references (`run_image`).
import type { EventPayload, ImageRef, ImageUpload, RunImageView } from "../../bindings";
import { MAX_IMAGE_BYTES, MAX_IMAGES, imageMime, sniffImageType } from "../../lib/runs/images";
import type { MockRunEngine } from "./runEngine";
import { runOf } from "./runs";
import { MockError } from "./settings";

function invalid(message: string): never {
  throw new MockError({ code: "invalid_input", message });
}

function decode(upload: ImageUpload): Uint8Array<ArrayBuffer> {
  try {
    return Uint8Array.from(atob(upload.dataBase64), (c) => c.charCodeAt(0));
  } catch {
    return invalid(`image ${upload.name} is not valid base64`);
  }
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The images an event references (the goal's, a tool's). */
function imagesOf(p: EventPayload): readonly ImageRef[] {
  if (p.type === "run_created") return p.images ?? [];
  if (p.type === "tool_call_completed" || p.type === "tool_call_failed") return p.result.images ?? [];
  return [];
}

/** Like the providers crate's `default_vision`: the families published as multimodal; unknown models do not read images. */
export function defaultVision(model: string): boolean {
  const m = model.toLowerCase();
  if (["o1-mini", "o3-mini", "claude-2", "claude-instant"].some((p) => m.startsWith(p))) return false;
  const prefixes = ["gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-5", "o3", "o4", "claude", "gemini", "pixtral", "llava", "gemma3"];
  return prefixes.some((p) => m.startsWith(p)) || ["-vl", "vision", "minicpm-v"].some((p) => m.includes(p));
}

/** The provider a run's images would go to. */
export interface ImageReader {
  name: string;
  model: string;
  vision: boolean;
}

export class MockImages {
  readonly #bytes = new Map<string, string>();

  /** Checks and stores the uploads, in order; the first one refused refuses them all (as does a provider that does not read images). */
  async store(uploads: readonly ImageUpload[] | undefined, reader: ImageReader): Promise<ImageRef[]> {
    const all = uploads ?? [];
    if (all.length === 0) return [];
    if (all.length > MAX_IMAGES) invalid(`${all.length} images given; at most ${MAX_IMAGES} may go with one message`);
    const refs: ImageRef[] = [];
    for (const upload of all) {
      const bytes = decode(upload);
      if (bytes.length === 0) invalid(`${upload.name} is empty`);
      if (bytes.length > MAX_IMAGE_BYTES) invalid(`${upload.name} is too large; images may be at most 20.0 MB`);
      const type = sniffImageType(bytes);
      if (type === null) invalid(`${upload.name} is not a PNG, JPEG, WebP or GIF image (its first bytes say otherwise)`);
      refs.push({ blob: await sha256(bytes), media_type: type, bytes: bytes.length, name: upload.name });
    }
    if (!reader.vision) {
      invalid(
        `provider ${reader.name} (model ${reader.model}) is not set to read images: set vision = true in its [providers.${reader.name}] config if the model reads them, or use a provider whose model does (JSON-text mode never sends images)`,
      );
    }
    all.forEach((upload, i) => this.#bytes.set(refs[i].blob, upload.dataBase64));
    return refs;
  }

  /** Like `run_image`: only an image one of the run's events references. */
  view(engine: MockRunEngine, runId: string, blob: string): RunImageView {
    const run = runOf(engine, runId);
    const image = run.events.flatMap((e) => imagesOf(e.payload)).find((i) => i.blob === blob);
    const data = image ? this.#bytes.get(blob) : undefined;
    if (!image || data === undefined) throw new MockError({ code: "not_found", message: `image not found: ${blob}` });
    const mediaType = imageMime(image.media_type);
    return { name: image.name, mediaType, dataUrl: `data:${mediaType};base64,${data}` };
  }
}
