"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { Role } from "@/lib/domain/constants";
import { parseTenants, useAdminTokens, useCreateToken, useRevokeToken, type AdminToken, type CreatedToken } from "@/lib/ui/admin";
import { formatDateTime } from "@/lib/ui/format";
import { ActionForm, useDialogClose } from "../ActionForm";
import { Dialog } from "../Dialog";
import { QueryStates } from "../ListFrame";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { useToast } from "../Toast";
import { adminIcons, icons } from "../shell/icons";
import { RoleField, TenantsCell, TenantsField, TextField } from "./fields";

/** API tokens: list, create (secret shown once), revoke. */
export function TokensSection() {
  const tokens = useAdminTokens();
  const headingId = useId();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<AdminToken | null>(null);
  const items = tokens.data ?? [];
  const active = items.filter((t) => !t.revokedAt).length;

  const createButton = (testId: string) => (
    <button type="button" className="btn btn--primary btn--sm" onClick={() => setCreating(true)} data-testid={testId}>
      {icons.plus}
      <span>Create token</span>
    </button>
  );

  return (
    <section className="card" aria-labelledby={headingId} data-testid="tokens-section">
      <div className="card__header">
        <div>
          <h2 id={headingId} className="section-title">
            API tokens{" "}
            <span className="count">
              {active}
              <span className="visually-hidden"> active</span>
            </span>
          </h2>
          <p className="card__lead">For scripts, CI and other machines. Each token acts with its role, in its tenants.</p>
        </div>
        {createButton("token-create-open")}
      </div>

      <QueryStates
        query={tokens}
        skeleton={<TableSkeleton rows={3} columns={7} label="Loading API tokens" />}
        errorTitle="Could not load API tokens"
        empty={items.length === 0}
        emptyState={
          <EmptyState icon={adminIcons.key} title="No API tokens yet" action={createButton("token-create-open-empty")}>
            <p>Create one for each script or machine, with the lowest role it needs. The bootstrap token from the server&rsquo;s settings is not listed here.</p>
          </EmptyState>
        }
      >
        <div className="table-wrap">
          <table className="table table--admin" data-testid="tokens-table">
            <caption className="visually-hidden">API tokens, newest first</caption>
            <TableHead
              columns={[
                "Name",
                "Role",
                "Tenants",
                "Created",
                "Last used",
                "Status",
                { label: <span className="visually-hidden">Actions</span> },
              ]}
            />
            <tbody>
              {items.map((t) => (
                <TokenRow key={t.id} token={t} onRevoke={() => setRevoking(t)} />
              ))}
            </tbody>
          </table>
        </div>
      </QueryStates>

      <CreateTokenDialog open={creating} onClose={() => setCreating(false)} />
      <RevokeTokenDialog token={revoking} onClose={() => setRevoking(null)} />
    </section>
  );
}

function TokenRow({ token: t, onRevoke }: { token: AdminToken; onRevoke: () => void }) {
  const revoked = t.revokedAt !== null;
  return (
    <tr data-testid="token-row" data-token-id={t.id} data-name={t.name} data-role={t.role} data-status={revoked ? "revoked" : "active"} className={revoked ? "row--revoked" : undefined}>
      <td className="cell-name">
        <span className="cell-name__text">{t.name}</span>
      </td>
      <td>
        <span className="role-chip" data-role={t.role}>
          {t.role}
        </span>
      </td>
      <td>
        <TenantsCell tenants={t.tenants} />
      </td>
      <td className="nowrap">
        <span className="stack-xs">
          <RelativeTime iso={t.createdAt} />
          <span className="cell-sub mono" title={t.createdBy}>
            by {t.createdBy || "—"}
          </span>
        </span>
      </td>
      <td className="nowrap">{t.lastUsedAt ? <RelativeTime iso={t.lastUsedAt} /> : <span className="muted">never</span>}</td>
      <td className="nowrap">
        {revoked ? (
          <span className="stack-xs">
            <span className="pill pill--muted pill--status" title={`Revoked ${formatDateTime(t.revokedAt)}`} data-testid="token-status">
              revoked
            </span>
            <span className="cell-sub">
              <RelativeTime iso={t.revokedAt} />
            </span>
          </span>
        ) : (
          <span className="pill pill--ok pill--status" data-testid="token-status">
            active
          </span>
        )}
      </td>
      <td className="col-right nowrap">
        {revoked ? null : (
          <button type="button" className="btn btn--danger-outline btn--sm" onClick={onRevoke} data-testid="token-revoke">
            <span>
              Revoke<span className="visually-hidden"> token {t.name}</span>…
            </span>
          </button>
        )}
      </td>
    </tr>
  );
}

function CreateTokenDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const create = useCreateToken();
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const close = useDialogClose(
    create,
    () => {
      setCreated(null); // the secret is dropped from memory with the dialog
      onClose();
    },
    { refreshAfterError: false },
  );
  return (
    <Dialog
      open={open}
      onClose={close}
      busy={create.isPending}
      title={created ? "Copy your new token" : "Create API token"}
      description={created ? undefined : "The token acts with the role and tenants you choose here."}
      testId="token-create-dialog"
    >
      {created ? <SecretView created={created} onDone={close} /> : <CreateTokenForm mutation={create} onCreated={setCreated} onCancel={close} />}
    </Dialog>
  );
}

