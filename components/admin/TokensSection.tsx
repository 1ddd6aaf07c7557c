"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { Role } from "@/lib/domain/constants";
import {
  grantErrorField,
  useAdminTokens,
  useAdminUsers,
  useCreateToken,
  useRevokeToken,
  type AdminToken,
  type AdminUser,
  type CreatedToken,
  type GrantField,
} from "@/lib/ui/admin";
import { formatDateTime } from "@/lib/ui/format";
import { roleAtLeast } from "@/lib/ui/roles";
import {
  ALL_TENANTS,
  describeTenants,
  draftFromGrant,
  emptyGrant,
  grantToTenants,
  intersectTenants,
  resolveGrant,
  type Capability,
  type TenantGrantDraft,
} from "@/lib/ui/trust";
import { ActionForm, useDialogClose } from "../ActionForm";
import { Dialog } from "../Dialog";
import { QueryStates } from "../ListFrame";
import { useViewer } from "../PrincipalContext";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { useToast } from "../Toast";
import { adminIcons, icons } from "../shell/icons";
import { CapabilitiesField, RoleField, TenantGrantField, TenantsCell, TextField } from "./fields";

/** Token capabilities: a short name for the table (the code is in its tooltip) and a phrase for sentences. */
const CAPABILITY_LABEL: Record<Capability, { short: string; phrase: string }> = {
  "search:principals": { short: "End-user search", phrase: "may search on behalf of end users" },
  "metrics:read": { short: "Metrics", phrase: "may read /api/metrics" },
};

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
          <p className="card__lead">
            For scripts, CI and other machines, or a person&rsquo;s own scripts. Each token acts with its role, in its
            tenants.
          </p>
        </div>
        {createButton("token-create-open")}
      </div>

      <QueryStates
        query={tokens}
        skeleton={<TableSkeleton rows={3} columns={8} label="Loading API tokens" />}
        errorTitle="Could not load API tokens"
        empty={items.length === 0}
        emptyState={
          <EmptyState icon={adminIcons.key} title="No API tokens yet" action={createButton("token-create-open-empty")}>
            <p>
              Create one for each script or machine, with the lowest role it needs. The bootstrap token from the
              server&rsquo;s settings is not listed here.
            </p>
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
                "Capabilities",
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
    <tr
      data-testid="token-row"
      data-token-id={t.id}
      data-name={t.name}
      data-kind={t.kind}
      data-role={t.role}
      data-status={revoked ? "revoked" : "active"}
      className={revoked ? "row--revoked" : undefined}
    >
      <td className="cell-name">
        <span className="stack-xs">
          <span className="cell-name__text">{t.name}</span>
          {t.kind === "person" ? (
            <span
              className="cell-sub"
              title="Acts as this user: never more than their role and tenants"
              data-testid="token-kind"
            >
              Person&rsquo;s token ·{" "}
              <span className="mono" data-testid="token-user">
                {t.userEmail ?? "unknown user"}
              </span>
            </span>
          ) : (
            <span className="cell-sub" data-testid="token-kind">
              Application
            </span>
          )}
        </span>
      </td>
      <td>
        <span className="role-chip" data-role={t.role}>
          {t.role}
        </span>
      </td>
      <td>
        <TenantsCell tenants={t.tenants} />
      </td>
      <td data-testid="token-capabilities-cell">
        {t.capabilities.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          <span className="chips">
            {t.capabilities.map((c) => (
              <span key={c} className="chip" title={c}>
                {CAPABILITY_LABEL[c].short}
              </span>
            ))}
          </span>
        )}
      </td>
      <td className="nowrap">
        <span className="stack-xs">
          <RelativeTime iso={t.createdAt} />
          <span className="cell-sub mono" title={t.createdBy ?? ""}>
            by {t.createdBy || "—"}
          </span>
        </span>
      </td>
      <td className="nowrap">
        {t.lastUsedAt ? <RelativeTime iso={t.lastUsedAt} /> : <span className="muted">never</span>}
      </td>
      <td className="nowrap">
        {revoked ? (
          <span className="stack-xs">
            <span
              className="pill pill--muted pill--status"
              title={`Revoked ${formatDateTime(t.revokedAt)}`}
              data-testid="token-status"
            >
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
          <button
            type="button"
            className="btn btn--danger-outline btn--sm"
            onClick={onRevoke}
            data-testid="token-revoke"
          >
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
      {created ? (
        <SecretView created={created} onDone={close} />
      ) : (
        <CreateTokenForm mutation={create} onCreated={setCreated} onCancel={close} />
      )}
    </Dialog>
  );
}

type TokenKind = "application" | "person";
type Problems = Partial<Record<"name" | GrantField, string | null>>;

