"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useId, useMemo, useRef, useState, type FormEvent } from "react";
import { TENANT_PATTERN } from "@/lib/domain/constants";
import { documentHref, isApiError, splitList, type Tenant } from "@/lib/ui/api";
import { useSearch, useSlashToFocus, useTenants } from "@/lib/ui/hooks";
import { migrationsHref } from "@/lib/ui/spaces";
import type { SearchInput } from "@/lib/ui/schemas";
import type { SearchHit } from "@/lib/ui/trust";
import { mayNamePrincipals, principalProblem, searchIsAudited } from "@/lib/ui/trust";
import { useViewer, type ViewerInfo } from "../PrincipalContext";
import { EmptyState, QueryErrorState } from "../States";
import { SlashHint } from "../SlashHint";
import { icons } from "../shell/icons";
import { Highlight } from "./Highlight";
import { AuditedNote, OwnPrincipals, PrincipalChips, PrincipalsRefused, SearchedAs } from "./SearchAs";
import { SearchModeControl, SCORE_MEANING } from "./SearchModeControl";
import { DEFAULT_SEARCH_MODE, SEARCH_MODES, type SearchMode } from "@/lib/search/modes";
import "../access.css";

const DEFAULT_TOP_K = 10;

function parseTopK(raw: string | null): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 100 ? n : DEFAULT_TOP_K;
}

function parseMode(raw: string | null): SearchMode {
  return SEARCH_MODES.find((m) => m === raw) ?? DEFAULT_SEARCH_MODE;
}

type FormState = { tenant: string; q: string; principals: string; topK: string; mode: SearchMode };
type FormErrors = Partial<Record<keyof FormState, string>>;

export function SearchView() {
  const router = useRouter();
  const pathname = usePathname();
  const sp = useSearchParams();

  // The URL is the source of truth for the search that runs; the form edits a draft of it.
  const urlTenant = sp.get("tenant") ?? "";
  const urlQ = sp.get("q") ?? "";
  const urlPrincipals = sp.get("principals") ?? "";
  const urlTopK = parseTopK(sp.get("topK"));
  const urlMode = parseMode(sp.get("mode"));

  const input: SearchInput | null = useMemo(
    () =>
      urlTenant && urlQ.trim()
        ? { tenant: urlTenant, query: urlQ.trim(), topK: urlTopK, principals: splitList(urlPrincipals), mode: urlMode }
        : null,
    [urlTenant, urlQ, urlTopK, urlPrincipals, urlMode],
  );

  const viewer = useViewer();
  const tenants = useTenants();
  // A search as someone else is written to the audit log under the caller's name, so it runs only
  // when they submit it here, never just because a link they followed carried `principals`.
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const awaitingConfirm =
    input !== null &&
    mayNamePrincipals(viewer) &&
    searchIsAudited(viewer, input.principals) &&
    confirmed !== sp.toString();
  const search = useSearch(awaitingConfirm ? null : input);

  function onSearch(qs: URLSearchParams) {
    setConfirmed(qs.toString());
    if (qs.toString() === sp.toString()) void search.refetch();
    else router.push(`${pathname}?${qs}`, { scroll: false });
  }

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Search</h1>
          <p className="page__lead">
            Query a tenant&apos;s index the way your application does, and see which chunks come back to whom.
          </p>
        </div>
      </div>

      {/* Keyed by the URL: back/forward remounts the form with the search the URL describes. */}
      <SearchForm
        key={sp.toString()}
        initial={{ tenant: urlTenant, q: urlQ, principals: urlPrincipals, topK: String(urlTopK), mode: urlMode }}
        tenants={tenants.data ?? []}
        viewer={viewer}
        fetching={search.isFetching}
        onSearch={onSearch}
      />

      {awaitingConfirm && input ? (
        <ConfirmSearchAs
          input={input}
          onConfirm={() => setConfirmed(sp.toString())}
          withoutPrincipals={withoutPrincipals(sp)}
        />
      ) : (
        <Results input={input} search={search} viewer={viewer} withoutPrincipals={withoutPrincipals(sp)} />
      )}
    </div>
  );
}

