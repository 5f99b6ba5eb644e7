// A V8 heap snapshot (CDP HeapProfiler.takeHeapSnapshot) read in Node:
// retained sizes from the dominator tree (Cooper–Harvey–Kennedy over
// strong edges), and summaries of what holds memory.

/** Takes a snapshot of the page behind `cdp` and returns it parsed. */
export async function takeSnapshot(cdp) {
  const chunks = [];
  const onChunk = ({ chunk }) => chunks.push(chunk);
  cdp.on("HeapProfiler.addHeapSnapshotChunk", onChunk);
  await cdp.send("HeapProfiler.collectGarbage");
  await cdp.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  cdp.off("HeapProfiler.addHeapSnapshotChunk", onChunk);
  return analyse(JSON.parse(chunks.join("")));
}

/** Nodes with their type, name, self and retained size, and the strong graph. */
function analyse(raw) {
  const meta = raw.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const [typeAt, nameAt, selfAt, countAt] = ["type", "name", "self_size", "edge_count"].map((f) => meta.node_fields.indexOf(f));
  const [eTypeAt, eNameAt, eToAt] = ["type", "name_or_index", "to_node"].map((f) => meta.edge_fields.indexOf(f));
  const n = raw.nodes.length / nf;
  const firstEdge = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) firstEdge[i + 1] = firstEdge[i] + raw.nodes[i * nf + countAt];
  const weak = edgeTypes.indexOf("weak");
  const strong = (e) => raw.edges[e * ef + eTypeAt] !== weak;
  const target = (e) => raw.edges[e * ef + eToAt] / nf;

  // Depth-first post order from the root (node 0) over strong edges.
  const post = new Int32Array(n).fill(-1);
  const order = new Int32Array(n);
  const stack = new Int32Array(n);
  const next = new Uint32Array(n);
  const seen = new Uint8Array(n);
  let count = 0;
  let top = 0;
  stack[0] = 0;
  seen[0] = 1;
  next[0] = firstEdge[0];
  while (top >= 0) {
    const v = stack[top];
    if (next[v] < firstEdge[v + 1]) {
      const e = next[v]++;
      const w = target(e);
      if (strong(e) && !seen[w]) {
        seen[w] = 1;
        next[w] = firstEdge[w];
        stack[++top] = w;
      }
    } else {
      post[v] = count;
      order[count++] = v;
      top--;
    }
  }

  // Predecessors (strong edges between reached nodes).
  const predCount = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    if (!seen[v]) continue;
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e++) if (strong(e)) predCount[target(e) + 1]++;
  }
  for (let i = 0; i < n; i++) predCount[i + 1] += predCount[i];
  const preds = new Int32Array(predCount[n]);
  const fill = predCount.slice(0, n);
  for (let v = 0; v < n; v++) {
    if (!seen[v]) continue;
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e++) if (strong(e)) preds[fill[target(e)]++] = v;
  }

  const idom = dominators(n, post, order, count, predCount, preds);
  const self = new Float64Array(n);
  for (let i = 0; i < n; i++) self[i] = raw.nodes[i * nf + selfAt];
  const retained = Float64Array.from(self);
  for (let k = 0; k < count - 1; k++) {
    const v = order[k];
    retained[idom[v]] += retained[v];
  }

  const type = (i) => nodeTypes[raw.nodes[i * nf + typeAt]];
  const name = (i) => raw.strings[raw.nodes[i * nf + nameAt]];
  const edges = function* (i) {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e++) {
      const t = edgeTypes[raw.edges[e * ef + eTypeAt]];
      const key = raw.edges[e * ef + eNameAt];
      yield { type: t, name: t === "element" || t === "hidden" ? String(key) : raw.strings[key], to: target(e) };
    }
  };
  return { n, type, name, self, retained, reached: (i) => seen[i] === 1, edges };
}

