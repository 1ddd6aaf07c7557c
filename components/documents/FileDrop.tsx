"use client";

import { useId, useRef, useState, type DragEvent } from "react";
import { formatBytes, percent } from "@/lib/ui/format";
import { UPLOAD_ACCEPT, UPLOAD_EXTENSIONS_TEXT } from "@/lib/ui/upload";
import "./file-drop.css";

export type ChosenFile = {
  file: File;
  contentType: string;
  /** The start of a text file, as the browser decodes it (UTF-8); null for PDF and DOCX. */
  preview: string | null;
  /** True when the preview holds only the start of the file. */
  previewCut: boolean;
};

type Props = {
  chosen: ChosenFile | null;
  onChoose: (file: File) => void;
  onRemove: () => void;
  error: string | null;
  disabled: boolean;
  /** Request bytes sent so far while an upload is in flight. */
  progress: { sent: number; total: number } | null;
};

/**
 * A drop zone with a "Choose file" button over a native file input (keyboard and screen readers
 * use the button; the drop zone is a shortcut for the mouse). Shows what was chosen, the preview
 * of a text file, and the upload's progress.
 */
export function FileDrop({ chosen, onChoose, onRemove, error, disabled, progress }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const id = useId();

  function take(files: FileList | null | undefined) {
    const file = files?.[0];
    if (file) onChoose(file);
  }

  function onDragOver(e: DragEvent<HTMLDivElement>) {
    if (disabled || !Array.from(e.dataTransfer.types).includes("Files")) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
    if (!over) setOver(true);
  }

  function onDrop(e: DragEvent<HTMLDivElement>) {
    e.preventDefault();
    setOver(false);
    if (!disabled) take(e.dataTransfer.files);
  }

  return (
    <div className="field">
      <span className="field__label" id={`${id}-label`}>
        File <span className="field__optional">(optional: or paste the content below)</span>
      </span>
      <div
        className={`file-drop${over ? " file-drop--over" : ""}${error ? " file-drop--invalid" : ""}`}
        data-testid="file-drop"
        onDragEnter={onDragOver}
        onDragOver={onDragOver}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
        }}
        onDrop={onDrop}
      >
        {chosen ? (
          <div className="file-drop__chosen" data-testid="file-chosen">
            <div className="file-drop__meta">
              <span className="file-drop__name" data-testid="file-name">
                {chosen.file.name}
              </span>
              <span className="file-drop__details">
                <span data-testid="file-size">{formatBytes(chosen.file.size)}</span> ·{" "}
                <code className="code-chip" data-testid="file-type">
                  {chosen.contentType}
                </code>
              </span>
            </div>
            <button type="button" className="btn btn--secondary btn--sm" onClick={onRemove} disabled={disabled}>
              Remove file
            </button>
          </div>
        ) : (
          <p className="file-drop__prompt">Drop a file here, or</p>
        )}
        <button
          type="button"
          className="btn btn--secondary"
          onClick={() => input.current?.click()}
          disabled={disabled}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
          data-testid="file-choose"
        >
          {chosen ? "Choose another file" : "Choose file"}
        </button>
        <input
          ref={input}
          type="file"
          accept={UPLOAD_ACCEPT}
          hidden
          aria-labelledby={`${id}-label`}
          data-testid="file-input"
          onChange={(e) => {
            take(e.target.files);
            // The same file chosen again after "Remove file" must fire change again.
            e.target.value = "";
          }}
        />
        <p id={`${id}-hint`} className="field__hint">
          {UPLOAD_EXTENSIONS_TEXT}
        </p>
      </div>
      {error ? (
        <p id={`${id}-error`} className="field__error" role="alert" data-testid="file-error">
          {error}
        </p>
      ) : null}
      {progress ? <UploadProgress sent={progress.sent} total={progress.total} /> : null}
      {chosen?.preview != null ? (
        <div className="file-drop__preview-wrap">
          <span className="field__label" id={`${id}-preview`}>
            Preview{chosen.previewCut ? " (start of the file)" : ""}
          </span>
          <pre
            className="file-drop__preview mono"
            role="region"
            tabIndex={0}
            aria-labelledby={`${id}-preview`}
            data-testid="file-preview"
          >
            {chosen.preview}
          </pre>
        </div>
      ) : null}
    </div>
  );
}

function UploadProgress({ sent, total }: { sent: number; total: number }) {
  const pct = percent(sent, total);
  const text = `${formatBytes(sent)} / ${formatBytes(total)}`;
  return (
    <div className="progress progress--sm" data-testid="upload-progress">
      <div
        className="progress__track"
        role="progressbar"
        aria-label="Upload progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-valuetext={`${text} (${pct}%)`}
      >
        <div className="progress__fill" style={{ width: `${pct}%` }} />
      </div>
      <span className="progress__text">
        {text} · {pct}%
      </span>
    </div>
  );
}