/** A link asked for a search as other principals: say what it would record, and run it only on request. */
function ConfirmSearchAs({
  input,
  onConfirm,
  withoutPrincipals,
}: {
  input: SearchInput;
  onConfirm: () => void;
  withoutPrincipals: string;
}) {
  return (
    <section className="results" aria-label="Search results">
      <div className="card" data-testid="confirm-search-as">
        <EmptyState icon={icons.search} title={`Search ${input.tenant} as ${input.principals.join(", ")}?`}>
          <p>
            This link searches as other principals. That is recorded in the audit log under your name, so it runs only
            when you ask for it.
          </p>
          <p className="confirm-search-as__actions">
            <button type="button" className="btn btn--primary" onClick={onConfirm}>
              Search as these principals
            </button>{" "}
            <Link className="btn btn--secondary" href={withoutPrincipals}>
              Search as yourself
            </Link>
          </p>
        </EmptyState>
      </div>
    </section>
  );
}

/** The current URL minus `principals`: the same search, as the caller's own principals. */
function withoutPrincipals(sp: URLSearchParams): string {
  const qs = new URLSearchParams(sp.toString());
  qs.delete("principals");
  return `?${qs}`;
}

type SearchFormProps = {
  initial: FormState;
  tenants: Tenant[];
  viewer: ViewerInfo;
  fetching: boolean;
  onSearch: (qs: URLSearchParams) => void;
};

