// The formats Indexwright reads, on their own: the dashboard's browser code lists them (publish
// dialog, schemas), and must not pull in the parse sandbox (child processes, zlib, yauzl) with them.

import { normaliseContentType } from "../charset";

export const TEXT_CONTENT_TYPES = ["text/markdown", "text/plain", "text/html"] as const;
export const PDF_CONTENT_TYPE = "application/pdf";
export const DOCX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
/** Formats only `parseDocumentAsync` can parse. */
export const BINARY_CONTENT_TYPES = [PDF_CONTENT_TYPE, DOCX_CONTENT_TYPE] as const;
export const SUPPORTED_CONTENT_TYPES = [...TEXT_CONTENT_TYPES, ...BINARY_CONTENT_TYPES] as const;
export type SupportedContentType = (typeof SUPPORTED_CONTENT_TYPES)[number];

/** Supported by `parseDocumentAsync` (text and binary formats). */
export function isSupportedContentType(ct: string): boolean {
  return (SUPPORTED_CONTENT_TYPES as readonly string[]).includes(normaliseContentType(ct));
}

/** A supported format that only `parseDocumentAsync` can parse (PDF, DOCX). */
export function isBinaryContentType(ct: string): boolean {
  return (BINARY_CONTENT_TYPES as readonly string[]).includes(normaliseContentType(ct));
}