/** Field-level wording of the API's refusals of a grant (the dialog also shows the server's own words). */
function refusalText(field: GrantField, kind: TokenKind, user: AdminUser | null): string {
  if (field === "user") return "This user is disabled. Enable them before giving them a token.";
  if (field === "role")
    return kind === "person" && user
      ? `Higher than the role of ${user.email} (${user.role}).`
      : "Higher than your own role.";
  if (field === "tenants")
    return kind === "person" && user
      ? `Includes tenants ${user.email} does not hold.`
      : "Includes tenants you do not hold.";
  return kind === "person"
    ? "A person’s token has no capabilities: it acts as the person."
    : "“May read /api/metrics” needs an all-tenant admin and a token for All tenants.";
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
  const viewer = useViewer();
  const users = useAdminUsers();
  const id = useId();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<TokenKind>("application");
  const [userId, setUserId] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [grant, setGrant] = useState<TenantGrantDraft>(emptyGrant);
  const [capabilities, setCapabilities] = useState<Capability[]>([]);
  const [problems, setProblems] = useState<Problems>({});

  const people = (users.data ?? []).filter((u) => !u.disabledAt);
  const user = kind === "person" ? (people.find((u) => u.id === userId) ?? null) : null;
  // Nobody grants more than they hold; a person's token also never exceeds the person.
  const ceiling =
    kind === "person" ? (user ? intersectTenants(viewer.tenants, grantToTenants(user.tenants)) : []) : viewer.tenants;
  const resolved = resolveGrant(grant, ceiling);
  const metricsBlocked = resolved.tenants.includes(ALL_TENANTS)
    ? null
    : "Tick “All tenants” first: metrics cover every tenant.";
  // A metrics grant is dropped as soon as the tenants stop being all of them.
  const caps = capabilities.filter((c) => c !== "metrics:read" || metricsBlocked === null);

  const refusal = grantErrorField(mutation.error);
  const fieldError = (f: GrantField) => problems[f] ?? (refusal?.field === f ? refusalText(f, kind, user) : null);
  const clear = (f: keyof Problems) => {
    if (problems[f]) setProblems((p) => ({ ...p, [f]: null }));
    if (refusal) mutation.reset();
  };

  function chooseUser(next: string) {
    setUserId(next);
    clear("user");
    const u = people.find((x) => x.id === next);
    if (!u) return;
    // Start from what the person holds: the token acts as them, and may be narrowed from there.
    if (!roleAtLeast(u.role, role)) setRole(u.role);
    const c = intersectTenants(viewer.tenants, grantToTenants(u.tenants));
    setGrant(c === null ? { all: true, text: "", picked: [] } : draftFromGrant(c, c));
  }

  function chooseKind(next: TokenKind) {
    setKind(next);
    setGrant(emptyGrant());
    setProblems({});
    if (refusal) mutation.reset();
  }

  return (
    <ActionForm
      effect={
        kind === "person" ? (
          <p>
            Creates a token that acts as {user ? <span className="mono">{user.email}</span> : "the user you choose"}:
            never more than their role and tenants, and searching with their groups. It stops working while they are
            disabled. The secret is shown <strong>once</strong>.
          </p>
        ) : (
          <p>
            Creates a new secret. It is shown <strong>once</strong>, in the next step; Indexwright keeps only a hash.
            Give each script or machine its own token, with the lowest role it needs.
          </p>
        )
      }
      onSubmit={() => {
        const nameProblem = name.trim()
          ? name.trim().length > 100
            ? "Keep the name under 100 characters."
            : null
          : "Give the token a name.";
        const userProblem = kind === "person" && !user ? "Choose the user this token acts as." : null;
        const tenantsProblem = userProblem ? null : resolved.problem;
        setProblems({ name: nameProblem, user: userProblem, tenants: tenantsProblem });
        const first = nameProblem ? `${id}-name` : userProblem ? `${id}-user` : tenantsProblem ? `${id}-tenants` : null;
        if (first) {
          (document.getElementById(first) ?? document.getElementById(`${id}-tenants-all`))?.focus();
          return;
        }
        const input =
          kind === "person" && user
            ? { kind, name, role, tenants: resolved.tenants, userId: user.id }
            : { kind: "application" as const, name, role, tenants: resolved.tenants, capabilities: caps };
        mutation.mutate(input, {
          onSuccess: (res) => {
            onCreated(res);
            toast.push({
              tone: "success",
              title: `Token “${res.name}” created`,
              body: "Copy the secret from the dialog now: it is not shown again.",
            });
          },
          onError: (err) => {
            const f = grantErrorField(err)?.field;
            const target = f === "capabilities" ? `${id}-caps-search` : f ? `${id}-${f}` : null;
            if (target) (document.getElementById(target) ?? document.getElementById(`${id}-tenants-all`))?.focus();
          },
        });
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
      <fieldset className="field grant">
        <legend className="field__label">Kind</legend>
        <div className="kind-choice">
          <label className="kind-choice__option">
            <input
              type="radio"
              name={`${id}-kind`}
              value="application"
              checked={kind === "application"}
              onChange={() => chooseKind("application")}
              data-testid="token-kind-application"
            />
            <span className="kind-choice__title">Application</span>
            <span className="kind-choice__desc">
              A script, service or backend. It acts as itself, with no user or groups.
            </span>
          </label>
          <label className="kind-choice__option">
            <input
              type="radio"
              name={`${id}-kind`}
              value="person"
              checked={kind === "person"}
              onChange={() => chooseKind("person")}
              data-testid="token-kind-person"
            />
            <span className="kind-choice__title">Person&rsquo;s token</span>
            <span className="kind-choice__desc">
              Acts as a user you choose, e.g. for their own scripts: their role, tenants and groups apply.
            </span>
          </label>
        </div>
      </fieldset>
      {kind === "person" ? (
        <div className="field">
          <label htmlFor={`${id}-user`} className="field__label">
            User
          </label>
          <select
            id={`${id}-user`}
            className="select"
            value={userId}
            onChange={(e) => chooseUser(e.target.value)}
            aria-invalid={fieldError("user") ? true : undefined}
            aria-describedby={`${id}-user-hint${fieldError("user") ? ` ${id}-user-error` : ""}`}
            data-testid="token-user"
          >
            <option value="">{users.isPending ? "Loading users…" : "Choose a user…"}</option>
            {people.map((u) => (
              <option key={u.id} value={u.id}>
                {u.email} — {u.role}, {describeTenants(grantToTenants(u.tenants))}
              </option>
            ))}
          </select>
          <p id={`${id}-user-hint`} className="field__hint">
            {users.isError
              ? "Could not load users; close the dialog and try again."
              : "Enabled users you manage. Disabled users’ tokens stop working."}
          </p>
          {fieldError("user") ? (
            <p id={`${id}-user-error`} className="field__error">
              {fieldError("user")}
            </p>
          ) : null}
        </div>
      ) : null}
      <RoleField
        id={`${id}-role`}
        value={role}
        onChange={(r) => {
          setRole(r);
          clear("role");
        }}
        max={user?.role ?? "admin"}
        maxNote={user ? `At most ${user.role}, the role of ${user.email}.` : undefined}
        error={fieldError("role")}
        testId="token-role"
      />
      {kind === "person" && !user ? (
        <div className="field">
          <span className="field__label">Tenants</span>
          <p className="field__hint">Choose the user first: the token can have at most their tenants.</p>
        </div>
      ) : (
        <TenantGrantField
          id={`${id}-tenants`}
          ceiling={ceiling}
          value={grant}
          onChange={(v) => {
            setGrant(v);
            clear("tenants");
          }}
          error={fieldError("tenants")}
          ceilingNote={
            kind === "person" && user
              ? `At most the tenants ${user.email} holds${viewer.tenants ? " and you hold" : ""}.`
              : undefined
          }
          testId="token-tenants"
        />
      )}
      {kind === "application" ? (
        <CapabilitiesField
          id={`${id}-caps`}
          value={caps}
          onChange={(v) => {
            setCapabilities(v);
            clear("capabilities");
          }}
          metricsOffered={viewer.tenants === null}
          metricsBlocked={metricsBlocked}
          error={fieldError("capabilities")}
        />
      ) : null}
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
          <button
            type="button"
            className="btn btn--secondary input-group__btn"
            onClick={copy}
            data-testid="token-secret-copy"
          >
            {copied === "yes" ? adminIcons.check : adminIcons.copy}
            <span>{copied === "yes" ? "Copied" : "Copy"}</span>
          </button>
        </div>
        <p id={`${id}-secret-hint`} className="field__hint">
          Send it as <code>Authorization: Bearer &lt;token&gt;</code>, or paste it on the sign-in page under
          &ldquo;Access token&rdquo;. {created.kind === "person" ? "Acts as its user: " : ""}Role{" "}
          <strong>{created.role}</strong>, {describeTenants(grantToTenants(created.tenants))}
          {created.capabilities.length > 0
            ? `; ${created.capabilities.map((c) => CAPABILITY_LABEL[c].phrase).join(", ")}`
            : ""}
          .
        </p>
        <p
          className={copied === "failed" ? "field__error" : "field__hint field__hint--ok"}
          role="status"
          data-testid="token-secret-copied"
        >
          {copied === "yes"
            ? "Copied to the clipboard."
            : copied === "failed"
              ? "Could not copy automatically: the token is selected, press Ctrl+C (⌘C)."
              : ""}
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
    <Dialog
      open={token !== null}
      onClose={close}
      busy={revoke.isPending}
      title={t ? `Revoke token “${t.name}”` : "Revoke token"}
      testId="token-revoke-dialog"
    >
      {t ? (
        <ActionForm
          effect={
            <>
              <p>
                Anything that sends this token gets <strong>401 Unauthorized</strong> from now on, and it can no longer
                be used to sign in. This cannot be undone: create a new token if it is needed again.
              </p>
              <p className="effect__warn">Dashboard sessions signed in with it end at once.</p>
            </>
          }
          onSubmit={() =>
            revoke.mutate(t.id, {
              onSuccess: () => {
                close();
                toast.push({
                  tone: "success",
                  title: `Token “${t.name}” revoked`,
                  body: "Requests that use it are refused from now on.",
                });
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