function SearchForm({ initial, tenants, viewer, fetching, onSearch }: SearchFormProps) {
  // Only callers the server lets name principals get the field; everyone else searches as themselves.
  const canName = mayNamePrincipals(viewer);
  // tenant === null: not chosen yet, so suggest "default" (or the only tenant) once the list arrives.
  const formRef = useRef<HTMLFormElement>(null);
  const [form, setForm] = useState<Omit<FormState, "tenant"> & { tenant: string | null }>({
    ...initial,
    tenant: initial.tenant || null,
  });
  const [errors, setErrors] = useState<FormErrors>({});
  const suggested = tenants.find((t) => t.id === "default") ?? (tenants.length === 1 ? tenants[0] : undefined);
  const tenantValue = form.tenant ?? suggested?.id ?? "";

  const ids = { tenant: useId(), q: useId(), principals: useId(), topK: useId(), tenants: useId() };
  useSlashToFocus(ids.q);

  function update(name: Exclude<keyof FormState, "mode">, value: string) {
    setForm((f) => ({ ...f, [name]: value }));
    if (errors[name]) setErrors((e) => ({ ...e, [name]: undefined }));
  }

  // A search already shown is run again in the new mode at once; before that, the mode waits for Search.
  function changeMode(mode: SearchMode) {
    setForm((f) => ({ ...f, mode }));
    if (initial.q.trim()) setTimeout(() => formRef.current?.requestSubmit(), 0);
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const errs: FormErrors = {};
    const tenant = tenantValue.trim();
    const q = form.q.trim();
    const topK = Number(form.topK);
    if (!tenant) errs.tenant = "Choose a tenant.";
    else if (!TENANT_PATTERN.test(tenant)) errs.tenant = "Not a valid tenant id.";
    if (!q) errs.q = "Enter something to search for.";
    if (!Number.isInteger(topK) || topK < 1 || topK > 100) errs.topK = "A whole number from 1 to 100.";
    const named = canName ? splitList(form.principals) : [];
    const pProblem = principalProblem(named);
    if (pProblem) errs.principals = pProblem;
    setErrors(errs);
    const first = (["tenant", "q", "principals", "topK"] as const).find((n) => errs[n]);
    if (first) {
      document.getElementById(ids[first])?.focus();
      return;
    }
    const qs = new URLSearchParams();
    qs.set("tenant", tenant);
    qs.set("q", q);
    if (named.length > 0) qs.set("principals", named.join(","));
    if (topK !== DEFAULT_TOP_K) qs.set("topK", String(topK));
    if (form.mode !== DEFAULT_SEARCH_MODE) qs.set("mode", form.mode);
    onSearch(qs);
  }

  return (
    <section className="card card--padded">
      <form
        ref={formRef}
        className={`search-form${canName ? "" : " search-form--own"}`}
        role="search"
        aria-label="Search the index"
        onSubmit={onSubmit}
        noValidate
      >
        <div className="field search-form__tenant">
          <label htmlFor={ids.tenant} className="field__label">
            Tenant
          </label>
          <input
            id={ids.tenant}
            name="tenant"
            className="input mono"
            list={ids.tenants}
            value={tenantValue}
            onChange={(e) => update("tenant", e.target.value)}
            // Once someone is in the field, the suggestion stops moving: a tenant list arriving
            // mid-typing must not change the text under their cursor.
            onFocus={() => {
              if (form.tenant === null) setForm((f) => ({ ...f, tenant: tenantValue }));
            }}
            autoComplete="off"
            spellCheck={false}
            required
            aria-invalid={errors.tenant ? true : undefined}
            aria-describedby={errors.tenant ? `${ids.tenant}-error` : undefined}
          />
          <datalist id={ids.tenants}>
            {tenants.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name && t.name !== t.id ? t.name : undefined}
              </option>
            ))}
          </datalist>
          {errors.tenant ? (
            <p id={`${ids.tenant}-error`} className="field__error">
              {errors.tenant}
            </p>
          ) : null}
        </div>

        <div className="field search-form__query">
          <label htmlFor={ids.q} className="field__label">
            Query <SlashHint />
          </label>
          <input
            id={ids.q}
            name="q"
            aria-keyshortcuts="/"
            type="search"
            className="input"
            value={form.q}
            onChange={(e) => update("q", e.target.value)}
            autoComplete="off"
            required
            placeholder="What are you looking for?"
            aria-invalid={errors.q ? true : undefined}
            aria-describedby={errors.q ? `${ids.q}-error` : undefined}
          />
          {errors.q ? (
            <p id={`${ids.q}-error`} className="field__error">
              {errors.q}
            </p>
          ) : null}
        </div>

        {canName ? (
          <div className="field search-form__principals">
            <label htmlFor={ids.principals} className="field__label">
              Principals <span className="field__optional">(optional)</span>
            </label>
            <input
              id={ids.principals}
              name="principals"
              className="input mono"
              value={form.principals}
              onChange={(e) => update("principals", e.target.value)}
              autoComplete="off"
              spellCheck={false}
              placeholder="group:engineering, user:ada@example.com"
              aria-invalid={errors.principals ? true : undefined}
              aria-describedby={`${ids.principals}-hint${errors.principals ? ` ${ids.principals}-error` : ""}`}
              data-testid="search-principals"
            />
            <p id={`${ids.principals}-hint`} className="field__hint">
              {viewer.kind === "application"
                ? "An end user’s principals, comma-separated. Empty: only documents without an ACL."
                : "Search as these, comma-separated. Empty: as yourself."}
            </p>
            {errors.principals ? (
              <p id={`${ids.principals}-error`} className="field__error">
                {errors.principals}
              </p>
            ) : null}
          </div>
        ) : null}

        <div className="field search-form__topk">
          <label htmlFor={ids.topK} className="field__label">
            Top K
          </label>
          <input
            id={ids.topK}
            name="topK"
            type="number"
            inputMode="numeric"
            min={1}
            max={100}
            step={1}
            className="input"
            value={form.topK}
            onChange={(e) => update("topK", e.target.value)}
            aria-invalid={errors.topK ? true : undefined}
            aria-describedby={errors.topK ? `${ids.topK}-error` : undefined}
          />
          {errors.topK ? (
            <p id={`${ids.topK}-error`} className="field__error">
              {errors.topK}
            </p>
          ) : null}
        </div>

        <div className="search-form__submit">
          <button
            type="submit"
            className="btn btn--primary"
            aria-busy={fetching || undefined}
            data-testid="search-submit"
          >
            {icons.search}
            <span>{fetching ? "Searching…" : "Search"}</span>
          </button>
        </div>

        <SearchModeControl value={form.mode} onChange={changeMode} />

        {canName ? (
          <AuditedNote viewer={viewer} named={splitList(form.principals)} />
        ) : (
          <OwnPrincipals viewer={viewer} />
        )}
      </form>
    </section>
  );
}

type ResultsProps = {
  input: SearchInput | null;
  search: ReturnType<typeof useSearch>;
  viewer: ViewerInfo;
  /** Link to the same search without named principals (offered when naming them is refused). */
  withoutPrincipals: string;
};

