"use client";

import { useId, useState } from "react";
import { formatDateTime, formatVersion } from "@/lib/ui/format";
import { useChunks, type Chunk, type ChunkIndexVersion } from "@/lib/ui/operator";
import { LoadMoreFooter, QueryStates } from "../ListFrame";
import { EmptyState, StaleDataBanner, TableSkeleton } from "../States";

const LEVEL_LABEL: Record<number, string> = { 0: "Abstract", 1: "Overview", 2: "Chunk" };

function versionLabel(v: ChunkIndexVersion): string {
  return `${formatVersion(v.versionNumber)} · ${v.status.toLowerCase()}${v.serving ? " (served)" : ""} · ${v.chunkCount} chunk${v.chunkCount === 1 ? "" : "s"} · ${formatDateTime(v.createdAt)}`;
}

/**
 * What search holds for this document: the records of one index version in reading order, with
 * the section each came from, its level, its text and whether its vector was reused from an
 * earlier version or embedded anew. Opens on the version search serves.
 */
export function ChunkBrowser({ tenant, docKey }: { tenant: string; docKey: string }) {
  const headingId = useId();
  const ids = { version: useId(), level: useId() };
  const [open, setOpen] = useState(false);
  const [indexVersion, setIndexVersion] = useState<string | undefined>(undefined);
  const [level, setLevel] = useState<number | undefined>(undefined);
  const chunks = useChunks(tenant, docKey, { indexVersion, level }, open);
  const first = chunks.data?.pages[0];
  const items = chunks.data?.pages.flatMap((p) => p.items) ?? [];
  const versions = first?.indexVersions ?? [];
  const chosen = versions.find((v) => v.id === (indexVersion ?? first?.indexVersionId));
  const reused = items.filter((c) => c.reused).length;

  return (
    <section className="card" aria-labelledby={headingId} data-testid="chunk-browser">
      <div className="card__title chunk-browser__head">
        <h2 id={headingId} className="section-title">
          Chunks {chosen ? <span className="count">{chosen.chunkCount}</span> : null}
        </h2>
        <button
          type="button"
          className="btn btn--secondary btn--sm"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
          data-testid="chunks-toggle"
        >
          {open ? "Hide chunks" : "Browse chunks"}
        </button>
      </div>
      {!open ? (
        <p className="card__empty muted">
          The sections, text and levels search holds for this document, and which vectors were reused.
        </p>
      ) : (
        <>
          <form className="toolbar" aria-label="Choose chunks" onSubmit={(e) => e.preventDefault()}>
            <div className="field field--inline field--grow">
              <label htmlFor={ids.version} className="field__label">
                Index version
              </label>
              <select
                id={ids.version}
                className="select"
                value={indexVersion ?? first?.indexVersionId ?? ""}
                onChange={(e) => setIndexVersion(e.target.value || undefined)}
                disabled={versions.length === 0}
                data-testid="chunks-version"
              >
                {versions.length === 0 ? <option value="">No index versions</option> : null}
                {versions.map((v) => (
                  <option key={v.id} value={v.id}>
                    {versionLabel(v)}
                  </option>
                ))}
              </select>
            </div>
            <div className="field field--inline field--narrow">
              <label htmlFor={ids.level} className="field__label">
                Level
              </label>
              <select
                id={ids.level}
                className="select"
                value={level ?? ""}
                onChange={(e) => setLevel(e.target.value === "" ? undefined : Number(e.target.value))}
                data-testid="chunks-level"
              >
                <option value="">All levels</option>
                {[2, 1, 0].map((l) => (
                  <option key={l} value={l}>
                    {LEVEL_LABEL[l]}
                  </option>
                ))}
              </select>
            </div>
            {chosen ? (
              <p className="toolbar__status muted" data-testid="chunks-summary">
                {chosen.embeddingModel} · {chosen.embeddingDimensions} dims · chunker {chosen.chunkerVersion}
                {chosen.chunksReusedAtBuild !== null ? ` · ${chosen.chunksReusedAtBuild} reused when built` : ""}
                {items.length ? ` · ${reused} of ${items.length} shown reused` : ""}
              </p>
            ) : null}
          </form>
          {first?.textHidden ? (
            <p className="note note--info chunk-browser__note" role="note" data-testid="chunks-text-hidden">
              {first.textHiddenReason === "DELETED"
                ? "This document is deleted, so its text and headings are hidden here as they are in search; levels and sizes are shown."
                : "An ACL of this document does not include you (this version's, the served one's or the latest one's), so its text and headings are hidden here as they are in search; levels and sizes are shown."}
            </p>
          ) : null}
          <StaleDataBanner query={chunks} />
          <QueryStates
            query={chunks}
            skeleton={<TableSkeleton rows={4} columns={5} label="Loading chunks" />}
            errorTitle="Could not load the chunks"
            empty={items.length === 0}
            emptyState={
              <EmptyState title={versions.length === 0 ? "Nothing indexed yet" : "No chunks at this level"}>
                <p>
                  {versions.length === 0
                    ? "Chunks appear once the first index version is built."
                    : "Choose another level or index version."}
                </p>
              </EmptyState>
            }
          >
            <ol
              className={`chunk-list${chunks.isPlaceholderData ? " table-wrap--dimmed" : ""}`}
              data-testid="chunk-list"
            >
              {items.map((c) => (
                <ChunkItem key={c.ordinal} chunk={c} />
              ))}
            </ol>
            <LoadMoreFooter query={chunks}>
              Showing {items.length} of {chosen?.chunkCount ?? items.length}, in reading order
            </LoadMoreFooter>
          </QueryStates>
        </>
      )}
    </section>
  );
}

function ChunkItem({ chunk }: { chunk: Chunk }) {
  return (
    <li className="chunk" data-testid="chunk" data-reused={chunk.reused} data-level={chunk.level}>
      <div className="chunk__meta">
        <span className="chunk__ordinal mono">#{chunk.ordinal}</span>
        <span className="pill pill--neutral">{LEVEL_LABEL[chunk.level] ?? `Level ${chunk.level}`}</span>
        <span className={`pill ${chunk.reused ? "pill--ok" : "pill--info"}`} data-testid="chunk-origin">
          {chunk.reused ? "Reused" : "Embedded"}
        </span>
        {chunk.sectionPath === null ? (
          <span className="chunk__section muted">(section hidden)</span>
        ) : (
          <span className="chunk__section" title={chunk.sectionPath || "(no section)"}>
            {chunk.sectionPath || <span className="muted">(no section)</span>}
          </span>
        )}
        <span className="chunk__size muted">{chunk.chars.toLocaleString("en")} chars</span>
      </div>
      {chunk.text !== null ? (
        <p className="chunk__text">{chunk.text}</p>
      ) : (
        <p className="chunk__text muted">Text hidden.</p>
      )}
    </li>
  );
}
