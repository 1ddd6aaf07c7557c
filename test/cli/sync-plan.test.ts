import { describe, expect, it } from "vitest";
import { keyForPath, planSync, type LocalFile, type RemoteDoc } from "../../cli/sync";

// The sync rule alone: which files are published, which documents deleted, which left alone.

const file = (key: string, checksum: string): LocalFile => ({
  key,
  rel: key,
  abs: `/kb/${key}`,
  checksum,
  contentType: "text/markdown",
  bytes: 1,
});
const doc = (key: string, checksum: string | null, state = "SEARCHABLE"): RemoteDoc => ({ key, state, checksum });

describe("keyForPath", () => {
  it("is the relative path, lower-cased, with separators as dots and other characters as dashes", () => {
    expect(keyForPath("intro.md")).toBe("intro.md");
    expect(keyForPath("Guides/Night Shift.txt")).toBe("guides.night-shift.txt");
    expect(keyForPath("a\\b.md")).toBe("a.b.md");
    expect(keyForPath("x.md", "kb-")).toBe("kb-x.md");
  });

  it("refuses a path that cannot be a key", () => {
    expect(() => keyForPath("-dash.md")).toThrow(/not a valid document key/);
    expect(() => keyForPath(`${"a".repeat(130)}.md`)).toThrow(/at most 128/);
  });
});

describe("planSync", () => {
  it("new, changed, unchanged and missing files; deleted documents count as absent", () => {
    const plan = planSync(
      [file("new.md", "n"), file("same.md", "s"), file("changed.md", "c2"), file("revived.md", "r")],
      [
        doc("same.md", "s"),
        doc("changed.md", "c1"),
        doc("gone.md", "g"),
        doc("revived.md", null, "DELETED"),
        doc("already-deleted.md", null, "DELETED"),
      ],
    );
    expect(plan).toEqual({
      publish: [
        { key: "new.md", file: "new.md", reason: "new" },
        { key: "changed.md", file: "changed.md", reason: "changed" },
        { key: "revived.md", file: "revived.md", reason: "new" },
      ],
      delete: [{ key: "gone.md", reason: "missing-locally" }],
      unchanged: ["same.md"],
    });
  });

  it("is empty when the folder and the server agree", () => {
    expect(planSync([file("a.md", "1")], [doc("a.md", "1")])).toEqual({ publish: [], delete: [], unchanged: ["a.md"] });
  });
});
