// Publishing a file from the dashboard: which files are accepted, what key and title a file name
// suggests, and the multipart upload itself (XMLHttpRequest, the one browser API that reports the
// progress of a request body: fetch has no upload progress events, and Chromium streams a request
// body only over HTTP/2).
import { KEY_PATTERN } from "@/lib/domain/constants";
import type { Schemas } from "../client";
import { ApiError, errorFrom } from "./api";
import type { PublishResult } from "./schemas";

export const DOCX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** Extension (lowercase, no dot) → the content type published for it. */
export const UPLOAD_CONTENT_TYPES: Readonly<Record<string, string>> = {
  pdf: "application/pdf",
  docx: DOCX_CONTENT_TYPE,
  html: "text/html",
  htm: "text/html",
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
};

/** The file picker's `accept`: extensions and their content types. */
export const UPLOAD_ACCEPT = [
  ...Object.keys(UPLOAD_CONTENT_TYPES).map((ext) => `.${ext}`),
  ...new Set(Object.values(UPLOAD_CONTENT_TYPES)),
].join(",");

export const UPLOAD_EXTENSIONS_TEXT =
  "PDF, DOCX, HTML, Markdown or plain text (.pdf, .docx, .html, .htm, .md, .markdown, .txt)";

function extensionOf(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

/**
 * The content type for a file, from its extension only: browsers leave File.type empty for
 * Markdown and guess differently across systems, so the extension is the one stable signal.
 * null when the extension is not one the service indexes.
 */
export function contentTypeForFileName(fileName: string): string | null {
  return UPLOAD_CONTENT_TYPES[extensionOf(fileName)] ?? null;
}

/** Text formats are read in the browser for a preview; PDF and DOCX are not. */
export function isTextContentType(contentType: string): boolean {
  return contentType.startsWith("text/");
}

/** "Q3 Report (final).PDF" → "Q3 Report (final)": the file name without its path and extension. */
export function titleFromFileName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return (dot > 0 ? base.slice(0, dot) : base).trim();
}

/**
 * A document key from a file name, by the API's key rules (KEY_PATTERN): "Q3 Report (final).pdf"
 * → "q3-report-final". The extension is dropped so that publishing report.docx and later
 * report.pdf updates one document. "" when nothing usable is left (e.g. "(1).pdf" stays "1").
 */
export function keyFromFileName(fileName: string): string {
  const key = titleFromFileName(fileName)
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 128)
    .replace(/[-._]+$/, "");
  return KEY_PATTERN.test(key) ? key : "";
}

export type UploadInput = {
  tenant: string;
  key: string;
  title: string;
  contentType: string;
  file: File;
  acl?: string[];
  /** Bytes of the request body sent so far, and its total (multipart overhead included). */
  onProgress?: (sent: number, total: number) => void;
};

/** Publishes a file as a multipart upload (the API's `file` field), reporting upload progress. */
export function uploadDocument(input: UploadInput): Promise<PublishResult> {
  const form = new FormData();
  form.set("title", input.title);
  form.set("contentType", input.contentType);
  if (input.acl && input.acl.length > 0) form.set("acl", input.acl.join(","));
  form.set("file", input.file, input.file.name);
  const url = `/api/v1/tenants/${encodeURIComponent(input.tenant)}/documents/${encodeURIComponent(input.key)}/versions`;
  return new Promise<PublishResult>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader("accept", "application/json");
    xhr.withCredentials = true;
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) input.onProgress?.(e.loaded, e.total);
    };
    xhr.onerror = () =>
      reject(new ApiError(0, "NETWORK_ERROR", "Could not reach the server. Check your connection and try again."));
    xhr.onabort = () => reject(new DOMException("The upload was cancelled.", "AbortError"));
    xhr.onload = () => {
      const res = new Response(xhr.status === 204 ? null : xhr.responseText, { status: xhr.status });
      if (xhr.status < 200 || xhr.status >= 300) {
        void errorFrom(res).then(reject, reject);
        return;
      }
      let json: unknown;
      try {
        json = JSON.parse(xhr.responseText);
      } catch {
        reject(new ApiError(xhr.status, "BAD_RESPONSE", "The server sent a response that is not JSON."));
        return;
      }
      resolve({ ...(json as Schemas["PublishResult"]), unchanged: xhr.status === 200 });
    };
    xhr.send(form);
  });
}
