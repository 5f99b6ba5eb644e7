// The scroll benches' baseline, shared by the real-app bench (lib.mjs
// appendPlainList, in the blank Tauri window) and the Chromium one
// (ui/bench/timeline.bench.mjs), so both measure the same list. It runs in
// the page: self-contained, no imports or closures.

/** Appends a plain scrolling list (#list) of `rows` text rows, `height` px tall. */
export function plainList({ rows, height }) {
  const list = document.createElement("div");
  list.id = "list";
  list.style.cssText = `height:${height}px;overflow-y:auto;border:1px solid #ddd;font:13px sans-serif`;
  for (let i = 0; i < rows; i++) {
    const row = document.createElement("div");
    row.style.cssText = "padding:8px 12px;border-bottom:1px solid #eee";
    row.dataset.index = String(i);
    row.textContent = `#${i + 1} tool call read_file {"path":"src/module_${i % 63}.rs"} → fn item_${i}(input: &str) -> Result<(), Error>`;
    list.append(row);
  }
  document.body.append(list);
}
