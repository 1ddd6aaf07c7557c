"use client";

import Link from "next/link";
import { useId, useState, type ReactNode } from "react";
import { isApiError } from "@/lib/ui/api";
import { formatDateTime } from "@/lib/ui/format";
import {
  spaceErrorField,
  useCreateSpace,
  useRetireSpace,
  useSpaces,
  useUpdateSpace,
  type NewSpaceInput,
  type SpaceField,
  type SpacePatch,
  type SpaceView,
} from "@/lib/ui/spaces";
import { ActionForm, ReasonField, useDialogClose, useReason } from "../ActionForm";
import { Dialog } from "../Dialog";
import { QueryStates } from "../ListFrame";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, StaleDataBanner, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { useToast } from "../Toast";
import { icons } from "../shell/icons";
import "../migrations/migrations.css";

const n = (v: number) => v.toLocaleString("en");

type Props = {
  /** All-tenant admins register, change and retire spaces; operators and tenant-limited admins read them. */
  canManage: boolean;
  /** Why the write controls are missing, when they are (shown under the lead). */
  readOnlyReason: string | null;
};

/** Every index space: what it embeds with, who searches it, its migrations and its index; admins manage them. */
export function SpacesView({ canManage, readOnlyReason }: Props) {
  const spaces = useSpaces();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<SpaceView | null>(null);
  const [retiring, setRetiring] = useState<SpaceView | null>(null);
  const items = spaces.data ?? [];

  return (
    <div className="page" data-testid="spaces-page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Index spaces</h1>
          <p className="page__lead">
            What tenants&rsquo; vectors are embedded with. Each tenant searches one; a migration (from{" "}
            <Link href="/tenants">Tenants</Link>) moves it to another.
          </p>
          {readOnlyReason ? <p className="field__hint">{readOnlyReason}</p> : null}
        </div>
        {canManage ? (
          <button
            type="button"
            className="btn btn--primary"
            onClick={() => setCreating(true)}
            data-testid="space-create-open"
          >
            {icons.plus}
            <span>Register space…</span>
          </button>
        ) : null}
      </div>

      <StaleDataBanner query={spaces} />

      <section className="card" aria-label="Index spaces">
        <QueryStates
          query={spaces}
          skeleton={<TableSkeleton rows={3} columns={7} label="Loading index spaces" />}
          errorTitle="Could not load the index spaces"
          empty={items.length === 0}
          emptyState={
            <EmptyState icon={icons.spacesLarge} title="No index space yet">
              <p>
                The worker registers the environment&rsquo;s embedding settings as the default space when it starts.
              </p>
            </EmptyState>
          }
        >
          <div className="table-wrap">
            <table className="table table--spaces" data-testid="spaces-table">
              <caption className="visually-hidden">Index spaces, live first</caption>
              <TableHead
                columns={[
                  "Space",
                  "Embeds with",
                  "Rate · price",
                  "In use",
                  "HNSW index",
                  ...(canManage ? [{ label: <span className="visually-hidden">Actions</span> }] : []),
                ]}
              />
              <tbody>
                {items.map((s) => (
                  <SpaceRow
                    key={s.id}
                    space={s}
                    canManage={canManage}
                    onEdit={() => setEditing(s)}
                    onRetire={() => setRetiring(s)}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </QueryStates>
      </section>

      {canManage ? (
        <>
          <CreateSpaceDialog open={creating} onClose={() => setCreating(false)} />
          <EditSpaceDialog space={editing} onClose={() => setEditing(null)} />
          <RetireSpaceDialog space={retiring} onClose={() => setRetiring(null)} />
        </>
      ) : null}
    </div>
  );
}

function SpaceRow({
  space: s,
  canManage,
  onEdit,
  onRetire,
}: {
  space: SpaceView;
  canManage: boolean;
  onEdit: () => void;
  onRetire: () => void;
}) {
  const retired = s.retiredAt !== null;
  return (
    <tr data-testid="space-row" data-space={s.name} data-retired={retired ? "true" : "false"}>
      <td>
        <span className="stack-xs">
          <span>
            <span className="mono space-name">{s.name}</span>
            {s.isDefault ? (
              <span
                className="pill pill--info pill--tag"
                title="New tenants start on this space"
                data-testid="space-default"
              >
                default
              </span>
            ) : null}
            {retired ? (
              <span className="pill pill--muted pill--tag" title={`Retired ${formatDateTime(s.retiredAt)}`}>
                retired
              </span>
            ) : null}
          </span>
          <span className="migration-sub">
            by <span className="mono">{s.createdBy}</span> · <RelativeTime iso={s.createdAt} />
          </span>
        </span>
      </td>
      <td className="space-embeds">
        <span className="stack-xs">
          <span className="mono">{s.model}</span>
          <span className="migration-sub">
            {s.provider === "local" ? "local" : "OpenAI-compatible"} · {s.dimensions} dimensions · chunker{" "}
            <span className="mono">
              {s.chunker.version}
              {s.chunker.targetChars ? ` (${n(s.chunker.targetChars)} chars)` : ""}
            </span>
            {s.baseUrl ? ` · ${s.baseUrl}` : ""}
            {s.apiKeyEnv ? ` · key in ${s.apiKeyEnv}` : ""}
          </span>
        </span>
      </td>
      <td className="nowrap">
        <span className="stack-xs">
          <span>{s.textsPerMinute ? `${n(s.textsPerMinute)} texts/min` : "unlimited"}</span>
          <span className="migration-sub">
            {s.pricePerMillionTokens !== null ? `$${s.pricePerMillionTokens} / M tokens` : "no price"}
          </span>
        </span>
      </td>
      <td className="nowrap">
        <span className="stack-xs">
          <span>
            <span className="mono" data-testid="space-tenants">
              {s.tenantsActive}
            </span>{" "}
            tenant{s.tenantsActive === 1 ? "" : "s"} searching
          </span>
          <span className="migration-sub">
            <span className="mono" data-testid="space-migrations">
              {s.openMigrations}
            </span>{" "}
            open migration{s.openMigrations === 1 ? "" : "s"}
          </span>
        </span>
      </td>
      <td data-testid="space-index">
        {s.indexBuilt ? (
          <span className="pill pill--ok">built</span>
        ) : (
          <span
            className="pill pill--muted"
            title="Built once, when a migration to this space first has every document in (or when a tenant searches it)"
          >
            not built
          </span>
        )}
      </td>
      {canManage ? (
        <td className="col-right">
          <span className="space-actions">
            <button
              type="button"
              className="btn btn--secondary btn--sm"
              onClick={onEdit}
              disabled={retired}
              data-testid="space-edit"
            >
              Edit…<span className="visually-hidden"> {s.name}</span>
            </button>
            <button
              type="button"
              className="btn btn--danger-outline btn--sm"
              onClick={onRetire}
              disabled={retired}
              data-testid="space-retire"
            >
              Retire…<span className="visually-hidden"> {s.name}</span>
            </button>
          </span>
        </td>
      ) : null}
    </tr>
  );
}

// ---------- fields ----------

type FieldProps = {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string | null;
  hint?: ReactNode;
  optional?: boolean;
  inputMode?: "numeric" | "decimal" | "url" | "text";
  placeholder?: string;
  testId?: string;
  mono?: boolean;
};

function Field({
  id,
  label,
  value,
  onChange,
  error,
  hint,
  optional,
  inputMode = "text",
  placeholder,
  testId,
  mono,
}: FieldProps) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label} {optional ? <span className="field__optional">(optional)</span> : null}
      </label>
      <input
        id={id}
        className={`input${mono ? " mono" : ""}`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        inputMode={inputMode === "url" || inputMode === "text" ? undefined : inputMode}
        type={inputMode === "url" ? "url" : "text"}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
        required={!optional}
        aria-required={!optional || undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        data-testid={testId}
      />
      {hint ? (
        <p id={`${id}-hint`} className="field__hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field__error" data-testid={testId ? `${testId}-error` : undefined}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** "" → undefined; a number, or NaN for text that is not one (the form says so before sending). */
function numberOf(text: string): number | undefined {
  const t = text.trim();
  return t === "" ? undefined : Number(t);
}

// ---------- create ----------

function CreateSpaceDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const create = useCreateSpace();
  const close = useDialogClose(create, onClose, { refreshAfterError: false });
  return (
    <Dialog
      open={open}
      onClose={close}
      busy={create.isPending}
      title="Register an index space"
      size="lg"
      testId="space-create-dialog"
    >
      <CreateSpaceForm mutation={create} onClose={close} />
    </Dialog>
  );
}

function CreateSpaceForm({ mutation, onClose }: { mutation: ReturnType<typeof useCreateSpace>; onClose: () => void }) {
  const toast = useToast();
  const base = useId();
  const id = (k: string) => `${base}-${k}`;
  const [name, setName] = useState("");
  const [provider, setProvider] = useState<"local" | "openai">("openai");
  const [model, setModel] = useState("");
  const [dimensions, setDimensions] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [apiKeyEnv, setApiKeyEnv] = useState("");
  const [targetChars, setTargetChars] = useState("");
  const [rate, setRate] = useState("");
  const [price, setPrice] = useState("");
  const [problems, setProblems] = useState<Partial<Record<SpaceField, string>>>({});

  const server = spaceErrorField(mutation.error);
  const errorOf = (f: SpaceField) => problems[f] ?? (server?.field === f ? server.message : null);
  const openai = provider === "openai";

  function check(): NewSpaceInput | null {
    const p: Partial<Record<SpaceField, string>> = {};
    const dims = numberOf(dimensions);
    if (!name.trim()) p.name = "Give the space a name, e.g. openai-3-large-1024.";
    if (openai && !model.trim()) p.model = "Name the model the provider serves, e.g. text-embedding-3-large.";
    if (dims === undefined || !Number.isInteger(dims) || dims < 1) p.dimensions = "Enter the number of dimensions.";
    const tc = numberOf(targetChars);
    if (tc !== undefined && !Number.isInteger(tc)) p.targetChars = "Enter a whole number of characters.";
    const tpm = numberOf(rate);
    if (tpm !== undefined && !Number.isInteger(tpm)) p.textsPerMinute = "Enter a whole number of texts.";
    const ppm = numberOf(price);
    if (ppm !== undefined && !Number.isFinite(ppm)) p.pricePerMillionTokens = "Enter a price in dollars, e.g. 0.13.";
    setProblems(p);
    const first = Object.keys(p)[0];
    if (first) {
      document.getElementById(id(first))?.focus();
      return null;
    }
    return {
      name: name.trim(),
      provider,
      dimensions: dims!,
      ...(openai ? { model: model.trim() } : {}),
      ...(openai && baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
      ...(openai && apiKeyEnv.trim() ? { apiKeyEnv: apiKeyEnv.trim() } : {}),
      ...(tc !== undefined ? { chunker: { targetChars: tc } } : {}),
      ...(tpm !== undefined ? { textsPerMinute: tpm } : {}),
      ...(ppm !== undefined ? { pricePerMillionTokens: ppm } : {}),
    };
  }

  const edit = (f: SpaceField, set: (v: string) => void) => (v: string) => {
    set(v);
    if (problems[f]) setProblems({ ...problems, [f]: undefined });
  };

  return (
    <ActionForm
      effect={
        <>
          <p>
            Before anything is stored, the server makes <strong>one probe call</strong>: it embeds one short text with
            the space&rsquo;s provider to check the key, the address and the dimensions. If that fails, nothing is
            registered and the reason is shown at the field it concerns.
          </p>
          <p>Registering moves no tenant: start a migration on a tenant&rsquo;s page for that.</p>
        </>
      }
      onSubmit={() => {
        const body = check();
        if (!body) return;
        mutation.mutate(body, {
          onSuccess: (s) => {
            onClose();
            toast.push({
              tone: "success",
              title: `Index space ${s.name} registered`,
              body: `${s.model}, ${s.dimensions} dimensions. Start a migration on a tenant's page to build into it.`,
              link: { href: "/tenants", label: "Tenants" },
            });
          },
        });
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Probe and register"
      busyLabel="Probing the provider…"
      confirmTestId="space-create-submit"
    >
      <div className="space-form-grid">
        <Field
          id={id("name")}
          label="Name"
          value={name}
          onChange={edit("name", setName)}
          error={errorOf("name")}
          hint="1–64 of a–z, 0–9, “.”, “_”, “-”. Migrations and the CLI name the space by it."
          mono
          testId="space-name"
        />
        <div className="field">
          <label htmlFor={id("provider")} className="field__label">
            Provider
          </label>
          <select
            id={id("provider")}
            className="select"
            value={provider}
            onChange={(e) => setProvider(e.target.value as "local" | "openai")}
            aria-describedby={`${id("provider")}-hint`}
            data-testid="space-provider"
          >
            <option value="openai">OpenAI-compatible server</option>
            <option value="local">Local (built-in, offline)</option>
          </select>
          <p id={`${id("provider")}-hint`} className="field__hint">
            {openai
              ? "OpenAI or any server speaking its embeddings API."
              : "The built-in deterministic embedder: no key, no network; one model."}
          </p>
        </div>
        {openai ? (
          <Field
            id={id("model")}
            label="Model"
            value={model}
            onChange={edit("model", setModel)}
            error={errorOf("model")}
            placeholder="text-embedding-3-large"
            mono
            testId="space-model"
          />
        ) : null}
        <Field
          id={id("dimensions")}
          label="Dimensions"
          value={dimensions}
          onChange={edit("dimensions", setDimensions)}
          error={errorOf("dimensions")}
          inputMode="numeric"
          hint="What the provider answers for this model (the probe checks it)."
          testId="space-dimensions"
        />
        {openai ? (
          <>
            <Field
              id={id("baseUrl")}
              label="Base URL"
              value={baseUrl}
              onChange={edit("baseUrl", setBaseUrl)}
              error={errorOf("baseUrl")}
              optional
              inputMode="url"
              placeholder="https://api.openai.com/v1"
              hint="Empty: OpenAI's API."
              testId="space-base-url"
            />
            <Field
              id={id("apiKeyEnv")}
              label="Key variable"
              value={apiKeyEnv}
              onChange={edit("apiKeyEnv", setApiKeyEnv)}
              error={errorOf("apiKeyEnv")}
              optional
              placeholder="OPENAI_API_KEY"
              mono
              hint="The NAME of the environment variable that holds the key (never the key), set on the web server and every worker. Empty: OPENAI_API_KEY."
              testId="space-api-key-env"
            />
          </>
        ) : null}
        <Field
          id={id("targetChars")}
          label="Chunk size (characters)"
          value={targetChars}
          onChange={edit("targetChars", setTargetChars)}
          error={errorOf("targetChars")}
          optional
          inputMode="numeric"
          hint="200–20,000. Empty: the chunker's default."
          testId="space-target-chars"
        />
        <Field
          id={id("textsPerMinute")}
          label="Migration rate (texts per minute)"
          value={rate}
          onChange={edit("textsPerMinute", setRate)}
          error={errorOf("textsPerMinute")}
          optional
          inputMode="numeric"
          hint="Fleet-wide cap on what migrations embed into this space. Empty: no cap."
          testId="space-rate"
        />
        <Field
          id={id("pricePerMillionTokens")}
          label="Price per million tokens (USD)"
          value={price}
          onChange={edit("pricePerMillionTokens", setPrice)}
          error={errorOf("pricePerMillionTokens")}
          optional
          inputMode="decimal"
          hint="For a migration's cost estimate. Empty: no estimate."
          testId="space-price"
        />
      </div>
    </ActionForm>
  );
}

// ---------- edit ----------

function EditSpaceDialog({ space, onClose }: { space: SpaceView | null; onClose: () => void }) {
  const update = useUpdateSpace();
  const close = useDialogClose(update, onClose, { refreshAfterError: false });
  return (
    <Dialog
      open={space !== null}
      onClose={close}
      busy={update.isPending}
      title={space ? `Edit ${space.name}` : ""}
      testId="space-edit-dialog"
    >
      {space ? <EditSpaceForm space={space} mutation={update} onClose={close} /> : null}
    </Dialog>
  );
}

function EditSpaceForm({
  space: s,
  mutation,
  onClose,
}: {
  space: SpaceView;
  mutation: ReturnType<typeof useUpdateSpace>;
  onClose: () => void;
}) {
  const toast = useToast();
  const base = useId();
  const id = (k: string) => `${base}-${k}`;
  const [rate, setRate] = useState(s.textsPerMinute?.toString() ?? "");
  const [price, setPrice] = useState(s.pricePerMillionTokens?.toString() ?? "");
  const [baseUrl, setBaseUrl] = useState(s.baseUrl ?? "");
  const [apiKeyEnv, setApiKeyEnv] = useState(s.apiKeyEnv ?? "");
  const [problems, setProblems] = useState<Partial<Record<SpaceField, string>>>({});
  const server = spaceErrorField(mutation.error);
  const errorOf = (f: SpaceField) => problems[f] ?? (server?.field === f ? server.message : null);
  const openai = s.provider === "openai";

  function patchOf(): SpacePatch | null {
    const p: Partial<Record<SpaceField, string>> = {};
    const tpm = numberOf(rate);
    const ppm = numberOf(price);
    if (tpm !== undefined && !Number.isInteger(tpm))
      p.textsPerMinute = "Enter a whole number of texts, or leave it empty.";
    if (ppm !== undefined && !Number.isFinite(ppm))
      p.pricePerMillionTokens = "Enter a price in dollars, or leave it empty.";
    setProblems(p);
    if (Object.keys(p).length > 0) return null;
    const patch: SpacePatch = {};
    if ((tpm ?? null) !== s.textsPerMinute) patch.textsPerMinute = tpm ?? null;
    if ((ppm ?? null) !== s.pricePerMillionTokens) patch.pricePerMillionTokens = ppm ?? null;
    if (openai && (baseUrl.trim() || null) !== s.baseUrl) patch.baseUrl = baseUrl.trim() || null;
    if (openai && (apiKeyEnv.trim() || null) !== s.apiKeyEnv) patch.apiKeyEnv = apiKeyEnv.trim() || null;
    return patch;
  }

  return (
    <ActionForm
      effect={
        <>
          <p>
            Workers read the change within about 10 seconds: the rate from their next batch, the address and key
            variable from their next call. The price changes the cost estimate of migrations into{" "}
            <strong className="mono">{s.name}</strong>.
          </p>
          <p>
            What it embeds with ({s.provider} <span className="mono">{s.model}</span>, {s.dimensions} dimensions,
            chunker <span className="mono">{s.chunker.version}</span>) never changes: register another space and
            migrate.
          </p>
        </>
      }
      onSubmit={() => {
        const patch = patchOf();
        if (!patch) return;
        if (Object.keys(patch).length === 0) {
          onClose();
          return;
        }
        mutation.mutate(
          { name: s.name, patch },
          {
            onSuccess: () => {
              onClose();
              toast.push({ tone: "success", title: `${s.name} updated` });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Save"
      busyLabel="Saving…"
      confirmTestId="space-edit-submit"
    >
      <Field
        id={id("textsPerMinute")}
        label="Migration rate (texts per minute)"
        value={rate}
        onChange={setRate}
        error={errorOf("textsPerMinute")}
        optional
        inputMode="numeric"
        hint="Empty: no cap."
        testId="space-edit-rate"
      />
      <Field
        id={id("pricePerMillionTokens")}
        label="Price per million tokens (USD)"
        value={price}
        onChange={setPrice}
        error={errorOf("pricePerMillionTokens")}
        optional
        inputMode="decimal"
        hint="Empty: no cost estimate."
        testId="space-edit-price"
      />
      {openai ? (
        <>
          <Field
            id={id("baseUrl")}
            label="Base URL"
            value={baseUrl}
            onChange={setBaseUrl}
            error={errorOf("baseUrl")}
            optional
            inputMode="url"
            hint="Empty: OpenAI's API. Not probed: a wrong address fails the next builds (retried)."
          />
          <Field
            id={id("apiKeyEnv")}
            label="Key variable"
            value={apiKeyEnv}
            onChange={setApiKeyEnv}
            error={errorOf("apiKeyEnv")}
            optional
            mono
            hint="The NAME of the environment variable that holds the key."
          />
        </>
      ) : null}
    </ActionForm>
  );
}

// ---------- retire ----------

function RetireSpaceDialog({ space, onClose }: { space: SpaceView | null; onClose: () => void }) {
  const retire = useRetireSpace();
  const close = useDialogClose(retire, onClose, { refreshAfterError: false });
  return (
    <Dialog
      open={space !== null}
      onClose={close}
      busy={retire.isPending}
      title={space ? `Retire ${space.name}` : ""}
      testId="space-retire-dialog"
    >
      {space ? <RetireForm space={space} mutation={retire} onClose={close} /> : null}
    </Dialog>
  );
}

function RetireForm({
  space: s,
  mutation,
  onClose,
}: {
  space: SpaceView;
  mutation: ReturnType<typeof useRetireSpace>;
  onClose: () => void;
}) {
  const toast = useToast();
  const { reason, check, field } = useReason(`${useId()}-reason`, false);
  const inUse = s.isDefault || s.tenantsActive > 0 || s.openMigrations > 0;
  const inUseByServer = isApiError(mutation.error) && mutation.error.code === "SPACE_IN_USE";
  return (
    <ActionForm
      effect={
        <>
          <p>
            Nothing new is built in <strong className="mono">{s.name}</strong> and migrations no longer offer it. Its
            stored index versions age out under retention. A retired space stays listed, and cannot be brought back:
            register a new one instead.
          </p>
          {inUse ? (
            <p className="effect__warn" data-testid="space-in-use">
              {s.isDefault
                ? "It is the default space new tenants start on (the environment's embedding settings): the server refuses to retire it."
                : `${s.tenantsActive} tenant(s) search it and ${s.openMigrations} open migration(s) use it: the server refuses until they are migrated away (SPACE_IN_USE).`}
            </p>
          ) : null}
        </>
      }
      onSubmit={() => {
        if (!check()) return;
        mutation.mutate(
          { name: s.name, reason },
          {
            onSuccess: () => {
              onClose();
              toast.push({ tone: "info", title: `${s.name} retired` });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Retire space"
      busyLabel="Retiring…"
      tone="danger"
      confirmTestId="space-retire-confirm"
    >
      {inUseByServer ? (
        <p className="field__hint">
          Move the tenants away first: start a migration on each tenant&rsquo;s page (
          <Link href="/tenants">Tenants</Link>
          ).
        </p>
      ) : null}
      <ReasonField {...field} />
    </ActionForm>
  );
}
