"use client";

import { useId, useState } from "react";
import { WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/constants";
import {
  useCreateEndpoint,
  useDeleteEndpoint,
  useDeliveries,
  useEndpoints,
  useRedeliver,
  useRotateSecret,
  useUpdateEndpoint,
  type Delivery,
  type Endpoint,
} from "@/lib/webhooks/client";
import { errorText } from "@/lib/ui/api";
import { ActionForm } from "../ActionForm";
import { Dialog } from "../Dialog";
import { QueryStates } from "../ListFrame";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { useToast } from "../Toast";
import { icons } from "../shell/icons";
import "./webhooks.css";

const EVENT_HINT: Record<string, string> = {
  "document.searchable": "a document's newest version is served by search",
  "document.failed": "indexing a document's newest version gave up",
  "document.deleted": "a document was deleted (hidden from search)",
  "task.dead": "any task ran out of attempts",
};

const STATUS_TONE: Record<string, string> = {
  DELIVERED: "ok",
  DEAD: "danger",
  RETRY_WAIT: "warn",
  SENDING: "info",
  PENDING: "muted",
};

/** Webhook endpoints of the admin's tenants, each with its delivery log and a Redeliver action. */
export function WebhooksView({ tenants }: { tenants: string[] | null }) {
  const endpoints = useEndpoints();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ url: string; secret: string; rotated: boolean } | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const items = endpoints.data ?? [];
  const current = items.find((e) => e.id === selected) ?? null;

  return (
    <div className="page" data-testid="webhooks-page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Webhooks</h1>
          <p className="page__lead">
            Indexwright posts an event to these URLs when a document becomes searchable, fails or is deleted, and when a
            task dies. Deliveries are signed (Standard Webhooks) and retried with backoff.
          </p>
        </div>
        <button
          type="button"
          className="btn btn--primary btn--sm"
          onClick={() => setCreating(true)}
          data-testid="webhook-create-open"
        >
          {icons.plus}
          <span>Add endpoint</span>
        </button>
      </div>

      {secret ? <SecretPanel {...secret} onDone={() => setSecret(null)} /> : null}

      <section className="card" aria-label="Endpoints">
        <QueryStates
          query={endpoints}
          skeleton={<TableSkeleton rows={3} columns={6} label="Loading webhook endpoints" />}
          errorTitle="Could not load webhook endpoints"
          empty={items.length === 0}
          emptyState={
            <EmptyState title="No webhook endpoints yet">
              <p>Add one to hear about documents and tasks without polling.</p>
            </EmptyState>
          }
        >
          <div className="table-wrap">
            <table className="table table--webhooks" data-testid="webhook-endpoints">
              <caption className="visually-hidden">Webhook endpoints</caption>
              <TableHead
                columns={[
                  "Endpoint",
                  "Events",
                  "Deliveries",
                  "Status",
                  { label: <span className="visually-hidden">Actions</span> },
                ]}
              />
              <tbody>
                {items.map((e) => (
                  <EndpointRow
                    key={e.id}
                    endpoint={e}
                    selected={e.id === selected}
                    onSelect={() => setSelected(e.id)}
                    onSecret={(s) => setSecret({ url: e.url, secret: s, rotated: true })}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </QueryStates>
      </section>

      {current ? <DeliveryLog endpoint={current} /> : null}

      <CreateDialog
        open={creating}
        tenants={tenants}
        onClose={() => setCreating(false)}
        onCreated={(e) => {
          setCreating(false);
          setSelected(e.id);
          setSecret({ url: e.url, secret: e.secret, rotated: false });
        }}
      />
    </div>
  );
}

function SecretPanel({
  url,
  secret,
  rotated,
  onDone,
}: {
  url: string;
  secret: string;
  rotated: boolean;
  onDone: () => void;
}) {
  return (
    <div className="card webhook-secret" role="status" data-testid="webhook-secret-panel">
      <p>
        <strong>{rotated ? "New signing secret" : "Signing secret"}</strong> for <span className="mono">{url}</span>.
        Copy it now: it is not shown again.
        {rotated ? " The previous secret keeps signing beside it for 24 hours." : ""}
      </p>
      <code className="mono webhook-secret__value" data-testid="webhook-secret">
        {secret}
      </code>
      <div className="webhook-actions webhook-actions--start">
        <button
          type="button"
          className="btn btn--secondary btn--sm"
          onClick={() => void navigator.clipboard?.writeText(secret)}
        >
          Copy
        </button>
        <button type="button" className="btn btn--sm btn--primary" onClick={onDone} data-testid="webhook-secret-done">
          I have stored it
        </button>
      </div>
    </div>
  );
}

function EndpointRow({
  endpoint: e,
  selected,
  onSelect,
  onSecret,
}: {
  endpoint: Endpoint;
  selected: boolean;
  onSelect: () => void;
  onSecret: (s: string) => void;
}) {
  const update = useUpdateEndpoint();
  const rotate = useRotateSecret();
  const remove = useDeleteEndpoint();
  const toast = useToast();
  const fail = (what: string) => (err: unknown) =>
    toast.push({ title: `Could not ${what}`, body: errorText(err), tone: "error" });
  const d = e.deliveries;
  return (
    <tr
      data-testid="webhook-endpoint-row"
      data-endpoint-id={e.id}
      aria-selected={selected}
      className={selected ? "row--selected" : undefined}
    >
      <td className="webhook-endpoint-cell">
        <span className="stack-xs">
          <span className="mono webhook-url" title={e.url}>
            {e.url}
          </span>
          <span className="cell-sub">
            tenant <span className="mono">{e.tenant}</span>
            {e.description ? ` · ${e.description}` : ""}
          </span>
        </span>
      </td>
      <td>
        <span className="chips">
          {e.eventTypes.map((t) => (
            <span key={t} className="chip mono" title={EVENT_HINT[t]}>
              {t}
            </span>
          ))}
        </span>
      </td>
      <td data-testid="webhook-endpoint-counts">
        <span className="webhook-counts">
          <span>{d.delivered} delivered</span>
          <span className={d.pending ? undefined : "muted"}>{d.pending} pending</span>
          <span className={d.failing ? "webhook-count--warn" : "muted"}>{d.failing} retrying</span>
          <span className={d.dead ? "webhook-count--bad" : "muted"}>{d.dead} dead</span>
        </span>
      </td>
      <td>
        <span className={`pill pill--status ${e.enabled ? "pill--ok" : "pill--muted"}`}>
          {e.enabled ? "enabled" : "disabled"}
        </span>
      </td>
      <td className="col-right">
        <span className="webhook-actions">
          <button
            type="button"
            className="btn btn--secondary btn--sm"
            onClick={onSelect}
            data-testid="webhook-show-log"
            aria-pressed={selected}
          >
            Delivery log
          </button>
          <button
            type="button"
            className="btn btn--secondary btn--sm"
            disabled={update.isPending}
            onClick={() =>
              update.mutate({ id: e.id, patch: { enabled: !e.enabled } }, { onError: fail("change the endpoint") })
            }
          >
            {e.enabled ? "Disable" : "Enable"}
          </button>
          <button
            type="button"
            className="btn btn--secondary btn--sm"
            disabled={rotate.isPending}
            onClick={() =>
              rotate.mutate(e.id, { onSuccess: (r) => onSecret(r.secret), onError: fail("rotate the secret") })
            }
          >
            Rotate secret
          </button>
          <button
            type="button"
            className="btn btn--danger-outline btn--sm"
            disabled={remove.isPending}
            onClick={() => {
              if (window.confirm(`Remove ${e.url} and its delivery log?`))
                remove.mutate(e.id, { onError: fail("remove the endpoint") });
            }}
          >
            Remove
          </button>
        </span>
      </td>
    </tr>
  );
}

function DeliveryLog({ endpoint }: { endpoint: Endpoint }) {
  const log = useDeliveries(endpoint.id);
  const redeliver = useRedeliver();
  const toast = useToast();
  const items = log.data?.items ?? [];
  return (
    <section className="card" aria-label={`Delivery log of ${endpoint.url}`} data-testid="webhook-delivery-log">
      <div className="card__header">
        <div>
          <h2 className="section-title">Delivery log</h2>
          <p className="card__lead mono">{endpoint.url}</p>
        </div>
      </div>
      <QueryStates
        query={log}
        skeleton={<TableSkeleton rows={3} columns={8} label="Loading deliveries" />}
        errorTitle="Could not load the delivery log"
        empty={items.length === 0}
        emptyState={
          <EmptyState title="Nothing sent yet">
            <p>Deliveries appear here as events happen in tenant {endpoint.tenant}.</p>
          </EmptyState>
        }
      >
        <div className="table-wrap">
          <table className="table" data-testid="webhook-deliveries">
            <caption className="visually-hidden">Deliveries, newest first</caption>
            <TableHead
              columns={[
                "Event",
                "Status",
                "Attempts",
                "Response",
                "Latency",
                "Last attempt",
                "Next attempt",
                { label: <span className="visually-hidden">Actions</span> },
              ]}
            />
            <tbody>
              {items.map((d) => (
                <DeliveryRow
                  key={d.id}
                  delivery={d}
                  busy={redeliver.isPending}
                  onRedeliver={() =>
                    redeliver.mutate(
                      { endpointId: endpoint.id, deliveryId: d.id },
                      {
                        onSuccess: () =>
                          toast.push({
                            title: "Redelivery queued",
                            body: `${d.eventType} ${d.messageId} goes out again now.`,
                            tone: "success",
                          }),
                        onError: (err) =>
                          toast.push({ title: "Could not redeliver", body: errorText(err), tone: "error" }),
                      },
                    )
                  }
                />
              ))}
            </tbody>
          </table>
        </div>
      </QueryStates>
    </section>
  );
}

function DeliveryRow({
  delivery: d,
  busy,
  onRedeliver,
}: {
  delivery: Delivery;
  busy: boolean;
  onRedeliver: () => void;
}) {
  const data = d.payload.data as { key?: string; version?: number; taskId?: string };
  const subject = data.key
    ? `${data.key}${data.version !== undefined ? ` v${data.version}` : ""}`
    : data.taskId
      ? `task ${data.taskId}`
      : "";
  return (
    <tr data-testid="webhook-delivery-row" data-delivery-id={d.id} data-status={d.status}>
      <td>
        <span className="stack-xs">
          <span className="mono">{d.eventType}</span>
          <span className="cell-sub mono" title={d.messageId}>
            {subject}
          </span>
        </span>
      </td>
      <td>
        <span
          className={`pill pill--status pill--${STATUS_TONE[d.status] ?? "muted"}`}
          data-testid="webhook-delivery-status"
          title={d.error ?? undefined}
        >
          {d.status.toLowerCase().replace("_", " ")}
        </span>
        {d.error ? <span className="cell-sub webhook-error">{d.error}</span> : null}
      </td>
      <td data-testid="webhook-delivery-attempts">{d.attempts}</td>
      <td className="mono" data-testid="webhook-delivery-response">
        {d.responseStatus ?? "—"}
      </td>
      <td className="nowrap">{d.latencyMs === null ? "—" : `${d.latencyMs} ms`}</td>
      <td className="nowrap">
        {d.lastAttemptAt ? <RelativeTime iso={d.lastAttemptAt} /> : <span className="muted">—</span>}
      </td>
      <td className="nowrap">
        {d.nextAttemptAt ? <RelativeTime iso={d.nextAttemptAt} /> : <span className="muted">—</span>}
      </td>
      <td className="col-right">
        <button
          type="button"
          className="btn btn--secondary btn--sm"
          disabled={busy || d.status === "SENDING"}
          onClick={onRedeliver}
          data-testid="webhook-redeliver"
        >
          Redeliver<span className="visually-hidden"> {d.eventType}</span>
        </button>
      </td>
    </tr>
  );
}

function CreateDialog({
  open,
  tenants,
  onClose,
  onCreated,
}: {
  open: boolean;
  tenants: string[] | null;
  onClose: () => void;
  onCreated: (e: Endpoint & { secret: string }) => void;
}) {
  const create = useCreateEndpoint();
  const ids = { tenant: useId(), url: useId(), description: useId() };
  const [tenant, setTenant] = useState(tenants?.[0] ?? "");
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [types, setTypes] = useState<string[]>([...WEBHOOK_EVENT_TYPES]);

  const submit = () =>
    create.mutate(
      { tenant: tenant.trim(), url: url.trim(), eventTypes: types as never, description },
      {
        onSuccess: (e) => {
          setUrl("");
          setDescription("");
          create.reset();
          onCreated(e);
        },
      },
    );
  const cancel = () => {
    create.reset();
    onClose();
  };

  return (
    <Dialog
      open={open}
      onClose={cancel}
      title="Add a webhook endpoint"
      busy={create.isPending}
      testId="webhook-create-dialog"
    >
      <ActionForm
        effect={<p>Events of the tenant are posted to this URL, signed with a secret shown once after you add it.</p>}
        onSubmit={submit}
        onCancel={cancel}
        busy={create.isPending}
        error={create.error}
        confirmLabel="Add endpoint"
        busyLabel="Adding…"
        canSubmit={types.length > 0 && url.trim() !== "" && tenant.trim() !== ""}
        confirmTestId="webhook-create-submit"
      >
        <div className="field">
          <label htmlFor={ids.tenant}>Tenant</label>
          {tenants ? (
            <select
              id={ids.tenant}
              className="select"
              value={tenant}
              onChange={(e) => setTenant(e.target.value)}
              data-testid="webhook-tenant"
            >
              {tenants.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          ) : (
            <input
              id={ids.tenant}
              className="input"
              value={tenant}
              onChange={(e) => setTenant(e.target.value)}
              data-testid="webhook-tenant"
            />
          )}
        </div>
        <div className="field">
          <label htmlFor={ids.url}>URL</label>
          <input
            id={ids.url}
            className="input"
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://example.com/hooks/indexwright"
            data-testid="webhook-url"
          />
        </div>
        <fieldset className="field">
          <legend>Events</legend>
          {WEBHOOK_EVENT_TYPES.map((t) => (
            <label key={t} className="webhook-event-choice">
              <input
                type="checkbox"
                checked={types.includes(t)}
                onChange={(e) => setTypes(e.target.checked ? [...types, t] : types.filter((x) => x !== t))}
              />{" "}
              <span className="mono">{t}</span> <span className="muted">— {EVENT_HINT[t]}</span>
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={ids.description}>Description (optional)</label>
          <input
            id={ids.description}
            className="input"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            data-testid="webhook-description"
          />
        </div>
      </ActionForm>
    </Dialog>
  );
}
