"use client";

import { errorDigest } from "@/components/route/RouteError";
import "./globals.css";

/**
 * When the root layout itself fails. It replaces the whole document, so it brings its own html and
 * body and the stylesheet (light and dark themes included); nothing here may depend on the
 * providers or the session, which are what may have failed.
 */
export default function GlobalError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = errorDigest(error);
  return (
    <html lang="en">
      <body>
        <title>Something went wrong · Indexwright</title>
        <main className="standalone" id="main">
          <section
            className="card standalone__card route-state route-state--error"
            role="alert"
            data-testid="global-error"
          >
            <div className="route-state__icon" aria-hidden="true">
              !
            </div>
            <h1 className="route-state__title">Indexwright could not start this page</h1>
            <p className="route-state__body">
              The dashboard failed before it could draw anything. Trying again often helps; if not, the server log has
              the cause.
            </p>
            {digest ? (
              <p className="route-state__digest">
                Error reference <code className="code-chip">{digest}</code>
              </p>
            ) : null}
            <div className="route-state__actions">
              <button type="button" className="btn btn--primary" onClick={() => retry()}>
                Try again
              </button>
              {/* A plain link: a full page load, since the client router may be what broke. */}
              <a href="/overview" className="btn btn--secondary">
                Reload the overview
              </a>
            </div>
          </section>
        </main>
      </body>
    </html>
  );
}
