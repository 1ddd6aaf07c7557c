import { describe, expect, it } from "vitest";
import { KEY_PATTERN } from "../../lib/domain/constants";
import { SUPPORTED_CONTENT_TYPES } from "../../lib/pipeline/parse";
import {
  contentTypeForFileName,
  isTextContentType,
  keyFromFileName,
  titleFromFileName,
  UPLOAD_ACCEPT,
  UPLOAD_CONTENT_TYPES,
} from "../../lib/ui/upload";

describe("file upload: content type from the extension", () => {
  it("maps each supported extension, whatever its case", () => {
    expect(contentTypeForFileName("scan.pdf")).toBe("application/pdf");
    expect(contentTypeForFileName("Letter.DOCX")).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    expect(contentTypeForFileName("page.html")).toBe("text/html");
    expect(contentTypeForFileName("PAGE.HTM")).toBe("text/html");
    expect(contentTypeForFileName("notes.md")).toBe("text/markdown");
    expect(contentTypeForFileName("notes.markdown")).toBe("text/markdown");
    expect(contentTypeForFileName("readme.txt")).toBe("text/plain");
    expect(contentTypeForFileName("archive.tar.md")).toBe("text/markdown");
  });

  it("refuses other extensions, names without one, and dot files", () => {
    for (const name of ["setup.exe", "old.doc", "sheet.xlsx", "image.png", "README", ".md", "notes.md.zip", "pdf"]) {
      expect(contentTypeForFileName(name), name).toBeNull();
    }
  });

  it("offers only content types the server indexes, and the picker accepts every extension", () => {
    for (const [ext, type] of Object.entries(UPLOAD_CONTENT_TYPES)) {
      expect(SUPPORTED_CONTENT_TYPES as readonly string[]).toContain(type);
      expect(UPLOAD_ACCEPT.split(",")).toContain(`.${ext}`);
    }
    expect(isTextContentType("text/markdown")).toBe(true);
    expect(isTextContentType("application/pdf")).toBe(false);
  });
});

describe("file upload: key and title from the file name", () => {
  it("derives a key by the API's rules, without the extension", () => {
    expect(keyFromFileName("Q3 Report (final).pdf")).toBe("q3-report-final");
    expect(keyFromFileName("handbook.onboarding.md")).toBe("handbook.onboarding");
    expect(keyFromFileName("Über_Café Notes.docx")).toBe("uber_cafe-notes");
    expect(keyFromFileName("C:\\Users\\ada\\My Notes.txt")).toBe("my-notes");
    expect(keyFromFileName("--draft--.html")).toBe("draft");
    expect(keyFromFileName(`${"a".repeat(200)}.md`)).toBe("a".repeat(128));
  });

  it("every derived key passes the API's key pattern, or is empty when nothing usable is left", () => {
    expect(keyFromFileName("東京.pdf")).toBe("");
    expect(keyFromFileName("!!!.md")).toBe("");
    const names = ["a.pdf", "A B.md", "x-.txt", "9 lives.html", `${"ab-".repeat(60)}.docx`, "a....b.md"];
    for (const name of names) expect(keyFromFileName(name), name).toMatch(KEY_PATTERN);
  });

  it("takes the title from the file name without its path and extension", () => {
    expect(titleFromFileName("Q3 Report (final).pdf")).toBe("Q3 Report (final)");
    expect(titleFromFileName("/tmp/notes.md")).toBe("notes");
    expect(titleFromFileName("README")).toBe("README");
  });
});
