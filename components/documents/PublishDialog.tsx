"use client";

import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { KEY_PATTERN, TENANT_PATTERN } from "@/lib/domain/constants";
import { documentHref, errorText, isApiError, splitList } from "@/lib/ui/api";
import { usePublish } from "@/lib/ui/hooks";
import { CONTENT_TYPES, type ContentType, type PublishResult } from "@/lib/ui/schemas";
import {
  contentTypeForFileName,
  isTextContentType,
  keyFromFileName,
  titleFromFileName,
  UPLOAD_EXTENSIONS_TEXT,
} from "@/lib/ui/upload";
import { useUpload } from "@/lib/ui/upload-hooks";
import { Dialog } from "../Dialog";
import { useToast } from "../Toast";
import { FileDrop, type ChosenFile } from "./FileDrop";

/** How much of a text file the preview shows. */
const PREVIEW_BYTES = 64 * 1024;

type Props = {
  open: boolean;
  onClose: () => void;
  defaultTenant: string;
  knownTenants: string[];
};

type FieldName = "tenant" | "key" | "title" | "contentType" | "content" | "acl";
type Form = Record<FieldName, string>;
type FieldErrors = Partial<Record<FieldName, string>>;

const CONTENT_TYPE_LABEL: Record<ContentType, string> = {
  "text/markdown": "Markdown (text/markdown)",
  "text/plain": "Plain text (text/plain)",
  "text/html": "HTML (text/html)",
};

const FIELD_NAMES: FieldName[] = ["tenant", "key", "title", "contentType", "content", "acl"];

function emptyForm(tenant: string): Form {
  return { tenant, key: "", title: "", contentType: "text/markdown", content: "", acl: "" };
}

/** "Release notes: Q3 2026" → "release-notes-q3-2026" */
function slugify(title: string): string {
  return title
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .replace(/-+$/, "")
    .slice(0, 128);
}

function validate(f: Form, withFile: boolean): FieldErrors {
  const errors: FieldErrors = {};
  if (!f.tenant.trim()) errors.tenant = "Enter a tenant.";
  else if (!TENANT_PATTERN.test(f.tenant.trim()))
    errors.tenant =
      "Use lowercase letters, digits, '.', '_' or '-', starting with a letter or digit (at most 64 characters).";
  if (!f.key.trim()) errors.key = "Enter a document key.";
  else if (!KEY_PATTERN.test(f.key.trim()))
    errors.key =
      "Use lowercase letters, digits, '.', '_' or '-', starting with a letter or digit (at most 128 characters).";
  if (!f.title.trim()) errors.title = "Enter a title.";
  if (withFile) return errors;
  if (!(CONTENT_TYPES as readonly string[]).includes(f.contentType)) errors.contentType = "Choose a content type.";
  if (!f.content.trim()) errors.content = "Enter the document's content.";
  return errors;
}

/** Maps backend field names ("title", "body.title", "content_type") onto the form's fields. */
function mapServerFieldErrors(raw: Record<string, string>): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(raw)) {
    // "acl.3" → acl; "body.content_type" → contentType
    const segments = path
      .split(".")
      .map((seg) => seg.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()).toLowerCase());
    const name = FIELD_NAMES.find((f) => segments.includes(f.toLowerCase()));
    if (name) out[name] ??= message;
  }
  return out;
}

export function PublishDialog({ open, onClose, defaultTenant, knownTenants }: Props) {
  // The mutation lives here, outside the dialog body, so its callbacks still run after the body unmounts.
  const publish = usePublish();
  const upload = useUpload();
  return (
    <Dialog
      open={open}
      onClose={onClose}
      busy={publish.isPending || upload.isPending}
      title="Publish document"
      description="Publishing creates a new version and queues it for indexing. Tenants are created on first publish."
      size="lg"
      testId="publish-dialog"
    >
      {/* Mounted only while open, so every opening starts from a fresh form. */}
      <PublishForm
        publish={publish}
        upload={upload}
        onClose={onClose}
        defaultTenant={defaultTenant}
        knownTenants={knownTenants}
      />
    </Dialog>
  );
}

type FormProps = Omit<Props, "open"> & { publish: ReturnType<typeof usePublish>; upload: ReturnType<typeof useUpload> };

/** What an unchanged publish did, and where search stands if an older version still serves. */
function unchangedNote(res: PublishResult): string {
  const note = "The content matches the latest version, so nothing new was indexed.";
  if (!res.searchVersionServed && res.searchVersion !== null) {
    const built = `${note} v${res.searchVersion} was built with another embedding model, so search does not find it`;
    // A pin is never moved by a build: unpinning is what queues and serves the rebuild.
    if (res.pinned) return `${built}, and a rollback pins it: unpin to rebuild and serve v${res.versionNumber}.`;
    return `${built}: ${res.state === "INDEXING" ? "a rebuild is under way" : "reindex to rebuild it"}.`;
  }
  if (res.state !== "SEARCHABLE" || res.searchVersion === null || res.searchVersion >= Number(res.versionNumber))
    return note;
  return `${note} Search still answers from v${res.searchVersion}${res.pinned ? ", pinned by a rollback: unpin to serve" : "; reindex to build"} v${res.versionNumber}.`;
}

