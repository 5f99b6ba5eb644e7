import { describe, expect, it } from "vitest";
import { EventLog } from "./eventLog";
import { envelope } from "./testSupport";

const seqs = (log: EventLog) => log.all().map((e) => e.seq);

describe("EventLog", () => {
  it("applies events in order and drops duplicates", () => {
    const log = new EventLog();
    expect(log.add(envelope(1)).map((e) => e.seq)).toEqual([1]);
    expect(log.add(envelope(2)).map((e) => e.seq)).toEqual([2]);
    expect(log.add(envelope(2))).toEqual([]);
    expect(log.add(envelope(1))).toEqual([]);
    expect(seqs(log)).toEqual([1, 2]);
    expect(log.lastSeq).toBe(2);
    expect(log.missing).toBeNull();
  });

  it("holds back an event after a gap and says what is missing", () => {
    const log = new EventLog();
    log.addAll([envelope(1), envelope(2), envelope(3)]);
    expect(log.add(envelope(10))).toEqual([]);
    expect(seqs(log)).toEqual([1, 2, 3]);
    expect(log.pendingCount).toBe(1);
    expect(log.missing).toEqual({ after: 3, through: 9 });
  });

  it("releases held-back events once the gap is filled, in order, each once", () => {
    const log = new EventLog();
    log.addAll([envelope(1), envelope(2), envelope(3)]);
    log.add(envelope(10));
    log.add(envelope(7));
    expect(log.missing).toEqual({ after: 3, through: 6 });
    // A page 4..10 overlapping the held-back events.
    const page = [4, 5, 6, 7, 8, 9, 10].map((s) => envelope(s));
    expect(log.addAll(page).map((e) => e.seq)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect(seqs(log)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(log.pendingCount).toBe(0);
    expect(log.missing).toBeNull();
  });

  it("applies out-of-order arrivals as soon as they are contiguous", () => {
    const log = new EventLog();
    log.add(envelope(1));
    log.add(envelope(3));
    log.add(envelope(4));
    expect(seqs(log)).toEqual([1]);
    expect(log.add(envelope(2)).map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(seqs(log)).toEqual([1, 2, 3, 4]);
  });

  it("keeps the first copy of a held-back seq and ignores invalid seqs", () => {
    const log = new EventLog();
    const first = envelope(2, { type: "run_started" });
    log.add(first);
    log.add(envelope(2, { type: "run_resumed" }));
    log.add(envelope(0));
    log.add(envelope(1.5));
    log.add(envelope(1));
    expect(log.bySeq(2)).toBe(first);
    expect(seqs(log)).toEqual([1, 2]);
  });

  it("keeps every value of an event as it came while sharing its strings", () => {
    const log = new EventLog();
    const long = "x".repeat(200);
    const calls = [{ call_id: "call_0123456789abcdef", tool_name: "read_file", arguments: { path: "src/a.rs", lines: [1, null, "two"], nested: { deep: [long] } } }];
    const events = [
      envelope(1, { type: "model_call_completed", action: { type: "tool_calls", calls }, usage: { input: 1, output: 2 }, stop_reason: "tool_use", text: long }),
      envelope(2, { type: "tool_call_requested", call: structuredClone(calls[0]) }),
    ];
    const copies = structuredClone(events);
    log.addAll(events);
    expect(log.all()).toEqual(copies);
    expect(log.bySeq(1)).toBe(events[0]);
  });

  it("forgets everything on reset", () => {
    const log = new EventLog();
    log.addAll([envelope(1), envelope(5)]);
    log.reset();
    expect(log.size).toBe(0);
    expect(log.lastSeq).toBe(0);
    expect(log.missing).toBeNull();
    expect(log.add(envelope(1)).length).toBe(1);
  });
});
