import type { ImageUpload } from "../../bindings";
import { filesOf, readImages, toUploads, withImages, type ImageAttachment, type ImageSource } from "./images";

/**
 * The images waiting in one box (the goal, a reply) until its message is
 * sent: added by paste, drop or the file picker, checked as they come in,
 * removable one by one. Nothing leaves the window before the message does.
 */
export class ImageDraft {
  items = $state.raw<ImageAttachment[]>([]);
  /** Why the last files added were not all attached. */
  errors = $state.raw<string[]>([]);
  /** Files still being read: sending waits for them. */
  reading = $state(0);

  /** Nothing attached, refused or being read: nothing to show. */
  get idle(): boolean {
    return this.items.length === 0 && this.errors.length === 0 && this.reading === 0;
  }

  get uploads(): ImageUpload[] {
    return toUploads(this.items);
  }

  async add(files: readonly ImageSource[]): Promise<void> {
    if (files.length === 0) return;
    this.reading += 1;
    try {
      const read = await readImages(files);
      // The list may have changed while reading: the limit applies to it as it is now.
      const next = withImages(this.items, read.images);
      this.items = next.attachments;
      this.errors = [...read.errors, ...next.errors];
    } finally {
      this.reading -= 1;
    }
  }

  remove(id: string): void {
    this.items = this.items.filter((i) => i.id !== id);
    this.errors = [];
  }

  clear(): void {
    this.items = [];
    this.errors = [];
  }

  dismissErrors(): void {
    this.errors = [];
  }
}

/**
 * Makes an element take images pasted into it (or into a field inside it)
 * or dropped on it; text pastes and drags go on as usual. A Svelte
 * attachment: `{@attach takesImages(draft)}`.
 */
export function takesImages(draft: ImageDraft): (node: HTMLElement) => () => void {
  return (node) => {
    const onpaste = (e: ClipboardEvent) => {
      const files = filesOf(e.clipboardData);
      if (files.length === 0) return;
      e.preventDefault();
      void draft.add(files);
    };
    const ondragover = (e: DragEvent) => {
      if (!e.dataTransfer?.types.includes("Files")) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
    };
    const ondrop = (e: DragEvent) => {
      const files = filesOf(e.dataTransfer);
      if (files.length === 0) return;
      e.preventDefault();
      void draft.add(files);
    };
    node.addEventListener("paste", onpaste);
    node.addEventListener("dragover", ondragover);
    node.addEventListener("drop", ondrop);
    return () => {
      node.removeEventListener("paste", onpaste);
      node.removeEventListener("dragover", ondragover);
      node.removeEventListener("drop", ondrop);
    };
  };
}