function dominators(n, post, order, count, predStart, preds) {
  const idom = new Int32Array(n).fill(-1);
  const root = order[count - 1];
  idom[root] = root;
  const intersect = (a, b) => {
    while (a !== b) {
      while (post[a] < post[b]) a = idom[a];
      while (post[b] < post[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = count - 2; k >= 0; k--) {
      const v = order[k];
      let dom = -1;
      for (let p = predStart[v]; p < predStart[v + 1]; p++) {
        const u = preds[p];
        if (idom[u] === -1) continue;
        dom = dom === -1 ? u : intersect(u, dom);
      }
      if (dom !== -1 && idom[v] !== dom) {
        idom[v] = dom;
        changed = true;
      }
    }
  }
  return idom;
}

const STRING_TYPES = new Set(["string", "concatenated string", "sliced string"]);

/** What a node counts as in the by-constructor table. */
function kindOf(snap, i) {
  const t = snap.type(i);
  if (STRING_TYPES.has(t)) return "(string)";
  if (t === "object" || t === "closure" || t === "native") return `${snap.name(i)}${t === "closure" ? " (closure)" : ""}`;
  return `(${t})`;
}

/** Count and self size per constructor (or kind) of the reachable nodes. */
export function byConstructor(snap) {
  const rows = new Map();
  for (let i = 0; i < snap.n; i++) {
    if (!snap.reached(i)) continue;
    const key = kindOf(snap, i);
    const row = rows.get(key) ?? { count: 0, self: 0 };
    row.count++;
    row.self += snap.self[i];
    rows.set(key, row);
  }
  return rows;
}

/** Instances of the named classes, and what each holds by field (retained size). */
export function holders(snap, classes) {
  const found = [];
  for (let i = 0; i < snap.n; i++) {
    if (snap.type(i) !== "object" || !classes.includes(snap.name(i)) || !snap.reached(i)) continue;
    const fields = [];
    for (const edge of snap.edges(i)) {
      if (edge.type !== "property" && edge.type !== "internal") continue;
      fields.push({ name: edge.name, retained: snap.retained[edge.to], kind: kindOf(snap, edge.to) });
    }
    fields.sort((a, b) => b.retained - a.retained);
    found.push({ name: snap.name(i), retained: snap.retained[i], fields });
  }
  return found.sort((a, b) => b.retained - a.retained);
}

/** Strings of at least `min` characters: how many, their bytes, and how many share their text with another. */
export function longStrings(snap, min = 512) {
  const texts = new Map();
  let count = 0;
  let bytes = 0;
  for (let i = 0; i < snap.n; i++) {
    if (!snap.reached(i) || !STRING_TYPES.has(snap.type(i))) continue;
    const text = snap.name(i);
    if (text.length < min) continue;
    count++;
    bytes += snap.self[i];
    texts.set(text, (texts.get(text) ?? 0) + 1);
  }
  let copies = 0;
  for (const c of texts.values()) copies += c - 1;
  return { count, bytes, copies };
}

/** The largest retainers by retained size that are not the root's plumbing (no GC roots or windows). */
export function topRetainers(snap, limit = 12, min = 1 << 20) {
  const rows = [];
  for (let i = 0; i < snap.n; i++) {
    const t = snap.type(i);
    if (!snap.reached(i) || t === "synthetic" || snap.retained[i] < min) continue;
    rows.push({ name: kindOf(snap, i), self: snap.self[i], retained: snap.retained[i] });
  }
  return rows.sort((a, b) => b.retained - a.retained).slice(0, limit);
}

/**
 * Strings shorter than `max` characters held more than once: the bytes of
 * the copies (all but one per text), and the texts wasting most.
 */
export function stringCopies(snap, max = 512, limit = 8) {
  const texts = new Map();
  let count = 0;
  let bytes = 0;
  for (let i = 0; i < snap.n; i++) {
    if (!snap.reached(i) || snap.type(i) !== "string") continue;
    const text = snap.name(i);
    if (text.length >= max) continue;
    count++;
    bytes += snap.self[i];
    const row = texts.get(text) ?? { count: 0, self: snap.self[i] };
    row.count++;
    texts.set(text, row);
  }
  let copies = 0;
  let copyBytes = 0;
  const rows = [];
  for (const [text, row] of texts) {
    if (row.count < 2) continue;
    copies += row.count - 1;
    copyBytes += (row.count - 1) * row.self;
    rows.push({ text, count: row.count, wasted: (row.count - 1) * row.self });
  }
  rows.sort((a, b) => b.wasted - a.wasted);
  return { count, bytes, copies, copyBytes, top: rows.slice(0, limit) };
}

/** Self size of the nodes of one type (e.g. "code"), by name. */
export function byName(snap, type, limit = 8) {
  const rows = new Map();
  for (let i = 0; i < snap.n; i++) {
    if (!snap.reached(i) || snap.type(i) !== type) continue;
    const key = snap.name(i).slice(0, 60);
    const row = rows.get(key) ?? { count: 0, self: 0 };
    row.count++;
    row.self += snap.self[i];
    rows.set(key, row);
  }
  return [...rows].map(([name, r]) => ({ name, ...r })).sort((a, b) => b.self - a.self).slice(0, limit);
}
