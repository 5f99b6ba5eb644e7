// Images pasted, dropped or picked into the goal and reply boxes: quick
// checks before anything is sent (the backend checks again and has the last
// word), and the bytes in the shape the start and reply commands take.
import type { ImageType, ImageUpload } from "../../bindings";
import { formatBytes } from "./format";

/** Like the kernel's limits: images per message, bytes per image. */
export const MAX_IMAGES = 8;
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** What the "Attach image…" file picker offers. */
export const IMAGE_ACCEPT = "image/png,image/jpeg,image/webp,image/gif";
/** The name of an image that came without one (a screenshot pasted from the clipboard). */
export const PASTED_NAME = "pasted image";

const MIME: Record<ImageType, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp", gif: "image/gif" };

export function imageMime(type: ImageType): string {
  return MIME[type];
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) => prefix.every((b, i) => bytes[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];

/** The type the first bytes say, whatever the file's name or browser type claim (as the backend decides). */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (startsWith(bytes, PNG)) return "png";
  if (startsWith(bytes, JPEG)) return "jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "gif";
  if (bytes.length >= 12 && startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "webp";
  return null;
}

/** Standard base64 (no `data:` prefix); in chunks, since one call per byte or one huge spread would not scale to 20 MB. */
export function toBase64(bytes: Uint8Array): string {
  const CHUNK = 0x8000;
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** An image waiting in a box to be sent with its message. */
export interface ImageAttachment {
  id: string;
  name: string;
  type: ImageType;
  bytes: number;
  dataBase64: string;
  /** A `data:` URL of the image, for its thumbnail. */
  src: string;
}

/** What a paste, a drop or the file picker gives (a `File`). */
export interface ImageSource {
  readonly name: string;
  readonly size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

let nextId = 0;

/** Reads one file if it passes the checks, else says why not (naming it). */
export async function readImage(file: ImageSource): Promise<{ image: ImageAttachment; error: null } | { image: null; error: string }> {
  const name = file.name.trim() || PASTED_NAME;
  if (file.size === 0) return { image: null, error: `${name} is empty.` };
  if (file.size > MAX_IMAGE_BYTES) {
    return { image: null, error: `${name} is ${formatBytes(file.size)}; images may be at most ${MAX_IMAGE_BYTES / (1024 * 1024)} MB.` };
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  const type = sniffImageType(bytes);
  if (type === null) return { image: null, error: `${name} is not a PNG, JPEG, WebP or GIF image (its first bytes say otherwise).` };
  const dataBase64 = toBase64(bytes);
  nextId += 1;
  return { image: { id: `image-${nextId}`, name, type, bytes: bytes.length, dataBase64, src: `data:${MIME[type]};base64,${dataBase64}` }, error: null };
}

/** Reads every file; the ones that fail say why. */
export async function readImages(files: readonly ImageSource[]): Promise<{ images: ImageAttachment[]; errors: string[] }> {
  const read = await Promise.all(files.map(readImage));
  return { images: read.flatMap((r) => (r.image ? [r.image] : [])), errors: read.flatMap((r) => (r.error !== null ? [r.error] : [])) };
}

/** The list with `added` appended up to `MAX_IMAGES`; the ones left out are named. */
export function withImages(current: readonly ImageAttachment[], added: readonly ImageAttachment[]): { attachments: ImageAttachment[]; errors: string[] } {
  const room = Math.max(0, MAX_IMAGES - current.length);
  const left = added.slice(room);
  const errors = left.length === 0 ? [] : [`${left.map((i) => i.name).join(", ")} not attached: at most ${MAX_IMAGES} images may go with one message.`];
  return { attachments: [...current, ...added.slice(0, room)], errors };
}

/** What the start and reply commands take. */
export function toUploads(images: readonly ImageAttachment[]): ImageUpload[] {
  return images.map(({ name, dataBase64 }) => ({ name, dataBase64 }));
}

/** The files a paste or a drop carries (none for plain text). */
export function filesOf(data: DataTransfer | null): File[] {
  if (!data) return [];
  if (data.files.length > 0) return [...data.files];
  return [...data.items].flatMap((item) => {
    const file = item.kind === "file" ? item.getAsFile() : null;
    return file ? [file] : [];
  });
}

/** "1 image", "3 images". */
export function imageCount(n: number): string {
  return n === 1 ? "1 image" : `${n} images`;
}
