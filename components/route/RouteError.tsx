"use client";

import Link from "next/link";
import { useEffect, useRef } from "react";

type Props = {
  error: unknown;
  retry: () => void;
  /** What failed, in the page's own words ("Could not show the tasks"). */
  title?: string;
  back?: { href: string; label: string };
};

/** The digest Next.js gives a server-side error: the key to the matching line in the server log. */
export function errorDigest(error: unknown): string | null {
  if (typeof error === "object" && error !== null && "digest" in error) {
    const d = (error as { digest?: unknown }).digest;
    return typeof d === "string" && d !== "" ? d : null;
  }
  return null;
}

/**
 * The body of an error.tsx boundary. A server error's message is replaced by Next.js in
 * production (it may carry secrets), so the digest is what an operator quotes to find the logged
 * cause; a client error's own message is shown.
 */
export function RouteError({
  error,
  retry,
  title = "This page could not be shown",
  back = { href: "/overview", label: "Go to the overview" },
}: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  const digest = errorDigest(error);
  const message = !digest && error instanceof Error && error.message ? error.message : null;

  // Focus moves to the explanation, so a keyboard or screen-reader user learns what happened.
  useEffect(() => heading.current?.focus(), []);

  return (
    <div className="page">
      <section className="card route-state route-state--error" data-testid="route-error" role="alert">
        <div className="route-state__icon" aria-hidden="true">
          !
        </div>
        <h1 className="route-state__title" ref={heading} tabIndex={-1}>
          {title}
        </h1>
        <p className="route-state__body">
          {message ??
            "Something failed while loading it. Trying again often helps; if it keeps failing, the server log has the cause."}
        </p>
        {digest ? (
          <p className="route-state__digest" data-testid="error-digest">
            Error reference <code className="code-chip">{digest}</code>
            <span className="muted"> (search the server log for it)</span>
          </p>
        ) : null}
        <div className="route-state__actions">
          <button type="button" className="btn btn--primary" onClick={() => retry()} data-testid="error-retry">
            Try again
          </button>
          <Link href={back.href} className="btn btn--secondary">
            {back.label}
          </Link>
        </div>
      </section>
    </div>
  );
}
