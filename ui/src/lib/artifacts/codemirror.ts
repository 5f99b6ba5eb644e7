// CodeMirror 6 for edit before keep, loaded only when an editor opens (it
// is most of the bundle otherwise).
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { EditorState, Prec } from "@codemirror/state";
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from "@codemirror/view";

export interface EditorHooks {
  label: string;
  onchange(text: string): void;
  /** Ctrl/Cmd+Enter. */
  onkeep(): void;
  /** Escape. */
  oncancel(): void;
}

/** An editor of `doc` in `parent`, focused; Tab is left to move focus out. */
export function createEditor(parent: HTMLElement, doc: string, hooks: EditorHooks): { destroy(): void } {
  const shortcuts = Prec.highest(
    keymap.of([
      { key: "Mod-Enter", run: () => (hooks.onkeep(), true) },
      { key: "Escape", run: () => (hooks.oncancel(), true) },
    ]),
  );
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        shortcuts,
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": hooks.label, "aria-multiline": "true", "data-testid": "editor-content" }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) hooks.onchange(u.state.doc.toString());
        }),
      ],
    }),
  });
  view.focus();
  return view;
}