function Results({ input, search, viewer, withoutPrincipals }: ResultsProps) {
  const hits = search.data?.hits;
  const refused = isApiError(search.error) && search.error.code === "PRINCIPALS_NOT_ALLOWED" ? search.error : null;
  let status = "";
  if (input) {
    if (search.isPending) status = "Searching…";
    else if (refused) status = "Search refused: you may search only as yourself.";
    else if (search.isError) status = "Search failed.";
    else if (hits)
      status = `${hits.length} result${hits.length === 1 ? "" : "s"} for “${input.query}” in ${input.tenant}.`;
  }

  return (
    <section className="results" aria-label="Search results">
      <p className="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
      {!input ? (
        <div className="card">
          <EmptyState icon={icons.search} title="Search a tenant's index">
            <p>Pick a tenant and type a query. Only documents whose state is Searchable (or Updating) can be found.</p>
          </EmptyState>
        </div>
      ) : search.isPending ? (
        <ol className="hits" aria-busy="true" aria-label="Loading results">
          {Array.from({ length: 3 }, (_, i) => (
            <li key={i} className="hit hit--skeleton" aria-hidden="true">
              <span className="skeleton" style={{ width: "30%" }} />
              <span className="skeleton skeleton--block" style={{ width: "90%" }} />
              <span className="skeleton skeleton--block" style={{ width: "70%" }} />
            </li>
          ))}
        </ol>
      ) : refused ? (
        <PrincipalsRefused
          viewer={viewer}
          named={input.principals}
          message={refused.message}
          retryHref={withoutPrincipals}
        />
      ) : search.isError || !hits ? (
        <QueryErrorState title="Search failed" query={search} />
      ) : (
        <>
          <SearchedAs searchedAs={search.data.searchedAs} audited={searchIsAudited(viewer, input.principals)} />
          <AnsweredBy space={search.data.space} tenant={input.tenant} />
          {hits.length === 0 ? (
            <div className="card">
              <EmptyState icon={icons.search} title={`No results for “${input.query}”`}>
                <p>
                  Nothing in <code className="mono">{input.tenant}</code> matched that{" "}
                  {search.data.searchedAs && search.data.searchedAs.length === 0
                    ? "is readable without principals"
                    : "these principals may read"}
                  . Check the tenant, that the document you expect is Searchable, and that its ACL names one of{" "}
                  {search.data.searchedAs && search.data.searchedAs.length > 0 ? (
                    <PrincipalChips list={search.data.searchedAs} />
                  ) : (
                    "the principals searched as"
                  )}
                  .
                </p>
              </EmptyState>
            </div>
          ) : (
            <>
              <p className="results__summary">
                <strong>{hits.length}</strong> result{hits.length === 1 ? "" : "s"} for “{input.query}” in{" "}
                <span className="tenant-chip">{input.tenant}</span>
                {search.isFetching ? <span className="muted"> · refreshing…</span> : null}
              </p>
              <ol className="hits">
                {hits.map((hit, i) => (
                  <HitItem
                    key={`${hit.chunkId}-${i}`}
                    hit={hit}
                    rank={i + 1}
                    tenant={input.tenant}
                    query={input.query}
                    mode={input.mode ?? DEFAULT_SEARCH_MODE}
                  />
                ))}
              </ol>
            </>
          )}
        </>
      )}
    </section>
  );
}

/** The index space that answered: the tenant's active one when the search statement ran. */
function AnsweredBy({ space, tenant }: { space: string | null; tenant: string }) {
  if (!space) return null;
  return (
    <p className="searched-as" data-testid="search-space" data-space={space}>
      <span>Answered from index space</span> <span className="chip">{space}</span>
      <Link href={migrationsHref(tenant)} className="muted">
        Migrations of {tenant}
      </Link>
    </p>
  );
}

function HitItem({
  hit,
  rank,
  tenant,
  query,
  mode,
}: {
  hit: SearchHit;
  rank: number;
  tenant: string;
  query: string;
  mode: SearchMode;
}) {
  return (
    <li className="hit" data-testid="search-hit" data-document-key={hit.documentKey} data-version={hit.versionNumber}>
      <div className="hit__head">
        <span className="hit__rank">
          <span className="visually-hidden">Rank </span>
          {rank}
        </span>
        <Link href={documentHref(tenant, hit.documentKey)} className="hit__key mono" data-testid="hit-document-key">
          {hit.documentKey}
        </Link>
        <span className="pill pill--neutral mono">v{hit.versionNumber}</span>
        {hit.sectionPath ? (
          <span className="hit__section" title={hit.sectionPath}>
            {hit.sectionPath}
          </span>
        ) : null}
        <span className="hit__score" title={SCORE_MEANING[mode]}>
          <span className="muted">score</span> <strong className="mono">{hit.score.toFixed(3)}</strong>
        </span>
      </div>
      <p className="hit__text">
        <Highlight text={hit.text} query={query} />
      </p>
    </li>
  );
}
