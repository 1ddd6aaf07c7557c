"use client";

import { useId, useState } from "react";
import type { Role } from "@/lib/domain/constants";
import { isApiError } from "@/lib/ui/api";
import {
  emailProblem,
  grantErrorField,
  passwordProblem,
  useAdminUsers,
  useCreateUser,
  useUpdateUser,
  type AdminUser,
  type GrantField,
} from "@/lib/ui/admin";
import { formatDateTime } from "@/lib/ui/format";
import {
  describeTenants,
  draftFromGrant,
  emptyGrant,
  grantToTenants,
  parseGroups,
  resolveGrant,
  sameGrant,
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
import { GroupChips, GroupsField, PasswordField, RoleField, TenantGrantField, TenantsCell, TextField } from "./fields";

type Kind = "access" | "password" | "disable" | "enable" | "signout";
type Open = { kind: Kind; user: AdminUser } | null;

/** People who sign in with email and password: list, add, change role, disable/enable, reset password. */
export function UsersSection({ ssoName = null }: { ssoName?: string | null }) {
  const users = useAdminUsers();
  const viewer = useViewer();
  const headingId = useId();
  const [adding, setAdding] = useState(false);
  const [open, setOpen] = useState<Open>(null);
  const items = users.data ?? [];
  const enabled = items.filter((u) => !u.disabledAt).length;
  const close = () => setOpen(null);

  return (
    <section className="card" aria-labelledby={headingId} data-testid="users-section">
      <div className="card__header">
        <div>
          <h2 id={headingId} className="section-title">
            Users{" "}
            <span className="count">
              {enabled}
              <span className="visually-hidden"> active</span>
            </span>
          </h2>
          <p className="card__lead">
            People who sign in to the dashboard with their email and password, or through single sign-on when it is set
            up.
          </p>
        </div>
        <button
          type="button"
          className="btn btn--primary btn--sm"
          onClick={() => setAdding(true)}
          data-testid="user-create-open"
        >
          {icons.plus}
          <span>Add user</span>
        </button>
      </div>

      <QueryStates
        query={users}
        skeleton={<TableSkeleton rows={3} columns={7} label="Loading users" />}
        errorTitle="Could not load users"
        empty={items.length === 0}
        emptyState={
          <EmptyState icon={adminIcons.users} title="No users yet">
            <p>Add the people who should sign in with an email and password.</p>
          </EmptyState>
        }
      >
        <div className="table-wrap">
          <table className="table table--admin" data-testid="users-table">
            <caption className="visually-hidden">Users, by email</caption>
            <TableHead
              columns={[
                "Email",
                "Role",
                "Tenants",
                "Groups",
                "Status",
                "Sessions",
                { label: <span className="visually-hidden">Actions</span> },
              ]}
            />
            <tbody>
              {items.map((u) => (
                <UserRow
                  key={u.id}
                  user={u}
                  self={viewer.subject === `user:${u.email}`}
                  onAction={(kind) => setOpen({ kind, user: u })}
                />
              ))}
            </tbody>
          </table>
        </div>
      </QueryStates>

      <AddUserDialog open={adding} onClose={() => setAdding(false)} ssoName={ssoName} />
      <AccessDialog user={open?.kind === "access" ? open.user : null} onClose={close} />
      <ResetPasswordDialog user={open?.kind === "password" ? open.user : null} onClose={close} />
      <SignOutDialog user={open?.kind === "signout" ? open.user : null} onClose={close} />
      <SetDisabledDialog
        user={open?.kind === "disable" || open?.kind === "enable" ? open.user : null}
        disable={open?.kind === "disable"}
        onClose={close}
      />
    </section>
  );
}

function UserRow({ user: u, self, onAction }: { user: AdminUser; self: boolean; onAction: (k: Kind) => void }) {
  const disabled = u.disabledAt !== null;
  const selfHint = "You cannot change your own access or disable yourself; ask another admin.";
  return (
    <tr
      data-testid="user-row"
      data-user-id={u.id}
      data-email={u.email}
      data-role={u.role}
      data-status={disabled ? "disabled" : "active"}
      className={disabled ? "row--revoked" : undefined}
    >
      <td className="cell-name">
        <span className="cell-name__text mono">{u.email}</span>
        {self ? <span className="pill pill--neutral pill--tag">you</span> : null}
        {u.sso ? (
          <span className="pill pill--neutral pill--tag" title="Has signed in through single sign-on">
            SSO
          </span>
        ) : null}
        {u.createdAt ? (
          <span className="cell-sub cell-sub--block">
            added <RelativeTime iso={u.createdAt} />
          </span>
        ) : null}
      </td>
      <td>
        <span className="role-chip" data-role={u.role}>
          {u.role}
        </span>
      </td>
      <td>
        <TenantsCell tenants={u.tenants} />
      </td>
      <td data-testid="user-groups">
        <GroupChips groups={u.groups} ssoGroups={u.ssoGroups} />
      </td>
      <td className="nowrap">
        {disabled ? (
          <span
            className="pill pill--muted pill--status"
            title={`Disabled ${formatDateTime(u.disabledAt)}`}
            data-testid="user-status"
          >
            disabled
          </span>
        ) : (
          <span className="pill pill--ok pill--status" data-testid="user-status">
            active
          </span>
        )}
      </td>
      <td className="nowrap">
        <span className="sessions-cell">
          <span data-testid="user-sessions">
            {u.activeSessions}
            <span className="visually-hidden"> open {u.activeSessions === 1 ? "session" : "sessions"}</span>
          </span>
          {u.activeSessions > 0 ? (
            <button
              type="button"
              className="btn btn--ghost btn--sm"
              onClick={() => onAction("signout")}
              aria-label={`Sign out ${u.email} everywhere`}
              data-testid="user-sign-out"
            >
              Sign out…
            </button>
          ) : null}
        </span>
      </td>
      <td className="col-right">
        <div className="row-actions" role="group" aria-label={`Actions for ${u.email}`}>
          <button
            type="button"
            className="btn btn--secondary btn--sm"
            onClick={() => onAction("access")}
            disabled={self}
            title={self ? selfHint : "Role, tenants and groups"}
            data-testid="user-access"
          >
            Access…<span className="visually-hidden"> of {u.email}</span>
          </button>
          <button
            type="button"
            className="btn btn--secondary btn--sm"
            onClick={() => onAction("password")}
            data-testid="user-reset-password"
          >
            Password…
          </button>
          {disabled ? (
            <button
              type="button"
              className="btn btn--secondary btn--sm"
              onClick={() => onAction("enable")}
              data-testid="user-enable"
            >
              Enable…
            </button>
          ) : (
            <button
              type="button"
              className="btn btn--danger-outline btn--sm"
              onClick={() => onAction("disable")}
              disabled={self}
              title={self ? selfHint : undefined}
              data-testid="user-disable"
            >
              Disable…
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}

function AddUserDialog({ open, onClose, ssoName }: { open: boolean; onClose: () => void; ssoName: string | null }) {
  const create = useCreateUser();
  const close = useDialogClose(create, onClose, { refreshAfterError: false });
  return (
    <Dialog open={open} onClose={close} busy={create.isPending} title="Add user" testId="user-create-dialog">
      <AddUserForm mutation={create} onClose={close} ssoName={ssoName} />
    </Dialog>
  );
}

/** Field-level wording of a refused grant (the dialog also shows the server's own words). */
function refusalText(field: GrantField): string {
  return field === "role" ? "Higher than your own role." : "Includes tenants you do not hold.";
}

function AddUserForm({
  mutation,
  onClose,
  ssoName,
}: {
  mutation: ReturnType<typeof useCreateUser>;
  onClose: () => void;
  ssoName: string | null;
}) {
  const toast = useToast();
  const viewer = useViewer();
  const id = useId();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [ssoOnly, setSsoOnly] = useState(false);
  const [role, setRole] = useState<Role>("viewer");
  const [grant, setGrant] = useState<TenantGrantDraft>(emptyGrant);
  const [groupsText, setGroupsText] = useState("");
  const [problems, setProblems] = useState<{
    email?: string | null;
    password?: string | null;
    tenants?: string | null;
    groups?: string | null;
  }>({});
  const taken = isApiError(mutation.error) && mutation.error.code === "EMAIL_TAKEN";
  const refusal = grantErrorField(mutation.error);

  return (
    <ActionForm
      effect={
        ssoOnly ? (
          <p>The person signs in with {ssoName}, using this email. They have no password here.</p>
        ) : (
          <p>
            The person signs in on the sign-in page under &ldquo;Email and password&rdquo;. Share the password with them
            through a safe channel.
          </p>
        )
      }
      onSubmit={() => {
        const { tenants, problem } = resolveGrant(grant, viewer.tenants);
        const { groups, problem: groupsProblem } = parseGroups(groupsText);
        const next = {
          email: emailProblem(email),
          password: ssoOnly ? null : passwordProblem(password),
          tenants: problem,
          groups: groupsProblem,
        };
        setProblems(next);
        const first = next.email
          ? "email"
          : next.password
            ? "password"
            : next.tenants
              ? "tenants"
              : next.groups
                ? "groups"
                : null;
        if (first) {
          (document.getElementById(`${id}-${first}`) ?? document.getElementById(`${id}-tenants-all`))?.focus();
          return;
        }
        mutation.mutate(
          { email, password: ssoOnly ? null : password, role, tenants, groups },
          {
            onSuccess: (res) => {
              onClose();
              toast.push({
                tone: "success",
                title: `User ${res.email} added`,
                body: `Role ${res.role}, ${describeTenants(grantToTenants(res.tenants))}. They can sign in ${ssoOnly ? `with ${ssoName}` : "with their email and password"} now.`,
              });
            },
            onError: (err) => {
              const f = isApiError(err) && err.code === "EMAIL_TAKEN" ? "email" : grantErrorField(err)?.field;
              if (f) (document.getElementById(`${id}-${f}`) ?? document.getElementById(`${id}-tenants-all`))?.focus();
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Add user"
      busyLabel="Adding…"
      confirmTestId="user-create-submit"
    >
      <TextField
        id={`${id}-email`}
        label="Email"
        type="email"
        value={email}
        onChange={(v) => {
          setEmail(v);
          if (problems.email) setProblems((p) => ({ ...p, email: null }));
          if (taken) mutation.reset();
        }}
        error={problems.email ?? (taken ? "A user with this email already exists." : null)}
        testId="user-email"
      />
      {ssoName ? (
        <div className="field field--check">
          <input
            id={`${id}-sso-only`}
            type="checkbox"
            checked={ssoOnly}
            onChange={(e) => {
              setSsoOnly(e.target.checked);
              setProblems((p) => ({ ...p, password: null }));
            }}
            data-testid="user-sso-only"
          />
          <label htmlFor={`${id}-sso-only`}>Signs in only with {ssoName} (no password)</label>
        </div>
      ) : null}
      {ssoOnly ? null : (
        <PasswordField
          id={`${id}-password`}
          label="Password"
          value={password}
          onChange={(v) => {
            setPassword(v);
            if (problems.password) setProblems((p) => ({ ...p, password: null }));
          }}
          error={problems.password}
          testId="user-password"
          generate
        />
      )}
      <div className="grid-2 grid-2--admin">
        <RoleField
          id={`${id}-role`}
          value={role}
          onChange={(r) => {
            setRole(r);
            if (refusal) mutation.reset();
          }}
          error={refusal?.field === "role" ? refusalText("role") : null}
          testId="user-role"
        />
        <TenantGrantField
          id={`${id}-tenants`}
          ceiling={viewer.tenants}
          value={grant}
          onChange={(v) => {
            setGrant(v);
            if (problems.tenants) setProblems((p) => ({ ...p, tenants: null }));
            if (refusal) mutation.reset();
          }}
          error={problems.tenants ?? (refusal?.field === "tenants" ? refusalText("tenants") : null)}
          testId="user-tenants"
        />
      </div>
      <GroupsField
        id={`${id}-groups`}
        value={groupsText}
        onChange={(v) => {
          setGroupsText(v);
          if (problems.groups) setProblems((p) => ({ ...p, groups: null }));
        }}
        error={problems.groups}
        testId="user-groups-input"
      />
    </ActionForm>
  );
}

type UserDialogProps = { user: AdminUser | null; onClose: () => void };

function useUserDialog(onClose: () => void) {
  const update = useUpdateUser();
  const close = useDialogClose(update, onClose, { refreshAfterError: false });
  return { update, close };
}

function AccessDialog({ user, onClose }: UserDialogProps) {
  const { update, close } = useUserDialog(onClose);
  return (
    <Dialog
      open={user !== null}
      onClose={close}
      busy={update.isPending}
      title={user ? `Access of ${user.email}` : "Access"}
      testId="user-access-dialog"
    >
      {user ? <AccessForm user={user} mutation={update} onClose={close} /> : null}
    </Dialog>
  );
}

/** Role, tenants and admin-assigned groups of one user; only what changed is sent. */
function AccessForm({
  user,
  mutation,
  onClose,
}: {
  user: AdminUser;
  mutation: ReturnType<typeof useUpdateUser>;
  onClose: () => void;
}) {
  const toast = useToast();
  const viewer = useViewer();
  const id = useId();
  const [role, setRole] = useState<Role>(user.role);
  const [grant, setGrant] = useState<TenantGrantDraft>(() => draftFromGrant(user.tenants, viewer.tenants));
  const [groupsText, setGroupsText] = useState(user.groups.join(", "));
  const [problems, setProblems] = useState<{ tenants?: string | null; groups?: string | null }>({});
  const refusal = grantErrorField(mutation.error);
  const resolved = resolveGrant(grant, viewer.tenants);
  const parsedGroups = parseGroups(groupsText);
  const tenantsChanged = !sameGrant(resolved.tenants, user.tenants);
  const groupsChanged = !sameGrant(parsedGroups.groups, user.groups);
  const changed = role !== user.role || tenantsChanged || groupsChanged;
  const current = describeTenants(grantToTenants(user.tenants));

  return (
    <ActionForm
      effect={
        <>
          <p>
            Now <strong>{user.role}</strong> in {current}
            {user.groups.length + user.ssoGroups.length > 0 ? (
              <>
                , groups <GroupChips groups={user.groups} ssoGroups={user.ssoGroups} />
              </>
            ) : (
              ", in no groups"
            )}
            .
          </p>
          {user.tenants.length === 0 ? (
            <p className="effect__warn">This user holds no tenants: they see nothing that belongs to a tenant.</p>
          ) : null}
          <p>The new access applies at once, to sessions and personal tokens already in use too.</p>
        </>
      }
      onSubmit={() => {
        const next = { tenants: resolved.problem, groups: parsedGroups.problem };
        setProblems(next);
        const first = next.tenants ? "tenants" : next.groups ? "groups" : null;
        if (first) {
          (document.getElementById(`${id}-${first}`) ?? document.getElementById(`${id}-tenants-all`))?.focus();
          return;
        }
        mutation.mutate(
          {
            id: user.id,
            patch: {
              ...(role !== user.role ? { role } : {}),
              ...(tenantsChanged ? { tenants: resolved.tenants } : {}),
              ...(groupsChanged ? { groups: parsedGroups.groups } : {}),
            },
          },
          {
            onSuccess: (res) => {
              onClose();
              toast.push({
                tone: "success",
                title: `${res.email} is now ${res.role}`,
                body: `In ${describeTenants(grantToTenants(res.tenants))}.`,
              });
            },
            onError: (err) => {
              const f = grantErrorField(err)?.field;
              if (f) (document.getElementById(`${id}-${f}`) ?? document.getElementById(`${id}-tenants-all`))?.focus();
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Save changes"
      busyLabel="Saving…"
      canSubmit={changed}
      confirmTestId="user-access-confirm"
    >
      <RoleField
        id={`${id}-role`}
        label="Role"
        value={role}
        onChange={(r) => {
          setRole(r);
          if (refusal) mutation.reset();
        }}
        error={refusal?.field === "role" ? refusalText("role") : null}
        testId="user-access-role"
      />
      <TenantGrantField
        id={`${id}-tenants`}
        ceiling={viewer.tenants}
        value={grant}
        onChange={(v) => {
          setGrant(v);
          if (problems.tenants) setProblems((p) => ({ ...p, tenants: null }));
          if (refusal) mutation.reset();
        }}
        error={problems.tenants ?? (refusal?.field === "tenants" ? refusalText("tenants") : null)}
        testId="user-access-tenants"
      />
      <GroupsField
        id={`${id}-groups`}
        value={groupsText}
        onChange={(v) => {
          setGroupsText(v);
          if (problems.groups) setProblems((p) => ({ ...p, groups: null }));
        }}
        error={problems.groups}
        ssoGroups={user.ssoGroups}
        testId="user-access-groups"
      />
    </ActionForm>
  );
}

function ResetPasswordDialog({ user, onClose }: UserDialogProps) {
  const { update, close } = useUserDialog(onClose);
  return (
    <Dialog
      open={user !== null}
      onClose={close}
      busy={update.isPending}
      title={user ? `Reset password of ${user.email}` : "Reset password"}
      testId="user-password-dialog"
    >
      {user ? <ResetPasswordForm user={user} mutation={update} onClose={close} /> : null}
    </Dialog>
  );
}

function ResetPasswordForm({
  user,
  mutation,
  onClose,
}: {
  user: AdminUser;
  mutation: ReturnType<typeof useUpdateUser>;
  onClose: () => void;
}) {
  const toast = useToast();
  const id = useId();
  const [password, setPassword] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <ActionForm
      effect={
        <p>
          Sets a new password for <span className="mono">{user.email}</span>. Their old password stops working and their
          open sessions end at once; tell them the new one through a safe channel.
        </p>
      }
      onSubmit={() => {
        const p = passwordProblem(password);
        setProblem(p);
        if (p) {
          document.getElementById(`${id}-password`)?.focus();
          return;
        }
        mutation.mutate(
          { id: user.id, patch: { password } },
          {
            onSuccess: () => {
              onClose();
              toast.push({
                tone: "success",
                title: `Password of ${user.email} changed`,
                body: "The old password no longer works.",
              });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Set new password"
      busyLabel="Saving…"
      confirmTestId="user-password-confirm"
    >
      <PasswordField
        id={`${id}-password`}
        label="New password"
        value={password}
        onChange={(v) => {
          setPassword(v);
          if (problem) setProblem(null);
        }}
        error={problem}
        testId="user-new-password"
        generate
      />
    </ActionForm>
  );
}

function SignOutDialog({ user, onClose }: UserDialogProps) {
  const { update, close } = useUserDialog(onClose);
  const toast = useToast();
  return (
    <Dialog
      open={user !== null}
      onClose={close}
      busy={update.isPending}
      title={user ? `Sign out ${user.email}` : "Sign out user"}
      testId="user-signout-dialog"
    >
      {user ? (
        <ActionForm
          effect={
            <p>
              {user.activeSessions === 1
                ? "Ends the open session"
                : `Ends all ${user.activeSessions} open sessions, on every device,`}{" "}
              of <span className="mono">{user.email}</span>. Their next click takes them to the sign-in page; they can
              sign in again.
            </p>
          }
          onSubmit={() =>
            update.mutate(
              { id: user.id, patch: { signOut: true } },
              {
                onSuccess: (res) => {
                  close();
                  toast.push({
                    tone: "success",
                    title: `${user.email} signed out`,
                    body: `${res.sessionsEnded} ${res.sessionsEnded === 1 ? "session" : "sessions"} ended.`,
                  });
                },
              },
            )
          }
          onCancel={close}
          busy={update.isPending}
          error={update.error}
          confirmLabel={user.activeSessions === 1 ? "End session" : "End sessions"}
          busyLabel="Ending…"
          tone="danger"
          confirmTestId="user-signout-confirm"
        />
      ) : null}
    </Dialog>
  );
}

function SetDisabledDialog({ user, disable, onClose }: UserDialogProps & { disable: boolean }) {
  const { update, close } = useUserDialog(onClose);
  const toast = useToast();
  const title = user ? `${disable ? "Disable" : "Enable"} ${user.email}` : disable ? "Disable user" : "Enable user";
  return (
    <Dialog
      open={user !== null}
      onClose={close}
      busy={update.isPending}
      title={title}
      testId={disable ? "user-disable-dialog" : "user-enable-dialog"}
    >
      {user ? (
        <ActionForm
          effect={
            disable ? (
              <>
                <p>
                  <span className="mono">{user.email}</span> can no longer sign in with their email and password. Their
                  account, role and tenants are kept, so you can enable it again later.
                </p>
                <p className="effect__warn">Their open sessions end at once.</p>
              </>
            ) : (
              <p>
                <span className="mono">{user.email}</span> can sign in again with their email and password, as{" "}
                <strong>{user.role}</strong>.
              </p>
            )
          }
          onSubmit={() =>
            update.mutate(
              { id: user.id, patch: { disabled: disable } },
              {
                onSuccess: () => {
                  close();
                  toast.push({
                    tone: "success",
                    title: disable ? `${user.email} disabled` : `${user.email} enabled`,
                    body: disable ? "They can no longer sign in." : "They can sign in again.",
                  });
                },
              },
            )
          }
          onCancel={close}
          busy={update.isPending}
          error={update.error}
          confirmLabel={disable ? "Disable user" : "Enable user"}
          busyLabel={disable ? "Disabling…" : "Enabling…"}
          tone={disable ? "danger" : "primary"}
          confirmTestId={disable ? "user-disable-confirm" : "user-enable-confirm"}
        />
      ) : null}
    </Dialog>
  );
}
