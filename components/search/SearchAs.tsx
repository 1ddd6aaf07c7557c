"use client";

import Link from "next/link";
import { searchIsAudited } from "@/lib/ui/trust";
import type { ViewerInfo } from "../PrincipalContext";
import { adminIcons } from "../shell/icons";

/** ACL principals as chips ("user:ada@example.com", "group:hr"). */
export function PrincipalChips({ list }: { list: readonly string[] }) {
  return (
    <span className="chips chips--inline">
      {list.map((p) => (
        <code key={p} className="principal-chip" data-testid="principal-chip">
          {p}
        </code>
      ))}
    </span>
  );
}

/** Under the form of a caller who cannot name principals: whom every search runs as, and why. */
export function OwnPrincipals({ viewer }: { viewer: ViewerInfo }) {
  if (viewer.kind === "application")
    return (
      <div className="search-as" data-testid="search-as-own">
        <p>
          <strong>This token searches with no principals</strong>: only documents without an ACL can be found. To search
          on behalf of your end users, an admin can give an application token the capability “May search on behalf of
          end users”.
        </p>
      </div>
    );
  return (
    <div className="search-as" data-testid="search-as-own">
      <p>
        <strong>You search as</strong> <PrincipalChips list={viewer.principals} />
      </p>
      <p className="search-as__hint">
        Results are the documents whose ACL names one of these, plus documents without an ACL. Searching as someone else
        needs the operator role.
      </p>
    </div>
  );
}

/**
 * Under the Principals field of a caller who may name others: a person's search as anyone else is
 * written to the audit log, and says so before it runs; an application's is its own responsibility.
 */
export function AuditedNote({ viewer, named }: { viewer: ViewerInfo; named: readonly string[] }) {
  if (viewer.kind === "application")
    return (
      <div className="search-as" data-testid="search-as-application">
        <p className="search-as__hint">
          This token may search on behalf of end users: the principals you name are trusted as given, and these searches
          are not audited one by one.
        </p>
      </div>
    );
  if (searchIsAudited(viewer, named))
    return (
      <div className="note note--amber search-as" data-testid="audit-note">
        <span className="note__icon" aria-hidden="true">
          !
        </span>
        <p>
          <strong>This search is recorded in the audit log</strong> (<code>search.as_principals</code>) with your name,
          the tenant and the principals <PrincipalChips list={named} />.
        </p>
      </div>
    );
  return (
    <div className="search-as" data-testid="search-as-own">
      <p>
        <strong>You search as</strong> <PrincipalChips list={named.length > 0 ? named : viewer.principals} />
      </p>
      <p className="search-as__hint">
        Naming other principals searches as them: it is allowed to your role and recorded in the audit log.
      </p>
    </div>
  );
}

/** Above the results: the principals the server actually searched as (from its answer). */
export function SearchedAs({ searchedAs, audited }: { searchedAs: string[] | null; audited: boolean }) {
  if (searchedAs === null) return null;
  return (
    <p className="searched-as" data-testid="searched-as">
      {searchedAs.length === 0 ? (
        <>
          <strong>Searched with no principals</strong>: only documents without an ACL can match.
        </>
      ) : (
        <>
          <span>Searching as</span> <PrincipalChips list={searchedAs} />
        </>
      )}
      {audited ? (
        <span className="pill pill--warn" data-testid="searched-as-audited">
          Recorded in the audit log
        </span>
      ) : null}
    </p>
  );
}

type RefusedProps = { viewer: ViewerInfo; named: readonly string[]; message: string; retryHref: string };

/** The API's 403 PRINCIPALS_NOT_ALLOWED: what was refused, why, and the search that is allowed. */
export function PrincipalsRefused({ viewer, named, message, retryHref }: RefusedProps) {
  return (
    <section
      className="card refused"
      role="alert"
      aria-labelledby="principals-refused-title"
      data-testid="principals-refused"
    >
      <div className="refused__icon" aria-hidden="true">
        {adminIcons.lock}
      </div>
      <div className="refused__body">
        <h2 id="principals-refused-title" className="refused__title">
          {viewer.kind === "application"
            ? "This token cannot search on behalf of others"
            : "You can search only as yourself"}
        </h2>
        <p>
          <code className="code-chip code-chip--neutral">PRINCIPALS_NOT_ALLOWED</code> Searching as{" "}
          <PrincipalChips list={named} /> was refused, and nothing was searched.
        </p>
        {viewer.kind === "application" ? (
          <p>An admin can mint an application token with the capability “May search on behalf of end users”.</p>
        ) : (
          <>
            <p>
              Your role is <strong>{viewer.role}</strong>, so your searches run as you. Searching as anyone else needs
              the operator role, and is recorded in the audit log.
            </p>
            <p>
              You are <PrincipalChips list={viewer.principals} />
            </p>
          </>
        )}
        {message ? <p className="refused__server muted">Server: {message}</p> : null}
        <p>
          <Link href={retryHref} className="btn btn--primary" data-testid="search-as-self">
            {viewer.kind === "application" ? "Search without principals" : "Search as yourself"}
          </Link>
        </p>
      </div>
    </section>
  );
}