function PublishForm({ publish, upload, onClose, defaultTenant, knownTenants }: FormProps) {
  const toast = useToast();
  const [form, setForm] = useState<Form>(() => emptyForm(defaultTenant));
  const [keyTouched, setKeyTouched] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<{ code?: string; message: string } | null>(null);
  const [chosen, setChosen] = useState<ChosenFile | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const formErrorRef = useRef<HTMLDivElement>(null);
  // With a file's preview open the error box sits below the fold of the dialog's scrolling body.
  useEffect(() => {
    if (formError) formErrorRef.current?.scrollIntoView({ block: "nearest" });
  }, [formError]);
  const id = useId();
  const fid = (n: FieldName) => `${id}-${n}`;

  function set<K extends FieldName>(name: K, value: string) {
    setForm((f) => {
      const next = { ...f, [name]: value };
      if (name === "title" && !keyTouched) next.key = slugify(value);
      return next;
    });
    if (errors[name]) setErrors((e) => ({ ...e, [name]: undefined }));
  }

  async function chooseFile(file: File) {
    setFormError(null);
    const contentType = contentTypeForFileName(file.name);
    if (!contentType) {
      setChosen(null);
      setFileError(`"${file.name}" is not a supported file type. Choose ${UPLOAD_EXTENSIONS_TEXT}.`);
      return;
    }
    setFileError(null);
    setForm((f) => ({
      ...f,
      title: f.title.trim() ? f.title : titleFromFileName(file.name),
      key: f.key.trim() ? f.key : keyFromFileName(file.name),
    }));
    setErrors((e) => ({ ...e, title: undefined, key: undefined, content: undefined, contentType: undefined }));
    const text = isTextContentType(contentType);
    setChosen({ file, contentType, preview: null, previewCut: false });
    if (text) {
      const preview = await file.slice(0, PREVIEW_BYTES).text();
      // A later choice (or "Remove file") wins over this one's slower read.
      setChosen((c) => (c?.file === file ? { ...c, preview, previewCut: file.size > PREVIEW_BYTES } : c));
    }
  }

  function focusFirstError(errs: FieldErrors) {
    const first = FIELD_NAMES.find((n) => errs[n]);
    if (first) document.getElementById(fid(first))?.focus();
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (publish.isPending || upload.isPending) return;
    const errs = validate(form, chosen !== null);
    setErrors(errs);
    setFormError(null);
    if (Object.keys(errs).length > 0) {
      focusFirstError(errs);
      return;
    }
    const input = {
      tenant: form.tenant.trim(),
      key: form.key.trim(),
      title: form.title.trim(),
      contentType: form.contentType as ContentType,
      content: form.content,
      acl: splitList(form.acl),
    };
    const callbacks = {
      onSuccess: (res: PublishResult) => {
        onClose();
        toast.push({
          tone: "success",
          title: res.unchanged
            ? `No change: ${input.key} is already v${res.versionNumber}`
            : `Published ${input.key} v${res.versionNumber}`,
          body: res.unchanged ? unchangedNote(res) : "Indexing has started; the state updates live.",
          link: { href: documentHref(input.tenant, input.key), label: "Open document" },
        });
      },
      onError: (err: unknown) => {
        setProgress(null);
        const fieldErrs = isApiError(err) ? mapServerFieldErrors(err.fieldErrors) : {};
        setErrors(fieldErrs);
        setFormError({ code: isApiError(err) ? err.code : undefined, message: errorText(err) });
        if (Object.keys(fieldErrs).length > 0) focusFirstError(fieldErrs);
      },
    };
    if (chosen) {
      setProgress({ sent: 0, total: chosen.file.size });
      const { tenant, key, title, acl } = input;
      upload.mutate(
        {
          tenant,
          key,
          title,
          acl,
          file: chosen.file,
          contentType: chosen.contentType,
          onProgress: (sent, total) => setProgress({ sent, total }),
        },
        callbacks,
      );
    } else {
      publish.mutate(input, callbacks);
    }
  }

  const busy = publish.isPending || upload.isPending;
  const describedBy = (n: FieldName, hint?: boolean) =>
    [errors[n] ? `${fid(n)}-error` : null, hint ? `${fid(n)}-hint` : null].filter(Boolean).join(" ") || undefined;
  const fieldError = (n: FieldName) =>
    errors[n] ? (
      <p id={`${fid(n)}-error`} className="field__error">
        {errors[n]}
      </p>
    ) : null;

  return (
    <form className="dialog__body" onSubmit={onSubmit} noValidate aria-busy={busy || undefined}>
      <div className="grid-2">
        <div className="field">
          <label htmlFor={fid("tenant")} className="field__label">
            Tenant
          </label>
          <input
            id={fid("tenant")}
            name="tenant"
            className="input mono"
            value={form.tenant}
            onChange={(e) => set("tenant", e.target.value)}
            list={`${id}-tenants`}
            autoComplete="off"
            spellCheck={false}
            required
            aria-invalid={errors.tenant ? true : undefined}
            aria-describedby={describedBy("tenant")}
          />
          <datalist id={`${id}-tenants`}>
            {knownTenants.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
          {fieldError("tenant")}
        </div>
        <div className="field">
          <label htmlFor={fid("key")} className="field__label">
            Key
          </label>
          <input
            id={fid("key")}
            name="key"
            className="input mono"
            value={form.key}
            onChange={(e) => {
              setKeyTouched(true);
              set("key", e.target.value);
            }}
            autoComplete="off"
            spellCheck={false}
            required
            placeholder="e.g. handbook.onboarding"
            aria-invalid={errors.key ? true : undefined}
            aria-describedby={describedBy("key", true)}
          />
          <p id={`${fid("key")}-hint`} className="field__hint">
            Lowercase letters, digits, <code>.</code> <code>_</code> <code>-</code>
          </p>
          {fieldError("key")}
        </div>
      </div>

      <div className="grid-2 grid-2--wide-first">
        <div className="field">
          <label htmlFor={fid("title")} className="field__label">
            Title
          </label>
          <input
            id={fid("title")}
            name="title"
            className="input"
            value={form.title}
            onChange={(e) => set("title", e.target.value)}
            autoComplete="off"
            required
            aria-invalid={errors.title ? true : undefined}
            aria-describedby={describedBy("title")}
          />
          {fieldError("title")}
        </div>
        <div className="field">
          <label htmlFor={fid("contentType")} className="field__label">
            Content type
          </label>
          {chosen ? (
            <input
              id={fid("contentType")}
              className="input mono"
              value={chosen.contentType}
              readOnly
              data-testid="file-content-type"
            />
          ) : (
            <select
              id={fid("contentType")}
              name="contentType"
              className="select"
              value={form.contentType}
              onChange={(e) => set("contentType", e.target.value)}
              aria-invalid={errors.contentType ? true : undefined}
              aria-describedby={describedBy("contentType")}
            >
              {CONTENT_TYPES.map((t) => (
                <option key={t} value={t}>
                  {CONTENT_TYPE_LABEL[t]}
                </option>
              ))}
            </select>
          )}
          {fieldError("contentType")}
        </div>
      </div>

      <FileDrop
        chosen={chosen}
        onChoose={(file) => void chooseFile(file)}
        onRemove={() => {
          setChosen(null);
          setFileError(null);
        }}
        error={fileError}
        disabled={busy}
        progress={busy ? progress : null}
      />

      {chosen ? null : (
        <div className="field">
          <label htmlFor={fid("content")} className="field__label">
            Content
          </label>
          <textarea
            id={fid("content")}
            name="content"
            className="textarea mono"
            rows={10}
            value={form.content}
            onChange={(e) => set("content", e.target.value)}
            required
            spellCheck={false}
            aria-invalid={errors.content ? true : undefined}
            aria-describedby={describedBy("content")}
          />
          {fieldError("content")}
        </div>
      )}

      <div className="field">
        <label htmlFor={fid("acl")} className="field__label">
          ACL <span className="field__optional">(optional)</span>
        </label>
        <input
          id={fid("acl")}
          name="acl"
          className="input mono"
          value={form.acl}
          onChange={(e) => set("acl", e.target.value)}
          autoComplete="off"
          spellCheck={false}
          placeholder="group:engineering, user:ada@example.com"
          aria-invalid={errors.acl ? true : undefined}
          aria-describedby={describedBy("acl", true)}
        />
        <p id={`${fid("acl")}-hint`} className="field__hint">
          Comma-separated principals allowed to find this document in search. Left empty, a new document is open to the
          whole tenant and an existing one keeps its ACL.
        </p>
        {fieldError("acl")}
      </div>

      {formError ? (
        <div ref={formErrorRef} className="form-error" role="alert" data-testid="publish-error">
          {formError.code ? <code className="code-chip code-chip--danger">{formError.code}</code> : null}{" "}
          {formError.message}
        </div>
      ) : null}

      <footer className="dialog__footer">
        <button type="button" className="btn btn--secondary" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button
          type="submit"
          className="btn btn--primary"
          disabled={busy}
          aria-busy={busy || undefined}
          data-testid="publish-submit"
        >
          {busy ? "Publishing…" : "Publish"}
        </button>
      </footer>
    </form>
  );
}