function CreateTokenForm({
  mutation,
  onCreated,
  onCancel,
}: {
  mutation: ReturnType<typeof useCreateToken>;
  onCreated: (c: CreatedToken) => void;
  onCancel: () => void;
}) {
  const toast = useToast();
  const id = useId();
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [tenantsText, setTenantsText] = useState("");
  const [problems, setProblems] = useState<{ name?: string | null; tenants?: string | null }>({});

  return (
    <ActionForm
      effect={
        <p>
          Creates a new secret. It is shown <strong>once</strong>, in the next step; Indexwright keeps only a hash. Give each script or machine its own
          token, with the lowest role it needs.
        </p>
      }
      onSubmit={() => {
        const { tenants, problem } = parseTenants(tenantsText);
        const nameProblem = name.trim() ? (name.trim().length > 100 ? "Keep the name under 100 characters." : null) : "Give the token a name.";
        setProblems({ name: nameProblem, tenants: problem });
        if (nameProblem || problem) {
          document.getElementById(nameProblem ? `${id}-name` : `${id}-tenants`)?.focus();
          return;
        }
        mutation.mutate(
          { name, role, tenants },
          {
            onSuccess: (res) => {
              onCreated(res);
              toast.push({ tone: "success", title: `Token “${res.name}” created`, body: "Copy the secret from the dialog now: it is not shown again." });
            },
          },
        );
      }}
      onCancel={onCancel}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Create token"
      busyLabel="Creating…"
      confirmTestId="token-create-submit"
    >
      <TextField
        id={`${id}-name`}
        label="Name"
        value={name}
        onChange={(v) => {
          setName(v);
          if (problems.name) setProblems((p) => ({ ...p, name: null }));
        }}
        error={problems.name}
        hint="What uses it, e.g. “ci-publisher” or “search-frontend”."
        testId="token-name"
      />
      <RoleField id={`${id}-role`} value={role} onChange={setRole} testId="token-role" />
      <TenantsField
        id={`${id}-tenants`}
        value={tenantsText}
        onChange={(v) => {
          setTenantsText(v);
          if (problems.tenants) setProblems((p) => ({ ...p, tenants: null }));
        }}
        error={problems.tenants}
        testId="token-tenants"
      />
    </ActionForm>
  );
}

/** The one-time secret: read-only, selected on arrival, with a Copy button and a plain warning. */
function SecretView({ created, onDone }: { created: CreatedToken; onDone: () => void }) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);

  useEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, []);

  async function copy() {
    const input = inputRef.current;
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied("yes");
    } catch {
      // No clipboard API (or permission refused): fall back to the selection.
      input?.focus();
      input?.select();
      let ok = false;
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
      setCopied(ok ? "yes" : "failed");
    }
  }

  return (
    <div className="dialog__body" data-testid="token-secret-view">
      <div className="note note--amber" role="alert">
        <span className="note__icon" aria-hidden="true">
          !
        </span>
        <div>
          <p>
            <strong>Copy this token now. It will not be shown again.</strong>
          </p>
          <p>Store it where the script or machine reads its secrets. If it is lost, revoke it and create a new one.</p>
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-secret`} className="field__label">
          Token for “{created.name}”
        </label>
        <div className="input-group">
          <input
            ref={inputRef}
            id={`${id}-secret`}
            className="input mono secret-input"
            value={created.token}
            readOnly
            spellCheck={false}
            autoComplete="off"
            aria-describedby={`${id}-secret-hint`}
            onFocus={(e) => e.currentTarget.select()}
            data-testid="token-secret"
          />
          <button type="button" className="btn btn--secondary input-group__btn" onClick={copy} data-testid="token-secret-copy">
            {copied === "yes" ? adminIcons.check : adminIcons.copy}
            <span>{copied === "yes" ? "Copied" : "Copy"}</span>
          </button>
        </div>
        <p id={`${id}-secret-hint`} className="field__hint">
          Send it as <code>Authorization: Bearer &lt;token&gt;</code>, or paste it on the sign-in page under &ldquo;Access token&rdquo;. Role{" "}
          <strong>{created.role}</strong>, {created.tenants.length ? `tenants ${created.tenants.join(", ")}` : "all tenants"}.
        </p>
        <p className={copied === "failed" ? "field__error" : "field__hint field__hint--ok"} role="status" data-testid="token-secret-copied">
          {copied === "yes" ? "Copied to the clipboard." : copied === "failed" ? "Could not copy automatically: the token is selected, press Ctrl+C (⌘C)." : ""}
        </p>
      </div>
      <footer className="dialog__footer">
        <button type="button" className="btn btn--primary" onClick={onDone} data-testid="token-secret-done">
          I have copied it
        </button>
      </footer>
    </div>
  );
}

function RevokeTokenDialog({ token, onClose }: { token: AdminToken | null; onClose: () => void }) {
  const revoke = useRevokeToken();
  const toast = useToast();
  const close = useDialogClose(revoke, onClose, { refreshAfterError: false });
  const t = token;
  return (
    <Dialog open={token !== null} onClose={close} busy={revoke.isPending} title={t ? `Revoke token “${t.name}”` : "Revoke token"} testId="token-revoke-dialog">
      {t ? (
        <ActionForm
          effect={
            <>
              <p>
                Anything that sends this token gets <strong>401 Unauthorized</strong> from now on, and it can no longer be used to sign in. This cannot be
                undone: create a new token if it is needed again.
              </p>
              <p className="effect__warn">Dashboard sessions signed in with it end at once.</p>
            </>
          }
          onSubmit={() =>
            revoke.mutate(t.id, {
              onSuccess: () => {
                close();
                toast.push({ tone: "success", title: `Token “${t.name}” revoked`, body: "Requests that use it are refused from now on." });
              },
            })
          }
          onCancel={close}
          busy={revoke.isPending}
          error={revoke.error}
          confirmLabel="Revoke token"
          busyLabel="Revoking…"
          tone="danger"
          confirmTestId="token-revoke-confirm"
        />
      ) : null}
    </Dialog>
  );
}
